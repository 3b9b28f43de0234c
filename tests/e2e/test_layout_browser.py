"""The screens fit the devices they are used on (issue 24): every cashier, caller, manager and player page
on a 360 px phone with no horizontal scrolling, and the hall's TV display on 1920 x 1080 with no
scrolling at all. Played on the demo hall (``demo_setup``), as a newcomer finds it."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from bingo.common.roles import Role
from bingo.draw import selectors as draw_selectors
from bingo.models import Game, GameState, Player, Session
from tests.e2e.conftest import RunInBrowser, log_in

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
TV = {"width": 1920, "height": 1080}

#: What overflows: the page's width and height, and the elements reaching past the viewport's
#: right edge (the deepest ones, to say which to fix).
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const past = (el) => el.getBoundingClientRect().right > width + 1;
  const wide = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.getBoundingClientRect().width > 0 && past(el) && ![...el.children].some(past)) {
      const classes = el.className ? '.' + String(el.className).split(' ').join('.') : '';
      const name = el.tagName.toLowerCase() + classes;
      wide.push(`${name} right=${Math.round(el.getBoundingClientRect().right)}`);
    }
  }
  const page = document.documentElement;
  return {scrollWidth: page.scrollWidth, scrollHeight: page.scrollHeight, wide: wide.slice(0, 5)};
}"""


def _orm(fn: Callable[[], Any]) -> Any:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


@pytest.fixture
def demo(settings: Any, transactional_db: None) -> dict[str, Any]:
    settings.DEBUG = True
    call_command("demo_setup", stdout=StringIO())
    selling = Game.objects.get(state=GameState.SELLING, session__room__online__isnull=True)
    ready = Game.objects.get(state=GameState.SALES_CLOSED)
    finished = Session.objects.get(ended_at__isnull=False)
    player = Player.objects.get(user__username="jogador")
    return {
        "cashier": [
            reverse("sales:cashier"),
            reverse("sales:prize_pay"),
            reverse("sales:shift_report"),
            reverse("drawers:drawer"),
            reverse("drawers:closeout_list"),
            reverse("drawers:range_report"),
            reverse("sales:payout_slip_find"),
            reverse("players:staff_search"),
            reverse("players:staff_player", args=[player.pk]),
            reverse(Role.CASHIER.dashboard_url_name),
        ],
        "caller": [
            reverse("draw:caller_games"),
            reverse("draw:console", args=[ready.pk]),
            reverse("halls:ball_set_halls"),
        ],
        "manager": [
            reverse(Role.MANAGER.dashboard_url_name),
            reverse("halls:hall_list"),
            reverse("games:session_list"),
            reverse("games:session_detail", args=[finished.pk]),
            reverse("games:game_detail", args=[selling.pk]),
            reverse("cards:series_list"),
            reverse("online:room_list"),
            reverse("drawers:closeout_list"),
            reverse("games:game_results", args=[finished.games.get(number=1).pk]),
        ],
        "player": [
            reverse(Role.PLAYER.dashboard_url_name),
            reverse("players:wallet"),
            reverse("players:history"),
            reverse("online:lobby"),
        ],
        "display": reverse("draw:display", args=[draw_selectors.display_token(room=ready.session.room)]),
        "board": reverse("sales:price_board", args=[selling.pk]),
    }


def _overflows(context: Any, base: str, username: str, paths: list[str]) -> dict[str, Any]:
    page = context.new_page()
    page.set_viewport_size(PHONE)
    log_in(page, base, username, None, password=f"{username}-demo")
    page.wait_for_load_state()
    found = {}
    for path in paths:
        response = page.goto(f"{base}{path}")
        assert response is not None, path
        assert response.status == 200, (path, response.status)
        measured = page.evaluate(OVERFLOW_JS)
        if measured["scrollWidth"] > PHONE["width"]:
            found[path] = measured
    return found


@pytest.mark.parametrize("role", ["cashier", "caller", "manager", "player"])
def test_every_staff_page_fits_a_360px_phone(
    asgi_server: str, browser: RunInBrowser[Any], demo: dict[str, Any], role: str
) -> None:
    username = {"cashier": "caixa", "caller": "locutor", "manager": "gerente", "player": "jogador"}[role]

    found = browser(lambda context: _overflows(context, asgi_server, username, demo[role]))

    assert found == {}, f"wider than {PHONE['width']} px: {found}"


def test_the_display_and_the_price_board_fit_a_1920_by_1080_tv_without_scrolling(
    asgi_server: str, browser: RunInBrowser[Any], demo: dict[str, Any]
) -> None:
    def scenario(context: Any) -> dict[str, Any]:
        seen = {}
        for name in ("display", "board"):
            page = context.new_page()
            page.set_viewport_size(TV)
            page.goto(f"{asgi_server}{demo[name]}")
            page.wait_for_selector("[data-live].is-live")
            seen[name] = page.evaluate(OVERFLOW_JS)
        return seen

    seen = browser(scenario)

    for name, measured in seen.items():
        assert measured["scrollWidth"] <= TV["width"], (name, measured)
        assert measured["scrollHeight"] <= TV["height"], (name, measured)
