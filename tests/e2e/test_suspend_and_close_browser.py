"""R55 and R23 in a real browser, in Portuguese: a caller suspends a game before its first ball
and the console says from when it may be annulled, refusing it before then; a manager closes a
session only with its end-of-session ball-set check, recorded on the closing form."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from bingo.common.roles import Role
from bingo.models import Game, GameState, Session
from halls.models import BallSetCheck, StaffMembership
from tests.draw.test_views import Console
from tests.e2e.conftest import RunInBrowser, log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.browser


def test_a_suspended_game_shows_when_it_may_be_annulled_and_is_not_annulled_before(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:  # R55
    hall = Console(name="Salão da Boa Vista")
    game = hall.closed(cards=5)
    base = asgi_server
    console = f"{base}/locutor/jogo/{game.pk}/"

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        log_in(page, base, hall.caller.username, "/locutor/")
        page.goto(console)
        page.locator("details:has([data-suspend-form]) > summary").click()
        page.locator("[data-suspend-form] [name=reason]").fill("O mecanismo de extração não arranca")
        page.locator("[data-suspend-form] button[type=submit]").click()
        page.wait_for_selector("[data-suspended]")
        seen["annul_from"] = page.locator("[data-annul-from]").get_attribute("data-annul-from")
        seen["annul_from_text"] = page.locator("[data-annul-from]").inner_text()

        page.locator("[data-annul-form] [name=reason]").fill("Sem solução")
        page.locator("[data-annul-form] button[type=submit]").click()
        page.locator("[data-confirm-form] button[data-confirm]").click()  # the confirmation step
        page.wait_for_selector("[data-suspended]")
        seen["refusal"] = page.locator("body").inner_text()
        return seen

    seen = browser(scenario)

    game.refresh_from_db()
    assert game.state == GameState.SUSPENDED
    assert game.suspended_at is not None
    allowed = timezone.localtime(game.suspended_at + timedelta(minutes=15), ZoneInfo(hall.hall.time_zone))
    assert seen["annul_from"] == f"{allowed:%H:%M}"
    assert f"Anulação possível a partir das {allowed:%H:%M} (R55)" in seen["annul_from_text"]
    assert f"a partir das {allowed:%H:%M} (daqui a 15 min)" in seen["refusal"]
    assert not Game.objects.get(pk=game.pk).refunds.exists()


def test_a_manager_closes_a_session_with_its_end_of_session_check(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:  # R23
    hall = Console(name="Salão do Sal")
    manager = UserFactory(username="gerente-sal", roles=[Role.MANAGER])
    StaffMembership.objects.create(hall=hall.hall, user=manager, role=Role.MANAGER.value)
    base = asgi_server
    session_page = f"{base}/sessoes/{hall.session.pk}/"

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        log_in(page, base, manager.username, "/gerente/")
        page.goto(session_page)
        close = page.locator("[data-session-close-form]")
        seen["set_named"] = close.inner_text()

        close.locator("button[data-session-close]").click()  # neither the check nor a reason
        page.wait_for_selector("[data-session-close-form]")
        seen["refusal"] = page.locator("#session-close").inner_text()

        row = page.locator(f'[data-end-check="{hall.ball_set.pk}"]')
        row.get_by_label("Verificado agora: algumas bolas falharam").check()
        row.locator(f"[name=faulty-{hall.ball_set.pk}]").fill("7, 61")
        page.locator("button[data-session-close]").click()
        page.wait_for_selector("[data-session-ended]")
        seen["closed"] = page.locator("body").inner_text()
        seen["form_left"] = page.locator("[data-session-close-form]").count()
        return seen

    seen = browser(scenario)

    assert "JB-1" in seen["set_named"]
    assert "diga porque não pôde ser feita" in seen["refusal"]
    assert "Sessão encerrada." in seen["closed"]
    assert seen["form_left"] == 0
    assert Session.objects.get(pk=hall.session.pk).ended_at is not None
    check = BallSetCheck.objects.get(session=hall.session, phase="end")
    assert (check.result, check.faulty_balls, check.checked_by) == ("faulty", [7, 61], manager)
