"""The one module that sends websocket events (STYLE rule 4). Callers schedule these with
``transaction.on_commit`` so nothing is announced that the database may still roll back."""

from __future__ import annotations

import threading
import time

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import translation

#: A process tells a game's price boards about sales at most once in this many seconds. The
#: boards cover what falls in between: after each notice they read the figures once more,
#: ``bingo.consumers.BOARD_TRAILING_SECONDS`` later, which must be longer than this.
BOARD_NOTICE_SECONDS = 0.1

_clock = time.monotonic
_last_notice: dict[int, float] = {}
_notice_lock = threading.Lock()


def price_board_group(game_id: int) -> str:
    """The channel-layer group of a game's price board (R29)."""
    return f"price-board.{game_id}"


def price_board_changed(game_id: int) -> None:
    """Tell the price boards of ``game_id`` that sales changed: they fetch the new figures.

    At 500 sales a second a notice per sale would cost more than the sale itself, so notices
    from one process are spaced ``BOARD_NOTICE_SECONDS`` apart; the boards' trailing read picks
    up the sales whose notice was skipped.
    """
    now = _clock()
    with _notice_lock:
        if now - _last_notice.get(game_id, -BOARD_NOTICE_SECONDS) < BOARD_NOTICE_SECONDS:
            return
        if len(_last_notice) > 1000:
            _last_notice.clear()
        _last_notice[game_id] = now
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(
            price_board_group(game_id), {"type": "board.changed", "game": game_id}
        )


def room_display_group(room_id: int) -> str:
    """The channel-layer group of a room's displays (the hall's TVs, R28)."""
    return f"room-display.{room_id}"


def game_console_group(game_id: int) -> str:
    """The channel-layer group of the consoles following a game (callers)."""
    return f"game-console.{game_id}"


def game_changed(game_id: int) -> None:
    """A ball, a prize or a state change in ``game_id`` committed: the room's displays get the
    new state in the event itself (built once here, however many displays there are), the
    consoles a notice to read theirs."""
    from bingo import draw_selectors
    from bingo.models import Game

    room_id = Game.objects.filter(pk=game_id).values_list("session__room_id", flat=True).first()
    layer = get_channel_layer()
    if layer is None or room_id is None:
        return
    # The hall's TVs speak the hall's language, whatever the caller's screen is set to (R54).
    with translation.override(settings.LANGUAGE_CODE):
        state = draw_selectors.display_state(room_id=room_id)
    async_to_sync(layer.group_send)(room_display_group(room_id), {"type": "display.state", "state": state})
    async_to_sync(layer.group_send)(game_console_group(game_id), {"type": "console.changed", "game": game_id})
    price_board_changed(game_id)
