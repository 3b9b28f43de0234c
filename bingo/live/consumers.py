"""Every websocket consumer: they authenticate, subscribe to a topic and relay (STYLE rule 3).

Each subscribes to its topic through ``bingo.live.fanout.TopicConsumerMixin``: the server
process listens to a topic once, however many of its websockets follow it, and relays each
message to them; a consumer that may have missed a message reads its state again
(``topic_resync``). None of them has a channel of its own (``channel_layer_alias = None``).

* ``PriceBoardConsumer`` (``ws/quadro/<game_id>/``): a game's price board (R29). Public, like
  the page on the hall's TV; it sends nothing back. The figures are read afresh from the
  database at connect and after each ``board.changed`` message, so a board that reconnects
  shows the current state. Messages are spaced out by the sellers (``BOARD_NOTICE_SECONDS`` in
  bingo.live.events), so after each one the board reads the figures once more a little later,
  and at most that often while sales go on.
* ``DisplayConsumer`` (``ws/ecra/<token>/``): a room's display (R13, R28). Public like the
  page, opened by the room's signed token. It gets the room's state at connect, so a display
  that reconnects shows the current one, then relays each state published on the room's topic
  as it comes: the state is built once per change by ``bingo.live.events.game_changed`` and
  encoded to JSON once per server process, so however many displays a hall has, a ball costs
  no query and no encoding per display.
  Sales and the jackpot change what it shows between balls (cards sold, prizes, the balance);
  for those it hears ``display.refresh``, a notice without the state (the sale must not pay
  for building it, see ``bingo.live.events``). The displays of one room in this server process
  then read the state once, together, ``DISPLAY_REFRESH_SECONDS`` after the notice, and once
  more after that while notices keep coming (``_RoomDisplays``): at most one read of a room
  per that many seconds per process, however many displays and sales, and the last change is
  never left off, since a read always follows the last notice by more than the sellers' spacing.
  A display that may have missed a state (``topic_resync``) reads it the same way.
* ``ConsoleConsumer`` (``ws/locutor/<game_id>/``): a caller's console. Only a caller of the
  game's hall may listen; it hears that the game changed and fetches its console again.

They only listen to the server: what a client sends is dropped unread (``ListeningConsumer``),
so no frame, JSON nested however deep, text that is not JSON or bytes, can end a consumer. The
origin of every websocket is checked against the allowed hosts before it gets here
(``bingo.asgi``).
"""

from __future__ import annotations

import asyncio
import json
import weakref
from typing import Any

from channels.auth import get_user
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils import translation

from bingo.common.roles import Role, user_roles
from bingo.draw import selectors as draw_selectors
from bingo.live.batches import Batched
from bingo.live.events import (
    BOARD_NOTICE_SECONDS,
    DISPLAY_NOTICE_SECONDS,
    game_console_topic,
    price_board_topic,
    room_display_topic,
)
from bingo.live.fanout import TopicConsumerMixin
from bingo.models import Game
from bingo.sales import selectors as sales_selectors
from halls.models import Room
from halls.selectors import staff_has_role

#: After a ``board.changed`` event the board reads the figures at once and again this much
#: later, which covers the sales whose notice a busy seller skipped.
BOARD_TRAILING_SECONDS = 0.25
assert BOARD_TRAILING_SECONDS > BOARD_NOTICE_SECONDS


class ListeningConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """A consumer that only listens to the server (every consumer of ours): each frame a client
    sends is dropped unread. Channels' JSON consumer would decode it first, and a frame that
    is not JSON, is nested too deeply to decode or is bytes would raise and end the consumer."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its ``close_old_connections`` before every event (the
        connect, each frame, the disconnect): a trip to the database thread each, which 5,000
        sockets connecting at once queued there. Our consumers touch the database only through
        ``database_sync_to_async``, which closes stale connections around each call itself."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        """Nothing a client sends is read."""


def _board_message(game_id: int) -> dict[str, Any] | None:
    figures = sales_selectors.game_board(game_id=game_id)
    return None if figures is None else figures.as_message()


#: The figures sent at connect: one read of a game's board for the boards connecting meanwhile.
_connect_boards: Batched[int, dict[str, Any] | None] = Batched(
    lambda game_ids: {game_id: _board_message(game_id) for game_id in game_ids}
)


class PriceBoardConsumer(TopicConsumerMixin, ListeningConsumer):
    """The live figures of one game's price board: sent at once, then after every sale."""

    channel_layer_alias = None
    game_id: int = 0
    last_sent: dict[str, Any] | None = None
    refresher: asyncio.Task[None] | None = None
    dirty = False

    async def connect(self) -> None:
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        # Subscribe before reading: a sale committed in between is then announced, not lost.
        await self.topic_subscribe(price_board_topic(game_id))
        message = await _connect_boards.ask(game_id)  # a read that starts after the subscription
        if message is None:  # no such game: nothing to watch
            await self.topics_unsubscribe()
            await self.close()
            return
        await self.accept()
        self.game_id = game_id
        await self._send(message)
        self.refresher = asyncio.create_task(self._refresh(at_once=False))

    async def disconnect(self, code: int) -> None:
        if self.refresher is not None:
            self.refresher.cancel()
        await self.topics_unsubscribe()

    def topic_relay(self, topic: str, message: dict[str, Any], text: str) -> bool:
        """The notice is not for the board's page: it reads the figures (``topic_message``)."""
        return False

    async def topic_message(self, topic: str, message: dict[str, Any], text: str) -> None:
        """``board.changed``: sales changed (bingo.live.events.price_board_changed)."""
        await self.board_changed()

    async def topic_resync(self, topic: str) -> None:
        """A notice may have been missed: read the figures again, as after one."""
        await self.board_changed()

    async def board_changed(self) -> None:
        """Sales changed: send the new figures."""
        if not self.game_id:  # still connecting: the read at connect covers it
            return
        self.dirty = True
        if self.refresher is None or self.refresher.done():
            self.refresher = asyncio.create_task(self._refresh(at_once=True))

    async def _refresh(self, *, at_once: bool) -> None:
        # Then every BOARD_TRAILING_SECONDS while events keep coming, and once after the last:
        # a sale whose notice its seller skipped is never left off the board. A board that
        # joined just after a notice it missed is covered by the read scheduled at connect.
        if at_once:
            await self._send(await database_sync_to_async(_board_message)(self.game_id))
        while True:
            self.dirty = False
            await asyncio.sleep(BOARD_TRAILING_SECONDS)
            await self._send(await database_sync_to_async(_board_message)(self.game_id))
            if not self.dirty:
                break

    async def _send(self, message: dict[str, Any] | None) -> None:
        if message is not None and message != self.last_sent:
            self.last_sent = message
            await self.send_json(message)


# --- the displays and the consoles of the draw ----------------------------------------------

#: After a ``display.refresh`` notice a room's displays read their state this much later, for
#: every notice that came meanwhile; longer than the sellers' spacing of their notices, so the
#: read comes after every sale whose notice was skipped.
DISPLAY_REFRESH_SECONDS = 0.75
assert DISPLAY_REFRESH_SECONDS > DISPLAY_NOTICE_SECONDS


def _display_state(room_id: int) -> dict[str, Any] | None:
    try:
        # The hall's TVs speak the hall's language (R54), as in bingo.live.events.game_changed:
        # this thread may have just served a request in another.
        with translation.override(settings.LANGUAGE_CODE):
            return draw_selectors.display_state(room_id=room_id)
    except Room.DoesNotExist:
        return None


class _RoomDisplays:
    """The displays of one room connected to this server process, and their shared re-read.

    Every display of the room hears each ``display.refresh`` notice (or resyncs); each one pokes
    this, and one read serves them all: 500 displays reading for themselves would queue 500 reads on the
    one thread Channels runs database work in, the thread of the caller's own requests.
    """

    def __init__(self, room_id: int) -> None:
        self.room_id = room_id
        self.displays: set[DisplayConsumer] = set()
        self.task: asyncio.Task[None] | None = None
        self.dirty = False

    @property
    def refreshing(self) -> bool:
        return self.task is not None and not self.task.done()

    def poke(self) -> None:
        """Something the displays show changed: read the state soon (once for many pokes)."""
        self.dirty = True
        if not self.refreshing:
            self.task = asyncio.create_task(self._refresh())

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def _refresh(self) -> None:
        # Read DISPLAY_REFRESH_SECONDS after the poke, then again as long as pokes keep coming,
        # and once after the last: a sale whose notice its seller skipped is never left off.
        while self.dirty:
            self.dirty = False
            await asyncio.sleep(DISPLAY_REFRESH_SECONDS)
            if not self.displays:
                return
            relayed = {display: display.relayed for display in self.displays}
            state = await database_sync_to_async(_display_state)(self.room_id)
            if state is None:  # the room is gone
                return
            text = json.dumps(state)  # once for the room's displays
            for display, seen in relayed.items():
                if display.relayed != seen:
                    # A state from the draw (a ball) reached it during the read: this read may
                    # be older than what it now shows. It reads again rather than go back.
                    self.dirty = True
                elif display in self.displays:
                    display.show(text, unless_shown=True)


#: The rooms whose displays this process serves, per event loop (each test runs its own).
_rooms: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, _RoomDisplays]] = (
    weakref.WeakKeyDictionary()
)


def _display_states(room_ids: list[int]) -> dict[int, tuple[dict[str, Any], str] | None]:
    """The state of each room, and its JSON, for the displays connecting meanwhile."""
    states = {room_id: _display_state(room_id) for room_id in room_ids}
    return {
        room_id: None if state is None else (state, json.dumps(state)) for room_id, state in states.items()
    }


#: The state sent at connect: one read of a room for the displays that connect at about the same
#: time (a hall's TVs switched on together, or all coming back after a restart).
_connect_states: Batched[int, tuple[dict[str, Any], str] | None] = Batched(_display_states)


