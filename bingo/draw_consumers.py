"""Websocket consumers of the draw: they authenticate, join a group and relay (STYLE rule 3).

* ``DisplayConsumer`` (``ws/ecra/<token>/``): a room's display (R13, R28). Public like the
  page, opened by the room's signed token. It gets the room's state at connect, so a display
  that reconnects shows the current one, then relays each ``display.state`` event as it comes:
  the state is built once per change by ``bingo.realtime.game_changed``, so however many
  displays a hall has, a ball costs no query per display.
* ``ConsoleConsumer`` (``ws/locutor/<game_id>/``): a caller's console. Only a caller of the
  game's hall may listen; it hears that the game changed and fetches its console again.

Both only listen to the server: what a client sends is ignored. The origin of every websocket
is checked against the allowed hosts before it gets here (``bingo.asgi``).
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from bingo import draw_selectors
from bingo.models import Game
from bingo.realtime import game_console_group, room_display_group
from bingo.roles import Role, user_roles
from bingo.services import staff_has_role
from halls.models import Room


def _display_state(room_id: int) -> dict[str, Any] | None:
    try:
        return draw_selectors.display_state(room_id=room_id)
    except Room.DoesNotExist:
        return None


class DisplayConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """A room's display: the state at connect, then every state the draw announces."""

    group: str | None = None

    async def connect(self) -> None:
        room_id = draw_selectors.display_room_id(self.scope["url_route"]["kwargs"]["token"])
        if room_id is None:  # not one of our tokens: refused before the handshake completes
            await self.close()
            return
        # Join before reading: a ball committed in between is then announced, not lost.
        group = room_display_group(room_id)
        await self.channel_layer.group_add(group, self.channel_name)
        self.group = group
        state = await database_sync_to_async(_display_state)(room_id)
        if state is None:  # the room is gone
            await self.close()
            return
        await self.accept()
        await self.send_json(state)

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The display only listens."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels closes stale database connections before every handler, through the one
        # thread-sensitive sync thread: 500 displays would queue there for each ball, behind
        # the caller's own request. Relaying a state reads no database, so it goes straight on.
        if message["type"] == "display.state":
            await self.display_state(message)
        else:
            await super().dispatch(message)

    async def display_state(self, event: dict[str, Any]) -> None:
        """A ball, a prize or a state change committed (bingo.realtime.game_changed): relay it."""
        await self.send_json(event["state"])


def _may_follow(user: AbstractBaseUser | AnonymousUser, game_id: int) -> bool:
    """Whether ``user`` is a caller of the hall where game ``game_id`` is played."""
    if not user.is_authenticated or Role.CALLER not in user_roles(user):
        return False
    hall_id = Game.objects.filter(pk=game_id).values_list("session__room__hall_id", flat=True).first()
    return hall_id is not None and staff_has_role(user=user, hall_id=hall_id, role=Role.CALLER)  # type: ignore[arg-type]


class ConsoleConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """A caller's console of one game: told each time the game changes, it reads its state anew."""

    group: str | None = None

    async def connect(self) -> None:
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        if not await database_sync_to_async(_may_follow)(self.scope.get("user", AnonymousUser()), game_id):
            await self.close()
            return
        group = game_console_group(game_id)
        await self.channel_layer.group_add(group, self.channel_name)
        self.group = group
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The console only listens; its actions are POSTs through the services."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        # As for the displays: the notice reads no database (see DisplayConsumer.dispatch).
        if message["type"] == "console.changed":
            await self.console_changed(message)
        else:
            await super().dispatch(message)

    async def console_changed(self, event: dict[str, Any]) -> None:
        """The game changed: the page fetches its console again."""
        await self.send_json({"type": "console.changed", "game": event.get("game")})
