"""The one module that sends websocket events (STYLE rule 4). Callers schedule these with
``transaction.on_commit`` so nothing is announced that the database may still roll back.

Everything goes out through ``publish(topic, message)``: the caller hands the message over and
returns at once, without waiting for Redis or for the screens; each server process gets one
message per topic and relays it to its own websockets (``bingo.live.fanout``, where the topics'
sequence numbers and the catching up after a missed message are explained). A feature with
screens of its own publishes on its own topics and subscribes its consumers with
``bingo.live.fanout.TopicConsumerMixin``.

Who hears what:

* a game's price boards (``price-board.<game>``): ``board.changed`` after sales, a notice to
  read the figures again (``price_board_changed``);
* a room's displays (``room-display.<room>``): the display state after a ball, a prize or a
  state change, built once here (``game_changed``); ``display.refresh`` after sales of one of
  the room's games or a movement of the hall's jackpot, a notice with no state
  (``price_board_changed``, ``hall_jackpot_changed``);
* the consoles following a game (``game-console.<game>``): ``console.changed``;
* the screens of an online game (``online-game.<game>``): the same state as the room's
  displays after each ball, prize or state change (``game_changed``).

Why sales and the jackpot only send a notice to the displays: the state is built by the one
who sends it, and a sale must not pay for it (at 500 sales a second that would cost more than
the sales). So a seller sends a bare notice, at most once in ``DISPLAY_NOTICE_SECONDS`` per
game, and the displays read the state themselves, a little later and once for all the displays
of a room in one server process (``bingo.live.consumers``). That late read also covers the sales
whose notice was skipped, so the last sale always reaches the displays.

The sales' notices are spaced twice: in each process (``_due``: a sale hands one over at most
once a window, without leaving its thread), then across all the processes (``publish_notice``:
the sending thread takes the topic's window in Redis, and drops the notice if another process
holds it). With 32 cashier processes that is 10 board notices a second in all, not 320.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.conf import settings
from django.utils import translation

from bingo.draw import selectors as draw_selectors
from bingo.live.fanout import publish, publish_notice
from bingo.models import Game
from halls.models import Room

#: A process tells a game's price boards about sales at most once in this many seconds. The
#: boards cover what falls in between: after each notice they read the figures once more,
#: ``bingo.live.consumers.BOARD_TRAILING_SECONDS`` later, which must be longer than this.
BOARD_NOTICE_SECONDS = 0.1

#: A process tells a room's displays about a game's sales at most once in this many seconds.
#: The displays read their state ``bingo.live.consumers.DISPLAY_REFRESH_SECONDS`` after a
#: notice, which must be longer than this, so that read covers the sales whose notice was skipped.
DISPLAY_NOTICE_SECONDS = 0.5

_clock = time.monotonic
_last_notice: dict[int, float] = {}
_last_display_notice: dict[int, float] = {}
_notice_lock = threading.Lock()
#: Each game's room, as a sale's display notice needs it (a game never moves): no query in
#: the sale's thread after the first.
_game_rooms: dict[int, int] = {}


def _due(last: dict[int, float], game_id: int, now: float, spacing: float) -> bool:
    """Whether a notice about ``game_id`` may go now, the last one being ``spacing`` ago or
    more; if so, ``now`` is recorded as the last."""
    with _notice_lock:
        if now - last.get(game_id, -spacing) < spacing:
            return False
        if len(last) > 1000:
            last.clear()
        last[game_id] = now
        return True


__all__ = ["publish", "publish_notice"]


def price_board_topic(game_id: int) -> str:
    """The topic of a game's price boards (R29)."""
    return f"price-board.{game_id}"


def room_display_topic(room_id: int) -> str:
    """The topic of a room's displays (the hall's TVs, R28)."""
    return f"room-display.{room_id}"


def game_console_topic(game_id: int) -> str:
    """The topic of the consoles following a game (callers)."""
    return f"game-console.{game_id}"


def online_game_topic(game_id: int) -> str:
    """The topic of the screens following a game online: the room's display state, as the
    hall's TVs get it, after each ball, prize or state change."""
    return f"online-game.{game_id}"


