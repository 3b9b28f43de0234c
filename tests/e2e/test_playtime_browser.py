"""The play session in a real browser (Chromium + uvicorn): the limit and reminders set on their
page (R101), the reminder of the time played shown by the static script as the browser's clock
runs on, the summary after logging out (PT-806/67), and no sideways scrolling at 360 px."""

from __future__ import annotations

from typing import Any

import pytest

from bingo.models import PlaySession
from bingo.playtime.selectors import play_limits
from tests.autodraw.helpers import OnlineHall
from tests.e2e.conftest import RunInBrowser, log_in
from tests.playtime.helpers import player

pytestmark = pytest.mark.browser


def test_limit_reminder_and_summary_in_the_browser(asgi_server: str, browser: RunInBrowser[Any]) -> None:
    lobby = OnlineHall()
    ana = player(lobby, "ana")
    base = asgi_server

    def scenario(context: Any) -> dict[str, Any]:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_viewport_size({"width": 360, "height": 740})
        log_in(page, base, "ana", "/jogador/")
        page.get_by_role("link", name="As minhas sessões").click()
        page.wait_for_url(f"{base}/jogador/sessoes/")
        page.get_by_role("link", name="Definir limite de tempo e lembretes").click()
        page.get_by_label("Limite de tempo da sessão (minutos)").fill("120")
        page.get_by_label("Lembrar-me do tempo de jogo").select_option("15")
        with page.expect_navigation():
            page.get_by_role("button", name="Guardar").click()
        seen: dict[str, Any] = {
            "url": page.url,
            "wide": [page.evaluate("document.documentElement.scrollWidth")],
        }

        # The browser's clock runs 16 minutes on: the lobby's script shows the 15-minute reminder.
        page.clock.install()
        page.goto(f"{base}/online/")
        reminder = page.locator("[data-playtime-reminder]")
        seen["before"] = reminder.is_visible()
        page.clock.run_for("16:00")
        reminder.wait_for(state="visible")
        seen["reminder"] = reminder.inner_text()
        seen["wide"].append(page.evaluate("document.documentElement.scrollWidth"))

        with page.expect_navigation():
            page.get_by_role("button", name="Sair").click()
        seen["after_logout"] = page.url
        seen["heading"] = page.locator("h1").inner_text()
        seen["wide"].append(page.evaluate("document.documentElement.scrollWidth"))
        seen["errors"] = errors
        return seen

    seen = browser(scenario)
    assert seen["url"] == f"{base}/jogador/sessoes/"
    assert (play_limits(player=ana).session_minutes, play_limits(player=ana).reminder_minutes) == (120, 15)
    assert seen["before"] is False
    assert seen["reminder"] == "Está a jogar há 15 minutos."
    assert seen["after_logout"] == f"{base}/jogador/sessoes/resumo/"
    assert seen["heading"] == "A sua sessão de jogo terminou"
    assert max(seen["wide"]) <= 360
    assert seen["errors"] == []
    assert PlaySession.objects.get(player=ana).end_reason == "logout"
