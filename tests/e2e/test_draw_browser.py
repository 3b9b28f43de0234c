"""The draw in a real browser: the caller starts an electronic draw and draws a ball from the
keyboard, and the room's display, open in another page, shows it at once (R13, R28, R42); so
does the same console open in a second tab."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bingo.draw import selectors as draw_selectors
from bingo.models import Ball
from tests.draw.test_views import Console
from tests.e2e.conftest import RunInBrowser, live_page, log_in

pytestmark = pytest.mark.browser


def test_a_caller_draws_a_ball_and_the_display_shows_it_without_reloading(
    asgi_server: str, browser: RunInBrowser[Any], tmp_path: Path
) -> None:
    hall = Console(name="Salão da Praia")
    game = hall.closed(cards=10)
    token = draw_selectors.display_token(room=hall.room)
    base = asgi_server

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        display = live_page(context, f"{base}/ecra/{token}/")
        seen["count_before"] = display.locator("[data-count]").inner_text()

        page = context.new_page()
        log_in(page, base, hall.caller.username, "/locutor/")
        page.goto(f"{base}/locutor/jogos/")
        page.locator(f'a[href="/locutor/jogo/{game.pk}/"]').click()
        page.wait_for_url(f"{base}/locutor/jogo/{game.pk}/")

        page.locator("input[name=mode][value=electronic]").check()
        page.locator("button[data-start]").click()
        page.wait_for_selector("button[data-draw-ball]")
        # The same console in a second tab: it hears of the ball over its websocket.
        other_tab = context.new_page()
        other_tab.goto(f"{base}/locutor/jogo/{game.pk}/")
        other_tab.wait_for_selector("[data-live].is-live")
        other_tab.evaluate("window.__sameDocument = true")
        page.bring_to_front()
        # Keyboard only: the big button has the focus, Enter draws.
        page.wait_for_function(
            "() => document.activeElement && document.activeElement.hasAttribute('data-draw-ball')"
        )
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('[data-count]').textContent.trim() === '1'")
        seen["console_last"] = page.locator("[data-last-ball]").inner_text().strip()
        page.screenshot(path=str(tmp_path / "console.png"), full_page=True)

        display.wait_for_function("() => document.querySelector('[data-count]').textContent.trim() === '1'")
        seen["display_last"] = display.locator("[data-last]").inner_text().strip()
        seen["display_lit"] = display.locator(".display-cell.is-drawn").all_inner_texts()
        seen["same_document"] = display.evaluate("window.__sameDocument === true")
        other_tab.wait_for_function("() => document.querySelector('[data-count]').textContent.trim() === '1'")
        seen["other_tab_last"] = other_tab.locator("[data-last-ball]").inner_text().strip()
        seen["other_tab_same_document"] = other_tab.evaluate("window.__sameDocument === true")
        display.screenshot(path=str(tmp_path / "display.png"), full_page=True)
        return seen

    seen = browser(scenario)

    ball = Ball.objects.get(game=game)
    assert seen["count_before"] == "0"
    assert seen["console_last"] == str(ball.number)
    assert seen["display_last"] == str(ball.number)
    assert seen["display_lit"] == [str(ball.number)]
    assert seen["same_document"] is True  # updated over the websocket, not by reloading
    assert seen["other_tab_last"] == str(ball.number)  # the console fetched its live part again
    assert seen["other_tab_same_document"] is True
    assert (tmp_path / "console.png").stat().st_size > 0
    assert (tmp_path / "display.png").stat().st_size > 0
