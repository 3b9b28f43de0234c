"""A note for the acta typed at the caller's console survives the console's live reload, even
when the game changes state meanwhile (started from another tab), and is recorded when sent
(R61 j))."""

from __future__ import annotations

from typing import Any

import pytest

from actas.models import ActaNote
from bingo.models import GameState
from tests.draw.test_views import Console
from tests.e2e.conftest import RunInBrowser, log_in

pytestmark = pytest.mark.browser

TYPED = "Jogador da mesa 4 diz que a bola 17 foi anunciada como 71."


def test_a_note_being_typed_is_not_wiped_when_the_game_starts_elsewhere(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:
    hall = Console(name="Salão do Mindelo")
    game = hall.closed(cards=5)
    base = asgi_server
    console = f"{base}/locutor/jogo/{game.pk}/"

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        log_in(page, base, hall.caller.username, "/locutor/")
        page.goto(console)
        page.wait_for_selector("[data-live].is-live")
        page.evaluate("window.__sameDocument = true")
        page.locator("#note_text").fill(TYPED)

        # Another tab starts the draw: the first console hears the game changed state.
        other = context.new_page()
        other.goto(console)
        other.locator("input[name=mode][value=electronic]").check()
        other.locator("button[data-start]").click()
        other.wait_for_selector("button[data-draw-ball]")

        page.bring_to_front()
        page.wait_for_selector("[data-console-state=drawing]")
        seen["same_document"] = page.evaluate("window.__sameDocument === true")
        seen["typed"] = page.locator("#note_text").input_value()

        page.locator("button[data-record-note]").click()
        page.wait_for_selector("[data-note-kind=complaint][data-pending]")
        seen["reloaded"] = page.evaluate("window.__sameDocument !== true")
        seen["url"] = page.url
        return seen

    seen = browser(scenario)

    assert seen["same_document"] is True  # the live part changed in place, no reload over the note
    assert seen["typed"] == TYPED
    assert seen["reloaded"] is True  # sending it loaded the whole console, now drawing
    assert seen["url"] == console + "#acta-notes"
    game.refresh_from_db()
    assert game.state == GameState.DRAWING
    note = ActaNote.objects.get()
    assert (note.kind, note.text, note.game, note.recorded_by) == ("complaint", TYPED, game, hall.caller)
