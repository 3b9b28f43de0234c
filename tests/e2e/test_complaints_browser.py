"""A player's complaint in a real browser (Chromium + uvicorn), at a phone's width (360 px): from
the history's game row to the session's acta (R61 j)), the manager's decision at /reclamacoes/,
and the answer beside the game; the rules page one click away from the history (R103,
PT-806/66). No page scrolls sideways."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from actas.models import ActaNote
from bingo.models import PlayerComplaint
from bingo.online import services as online_services
from tests.e2e.conftest import RunInBrowser
from tests.factories import DEFAULT_PASSWORD
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}


def test_a_player_complains_from_the_history_and_reads_the_managers_answer(
    asgi_served: tuple[str, asyncio.AbstractEventLoop], browser: RunInBrowser[Any]
) -> None:
    base, _loop = asgi_served
    site = OnlineSetup(name="Salão Online")
    game = site.game(site.series(1, price="10.00"))
    ana = site.player("100.00", username="ana")
    online_services.online_buy(player=ana, game=game, quantity=2, key="ana-buys")

    def login(page: Any, username: str) -> None:
        page.goto(f"{base}/entrar/")
        page.get_by_label("Nome de utilizador").fill(username)
        page.get_by_label("Palavra-passe").fill(DEFAULT_PASSWORD)
        with page.expect_navigation():
            page.get_by_role("button", name="Entrar").click()

    def width(page: Any) -> int:
        return int(page.evaluate("document.documentElement.scrollWidth"))

    def complain(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        page.set_viewport_size(PHONE)
        login(page, "ana")
        page.goto(f"{base}/jogador/historico/")
        seen["widths"] = {"history": width(page)}
        page.locator(f'[data-complain="{game.pk}"]').click()
        page.wait_for_url(f"{base}/jogador/historico/{game.pk}/reclamar/")
        seen["widths"]["form"] = width(page)
        page.get_by_label("A sua reclamação").fill("Comprei 2 cartões mas só vejo 1.")
        with page.expect_navigation():
            page.get_by_role("button", name="Enviar a reclamação").click()
        seen["after"] = page.url
        seen["row"] = page.locator(f'tr[data-game="{game.pk}"]').inner_text()
        with page.expect_navigation():
            page.locator("#rules-link").click()
        seen["rules"] = page.locator("h1").inner_text()
        seen["widths"]["rules"] = width(page)
        return seen

    seen = browser(complain)
    assert seen["after"] == f"{base}/jogador/historico/"
    assert "Comprei 2 cartões mas só vejo 1." in seen["row"]
    assert "À espera da decisão dos gerentes." in seen["row"]
    assert seen["rules"] == "Regras e reclamações"
    assert all(w <= PHONE["width"] for w in seen["widths"].values()), seen["widths"]
    complaint = PlayerComplaint.objects.get()
    assert complaint.complaint_note.kind == ActaNote.Kind.COMPLAINT

    def decide(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        page.set_viewport_size(PHONE)
        login(page, site.manager.get_username())
        page.goto(f"{base}/reclamacoes/")
        seen["width"] = width(page)
        page.get_by_role("link", name="Decidir").click()
        page.wait_for_url(f"{base}/reclamacoes/{complaint.pk}/")
        page.get_by_label("Decisão").fill("Verificado: os 2 cartões estão na sua conta.")
        with page.expect_navigation():
            page.get_by_role("button", name="Registar a decisão").click()
        seen["decided"] = page.locator("#decided-complaints").inner_text()
        return seen

    decided = browser(decide)
    assert decided["width"] <= PHONE["width"]
    assert "Verificado: os 2 cartões estão na sua conta." in decided["decided"]

    def read(context: Any) -> str:
        page = context.new_page()
        page.set_viewport_size(PHONE)
        login(page, "ana")
        page.goto(f"{base}/jogador/historico/")
        return str(page.locator(f'tr[data-game="{game.pk}"]').inner_text())

    assert "Verificado: os 2 cartões estão na sua conta." in browser(read)
    complaint.refresh_from_db()
    assert complaint.decision_note is not None
    assert complaint.decision_note.refers_to_id == complaint.complaint_note_id