def _room_displays(room_id: int) -> _RoomDisplays:
    rooms = _rooms.setdefault(asyncio.get_running_loop(), {})
    if room_id not in rooms:
        rooms[room_id] = _RoomDisplays(room_id)
    return rooms[room_id]


class DisplayConsumer(TopicConsumerMixin, ListeningConsumer):
    """A room's display: the state at connect, then every state the draw announces, and the
    state read again after sales, a jackpot movement or a missed message (R28)."""

    channel_layer_alias = None
    room: _RoomDisplays | None = None
    #: The last state sent, so a re-read that found nothing new sends nothing.
    #: (As JSON: a state that went through Redis has lists where a state read has tuples.)
    shown: str | None = None
    #: How many states from the draw it relayed (see _RoomDisplays._refresh).
    relayed = 0

    async def connect(self) -> None:
        room_id = draw_selectors.display_room_id(self.scope["url_route"]["kwargs"]["token"])
        if room_id is None:  # not one of our tokens: refused before the handshake completes
            await self.close()
            return
        # Subscribe before reading: a ball committed in between is then announced, not lost.
        # The read is shared with the displays of the room connecting meanwhile; it starts after
        # this display subscribed.
        await self.topic_subscribe(room_display_topic(room_id))
        read = await _connect_states.ask(room_id)
        if read is None:  # the room is gone
            await self.topics_unsubscribe()
            await self.close()
            return
        await self.accept()
        self.shown = read[1]
        await self.send(text_data=read[1])
        # Events wait while connect runs, so the first notice finds the display registered. A
        # sale whose notice went out just before the display joined, and the sales after it
        # whose notices were skipped, are covered by one more read, as after a notice.
        self.room = _room_displays(room_id)
        self.room.displays.add(self)
        self.room.poke()

    async def disconnect(self, code: int) -> None:
        if self.room is not None:
            self.room.displays.discard(self)
            if not self.room.displays:
                self.room.stop()
                _rooms.get(asyncio.get_running_loop(), {}).pop(self.room.room_id, None)
            self.room = None
        await self.topics_unsubscribe()

    def topic_relay(self, topic: str, message: dict[str, Any], text: str) -> bool:
        """The room's topic: a state from the draw (bingo.live.events.game_changed), relayed
        as it is (the frame written once for every display of this process), or a
        ``display.refresh`` notice after sales or the jackpot (the room's displays read their
        state), which is not sent."""
        if message.get("type") == "display.refresh":
            if self.room is not None:
                self.room.poke()
            return False
        if text == self.shown:  # e.g. published just before it connected, and read then
            return False
        self.relayed += 1
        if self.room is not None and self.room.refreshing:
            # A read in progress may have started before this state was built: read once more.
            self.room.dirty = True
        self.shown = text
        return True

    async def topic_message(self, topic: str, message: dict[str, Any], text: str) -> None:
        """What ``topic_relay`` kept back needs nothing more."""

    async def topic_resync(self, topic: str) -> None:
        """A state may have been missed: the room's displays read theirs (once for all)."""
        if self.room is not None:
            self.room.poke()

    def topic_dropped(self) -> None:
        """What waited for this display was dropped, the last state it meant to send perhaps:
        the read that follows is sent whatever it is."""
        self.shown = None

    def show(self, text: str, *, unless_shown: bool = False) -> None:
        """Send the state ``text`` (JSON) after what this display relayed so far; with
        ``unless_shown``, only if it differs from the last one sent (a re-read after a notice
        often finds nothing new for this display, e.g. another game's sale)."""
        if unless_shown and text == self.shown:
            return
        self.shown = text
        self.topic_send(text)


def _may_follow(user: AbstractBaseUser | AnonymousUser, game_id: int) -> bool:
    """Whether ``user`` is a caller of the hall where game ``game_id`` is played."""
    if not user.is_authenticated or Role.CALLER not in user_roles(user):
        return False
    hall_id = Game.objects.filter(pk=game_id).values_list("session__room__hall_id", flat=True).first()
    return hall_id is not None and staff_has_role(user=user, hall_id=hall_id, role=Role.CALLER)


class ConsoleConsumer(TopicConsumerMixin, ListeningConsumer):
    """A caller's console of one game: told each time the game changes, it reads its state anew."""

    channel_layer_alias = None
    game_id: int = 0

    async def connect(self) -> None:
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        # The user is read here, not by a middleware for every socket: the displays, the boards
        # and the players' screens need none (bingo.live.players reads its players together).
        user = await get_user(self.scope)
        if not await database_sync_to_async(_may_follow)(user, game_id):
            await self.close()
            return
        self.game_id = game_id
        await self.topic_subscribe(game_console_topic(game_id))
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.topics_unsubscribe()

    # topic_message: the default relays ``console.changed`` as it is.

    async def topic_resync(self, topic: str) -> None:
        """A notice may have been missed: the page fetches its console again all the same."""
        await self.send_json({"type": "console.changed", "game": self.game_id})