def _board_notice(game_id: int, now: float) -> None:
    if _due(_last_notice, game_id, now, BOARD_NOTICE_SECONDS):
        publish_notice(
            price_board_topic(game_id), {"type": "board.changed", "game": game_id}, every=BOARD_NOTICE_SECONDS
        )


def _room_of(game_id: int) -> int | None:
    """The room of ``game_id`` (None if there is no such game), read once per process."""
    room_id = _game_rooms.get(game_id)
    if room_id is None:
        room_id = Game.objects.filter(pk=game_id).values_list("session__room_id", flat=True).first()
        if room_id is not None:
            if len(_game_rooms) > 1000:
                _game_rooms.clear()
            _game_rooms[game_id] = room_id
    return room_id


def price_board_changed(game_id: int) -> None:
    """Sales of ``game_id`` changed: its price boards fetch the new figures, and the displays of
    its room their state (they show the cards sold and the prizes, R29).

    At 500 sales a second a notice per sale would cost more than the sale itself, so notices
    are spaced ``BOARD_NOTICE_SECONDS`` apart for the boards and ``DISPLAY_NOTICE_SECONDS``
    for the displays, in each process and then across all of them (``publish_notice``); their
    trailing reads pick up the sales whose notice was skipped. Nothing is built or read here
    (the game's room is read once per process): the sending is handed over, never waited for.
    """
    now = _clock()
    _board_notice(game_id, now)
    if not _due(_last_display_notice, game_id, now, DISPLAY_NOTICE_SECONDS):
        return
    room_id = _room_of(game_id)
    if room_id is not None:
        publish_notice(room_display_topic(room_id), {"type": "display.refresh"}, every=DISPLAY_NOTICE_SECONDS)


def hall_jackpot_changed(hall_id: int) -> None:
    """``hall_id``'s jackpot moved or was configured (R9-R13): the displays of each of its
    rooms read their state again (they show the balance, R13). Jackpot movements are few (a
    game's contribution, a win, a manager's seed or adjustment), so nothing is spaced out."""
    for room_id in Room.objects.filter(hall_id=hall_id).values_list("pk", flat=True):
        publish(room_display_topic(room_id), {"type": "display.refresh"})


def on_hall_jackpot_switched(*, hall_id: int, **_kwargs: object) -> None:
    """Receiver of ``halls.signals.hall_jackpot_switched`` (connected in bingo/apps.py): the
    displays show the jackpot only while it runs (R9, R13)."""
    hall_jackpot_changed(hall_id)


def online_game_message(game_id: int, display: dict[str, Any]) -> dict[str, Any]:
    """What the online screens of ``game_id`` are sent, in the shape the page reads, so each
    server process encodes it once for all its players (``bingo/live/players.py``): the game's
    state as the room's displays show it (balls, last ball, stage, prizes and winners), or, when
    the room's display shows another game (a session plays several), a notice to read the
    player's state (``/api/online/games/<id>/state/``)."""
    game = display.get("game")
    if game is not None and game.get("id") == game_id:
        return {"type": "game.state", "game": game}
    return {"type": "game.changed", "game": game_id}


def game_changed(game_id: int, room_id: int | None = None) -> None:
    """A ball, a prize or a state change in ``game_id`` committed: the room's displays and the
    game's online screens get the new state in the message itself (built once here, in the
    caller, however many screens there are), the consoles a notice to read theirs, the price
    boards a notice to read their figures. ``room_id``, the game's room, spares a query when
    the caller has it (a game never moves). The caller does not wait for the screens: the
    messages are handed over (``publish``) and go out from an event loop.
    """
    if room_id is None:
        room_id = Game.objects.filter(pk=game_id).values_list("session__room_id", flat=True).first()
    if room_id is None:
        return
    # The hall's TVs speak the hall's language, whatever the caller's screen is set to (R54).
    with translation.override(settings.LANGUAGE_CODE):
        state = draw_selectors.display_state(room_id=room_id)
    publish(room_display_topic(room_id), state)
    publish(online_game_topic(game_id), online_game_message(game_id, state))
    publish(game_console_topic(game_id), {"type": "console.changed", "game": game_id})
    # Not price_board_changed: the displays have just been given the state.
    _board_notice(game_id, _clock())
