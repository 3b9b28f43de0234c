"""Issue 24 point 4 in a real browser, in Portuguese: in the session's last 10 minutes the
caller's console and the room's display say «Última jogada» (R53); the caller annuls the game
through the page's confirmation step (R57), the price board open on a TV shows it annulled
without a reload and links its results, and the console's link opens the results page."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from bingo.draw import selectors as draw_selectors
from bingo.models import GameState
from tests.draw.test_views import Console
from tests.e2e.conftest import RunInBrowser, live_page, log_in

pytestmark = pytest.mark.browser


def test_the_caller_confirms_an_annulment_and_the_board_and_results_show_it(
    asgi_server: str, browser: RunInBrowser[Any], tmp_path: Path
) -> None:  # R53, R57
    hall = Console(name="Salão de São Vicente")
    game = hall.drawing(cards=4)  # 400 CVE
    hall.key(game, 8, 23)
    # The session ends in 5 minutes: its last game is announced (R53).
    hall.session.scheduled_end = timezone.now() + timedelta(minutes=5)
    hall.session.save(update_fields=["scheduled_end"])
    base = asgi_server
    token = draw_selectors.display_token(room=hall.room)
    console = f"{base}/locutor/jogo/{game.pk}/"

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        display = live_page(context, f"{base}/ecra/{token}/")
        seen["display_last_game"] = display.locator("[data-last-game]").is_visible()
        seen["display_last_game_text"] = display.locator("[data-last-game]").text_content().strip()
        board = live_page(context, f"{base}/quadro/{game.pk}/")
        seen["board_before"] = board.locator("[data-state-name]").inner_text().strip()
        seen["board_link_before"] = board.locator("[data-results-link]").is_visible()

        page = context.new_page()
        log_in(page, base, hall.caller.username, "/locutor/")
        page.goto(console)
        seen["console_last_game"] = page.locator("[data-last-game]").inner_text()

        page.locator("details:has([data-annul-form]) > summary").click()
        page.locator("[data-annul-form] [name=reason]").fill("A bola 23 foi anunciada como 32")
        with page.expect_navigation():
            page.locator("[data-annul-form] button[type=submit]").click()
        # The confirmation step: nothing has changed yet.
        page.wait_for_selector("[data-confirm-form]")
        seen["asked"] = page.locator("[data-confirmation]").inner_text()
        # Nothing has changed yet: the board (live) still shows the game drawing.
        seen["board_when_asked"] = board.locator("[data-state-name]").inner_text().strip()
        page.screenshot(path=str(tmp_path / "confirm.png"), full_page=True)
        with page.expect_navigation():
            page.locator("[data-confirm-form] button[data-confirm]").click()
        page.wait_for_url(console)
        page.wait_for_selector(".console-live[data-console-state=annulled]")
        seen["console_after"] = page.locator("body").inner_text()

        # The board, never reloaded, shows the game's real state and links its results.
        board.wait_for_function(
            "() => document.querySelector('[data-state-name]').textContent.trim() === 'Anulada'"
        )
        board.wait_for_selector("[data-results-link]:not([hidden])")
        seen["board_same_document"] = board.evaluate("window.__sameDocument === true")
        board.screenshot(path=str(tmp_path / "board.png"))

        with page.expect_navigation():
            page.locator("[data-results-link]").click()
        seen["results_url"] = page.url
        seen["results"] = page.locator("main").inner_text()
        page.screenshot(path=str(tmp_path / "results.png"), full_page=True)
        return seen

    seen = browser(scenario)

    assert seen["display_last_game"] is True
    assert seen["display_last_game_text"] == "Última jogada"
    assert "Última jogada" in seen["console_last_game"]
    assert "anuncie que esta é a última jogada" in seen["console_last_game"]
    assert (seen["board_before"], seen["board_link_before"]) == ("Em extração", False)
    assert f"Anular a jogada {game.number}?" in seen["asked"]
    assert "Todos os cartões vendidos são reembolsados integralmente: 4 cartões, 400 CVE." in seen["asked"]
    assert "A bola 23 foi anunciada como 32" in seen["asked"]
    assert seen["board_when_asked"] == "Em extração"
    assert "A jogada foi anulada" in seen["console_after"]
    assert seen["board_same_document"] is True
    assert seen["results_url"] == f"{base}/jogadas/{game.pk}/resultados/"
    assert f"Resultados da jogada {game.number}" in seen["results"]
    assert "Anulada: todos os cartões vendidos foram reembolsados integralmente (400 CVE)." in seen["results"]
    game.refresh_from_db()
    assert (game.state, game.state_reason) == (GameState.ANNULLED, "A bola 23 foi anunciada como 32")
    assert game.refunds.count() == game.sales.count()
