"""75-ball patterns in a real browser (R73 b)): the room's display draws the game's pattern with its
cells filled and the free centre starred, once over the websocket too (static/js/pattern.js); on
the game form, ticking a cell of the grid chooses «Custom pattern», and the game saved plays it;
a manager picks an online room's pattern on its page, and a player sees it in the lobby."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from bingo.draw import selectors as draw_selectors
from bingo.engine.patterns import LIBRARY
from bingo.models import Game, OnlineRoom
from tests.e2e.conftest import RunInBrowser, live_page, log_in
from tests.games.test_patterns import PatternHall
from tests.online.test_room_pattern import PatternRoom

pytestmark = pytest.mark.browser

#: The cells of a picture filled, and starred, as "row,column".
CELLS = """(selector) => Array.from(document.querySelectorAll(selector + ' tr'))
  .flatMap((tr, r) => Array.from(tr.children).map((td, c) => [td.className, r + ',' + c]))
  .filter(([k]) => k).map(([k, rc]) => k + ' ' + rc)"""


def test_the_display_shows_the_games_pattern(asgi_server: str, browser: RunInBrowser[Any]) -> None:
    hall = PatternHall()
    hall.drawing(cards=5)
    token = draw_selectors.display_token(room=hall.room)

    def scenario(context: Any) -> dict[str, Any]:
        display = live_page(context, f"{asgi_server}/ecra/{token}/")
        # The websocket's state redrew it (data-drawn is the script's).
        display.wait_for_selector("[data-game-pattern] figure[data-drawn]")
        picture = display.locator("[data-game-pattern] .pattern-picture")
        return {
            "visible": picture.is_visible(),
            "name": picture.locator("figcaption").inner_text(),
            "cells": display.evaluate(CELLS, "[data-game-pattern] .pattern-grid"),
        }

    seen = browser(scenario)
    assert seen["visible"] is True
    assert seen["name"] == "X"
    expected = {f"is-on {r},{c}" for r, c in LIBRARY["x"].cells if (r, c) != (2, 2)} | {"is-free 2,2"}
    assert set(seen["cells"]) == expected


def test_ticking_the_grid_chooses_a_custom_pattern(asgi_server: str, browser: RunInBrowser[Any]) -> None:
    hall = PatternHall()
    form_url = asgi_server + reverse("games:game_create", args=[hall.session.pk])

    def scenario(context: Any) -> str:
        page = context.new_page()
        log_in(page, asgi_server, hall.manager.username, None)
        page.goto(form_url)
        page.locator("select[name=variant]").select_option("75")
        page.locator("input[name=plan][value=custom]").check()
        page.locator("input[name=bingo_share]").fill("80")
        for cell in ("0,0", "1,1", "3,3", "4,4"):
            page.locator(f'input[name=custom_cells][value="{cell}"]').check()
        chosen = page.locator('input[name=pattern][value="custom"]').is_checked()
        page.locator("form.form button[type=submit]").click()
        page.wait_for_load_state("networkidle")
        return "custom" if chosen else "not chosen"

    assert browser(scenario) == "custom"
    game = Game.objects.get()
    # The main diagonal, drawn by hand (the free centre counts as marked, R72): the library's.
    assert game.win_rules == {
        "line_kinds": [],
        "pattern": "X..../.X.../...../...X./....X",
        "pattern_key": "diagonal_down",
    }


def test_a_manager_picks_an_online_rooms_pattern_and_a_player_sees_it_in_the_lobby(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:
    site = PatternRoom(pattern=None)  # a 75-ball room playing the full card, the bingo alone
    player = site.player()
    room_url = asgi_server + reverse("online:room_detail", args=[site.online.pk])

    def manager(context: Any) -> dict[str, Any]:
        page = context.new_page()
        log_in(page, asgi_server, site.manager.username, None)
        page.goto(room_url)
        # The game form's picker: ticking a cell of the grid chooses «Custom pattern»...
        page.locator('input[name=custom_cells][value="0,0"]').check()
        custom = page.locator('input[name=pattern][value="custom"]').is_checked()
        page.locator('input[name=custom_cells][value="0,0"]').uncheck()
        # ...and the manager picks the diamond by its picture's radio button.
        page.locator('label.pattern-option:has(figure[data-pattern="diamond"]) input').check()
        page.locator("#setup button[type=submit]").click()
        page.wait_for_load_state("networkidle")
        return {"custom": custom, "chosen": page.locator('input[name=pattern][value="diamond"]').is_checked()}

    done = browser(manager)
    assert done == {"custom": True, "chosen": True}
    assert OnlineRoom.objects.get(pk=site.online.pk).pattern == "diamond"

    def lobby(context: Any) -> dict[str, Any]:
        page = context.new_page()
        log_in(page, asgi_server, player.user.username, None)
        page.goto(f"{asgi_server}/online/")
        picture = page.locator(f'[data-room="{site.online.pk}"] [data-room-pattern] .pattern-picture')
        return {
            "visible": picture.is_visible(),
            "name": picture.locator("figcaption").inner_text(),
            "cells": page.evaluate(
                CELLS, f'[data-room="{site.online.pk}"] [data-room-pattern] .pattern-grid'
            ),
        }

    seen = browser(lobby)
    assert seen["visible"] is True
    assert seen["name"] == "Losango"
    expected = {f"is-on {r},{c}" for r, c in LIBRARY["diamond"].cells} | {"is-free 2,2"}
    assert set(seen["cells"]) == expected
