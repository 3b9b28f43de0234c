"""Logging in through a real browser, per role, and switching the language (Chromium + uvicorn)."""

from __future__ import annotations

from typing import Any

import pytest

from bingo.common.roles import ROLE_DUTIES, Role
from tests.conftest import MakeUser
from tests.e2e.conftest import RunInBrowser
from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.browser

HEADINGS = {
    Role.MANAGER: ("/gerente/", "Painel do gerente", "Manager dashboard"),
    Role.CASHIER: ("/caixa/", "Painel do caixa", "Cashier dashboard"),
    Role.CALLER: ("/locutor/", "Painel do locutor", "Caller dashboard"),
    Role.INSPECTOR: ("/inspetor/", "Painel do inspetor", "Inspector dashboard"),
    Role.PLAYER: ("/jogador/", "Painel do jogador", "Player dashboard"),
}


@pytest.mark.parametrize("role", list(Role))
def test_each_role_logs_in_sees_its_dashboard_and_switches_to_english(
    asgi_server: str, browser: RunInBrowser[Any], make_user: MakeUser, role: Role
) -> None:
    path, portuguese, english = HEADINGS[role]
    make_user(role, username=f"demo-{role.value}")

    def scenario(context: Any) -> dict[str, Any]:
        page = context.new_page()
        page.goto(f"{asgi_server}/")  # the browser asks for English (locale en-GB)...
        seen: dict[str, Any] = {"login_heading": page.locator("h1").inner_text()}  # ...and gets Portuguese
        seen["css_colour"] = page.evaluate(
            "getComputedStyle(document.querySelector('.site-header')).backgroundColor"
        )
        page.get_by_label("Nome de utilizador").fill(f"demo-{role.value}")
        page.get_by_label("Palavra-passe").fill(DEFAULT_PASSWORD)
        page.get_by_role("button", name="Entrar").click()
        page.wait_for_url(f"{asgi_server}{path}")
        seen["heading"] = page.locator("h1").inner_text()
        seen["pending"] = page.get_by_text("Ainda não disponível").count()

        page.get_by_role("button", name="English").click()
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        seen["url_after_switch"] = page.url
        seen["english_heading"] = page.locator("h1").inner_text()

        page.get_by_role("button", name="Log out").click()
        page.wait_for_url(f"{asgi_server}/entrar/")
        seen["after_logout"] = page.locator("h1").inner_text()
        return seen

    seen = browser(scenario)

    assert seen["login_heading"] == "Entrar"
    assert seen["css_colour"] == "rgb(13, 34, 64)"  # app.css loaded: the header's --c-header
    assert seen["heading"] == portuguese
    assert seen["pending"] == sum(1 for duty in ROLE_DUTIES[role] if duty.url_name is None)
    assert seen["url_after_switch"] == f"{asgi_server}{path}"
    assert seen["english_heading"] == english
    assert seen["after_logout"] == "Log in"


def test_a_wrong_password_keeps_the_user_on_the_login_page(
    asgi_server: str, browser: RunInBrowser[Any], make_user: MakeUser
) -> None:
    make_user(Role.CASHIER, username="ana")

    def scenario(context: Any) -> tuple[str, str]:
        page = context.new_page()
        page.goto(f"{asgi_server}/entrar/")
        page.get_by_label("Nome de utilizador").fill("ana")
        page.get_by_label("Palavra-passe").fill("not-the-password")
        page.get_by_role("button", name="Entrar").click()
        page.wait_for_load_state()
        return page.url, page.get_by_role("alert").inner_text()

    url, alert = browser(scenario)

    assert url == f"{asgi_server}/entrar/"
    assert "não estão certos" in alert
