"""The online player's game screen over a websocket (``ws/online/game/<game_id>/``, R94-R97).

Only a player of the game's operator may listen (a logged-in user with the player role whose
``Player.hall`` is the game's hall, the game in one of its online rooms); the origin is checked
before it gets here (``bingo.asgi``), like every websocket. The consumer decides nothing and
reads nothing per ball: it joins two groups the draw already sends to
(``bingo.live.events.game_changed``) and relays:

* ``{"type": "game.state", "game": {...}}``: the room display's state of this game after a
  ball, a prize or a change of stage (``display.state``, built once for every listener): the
  balls, the last one, the stage, the prizes and their winners. The page marks the cards and
  finds "one to go" itself from them (R95).
* ``{"type": "game.changed", "game": <id>}``: the game changed but the room's display was
  showing another game (a session-mode room plays several), so the page reads the player's
  state again (``/api/online/games/<id>/state/``).

Everything else (sales notices) is dropped. On connect and reconnect the page reads the
player's state, so a gap never leaves a wrong board.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from bingo.common.roles import Role, user_roles
from bingo.live.events import game_console_group, room_display_group
from bingo.models import Game, Player


def player_room_of(user: AbstractBaseUser | AnonymousUser, game_id: int) -> int | None:
    """The room of online game ``game_id`` when ``user`` is a player of its operator; else None."""
    if not user.is_authenticated or Role.PLAYER not in user_roles(user):
        return None
    hall_id = Player.objects.filter(user_id=user.pk).values_list("hall_id", flat=True).first()
    if hall_id is None:
        return None
    room_id: int | None = (
        Game.objects.filter(pk=game_id, session__room__hall_id=hall_id, session__room__online__isnull=False)
        .values_list("session__room_id", flat=True)
        .first()
    )
    return room_id


class PlayerGameConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """One player's game screen: the game's state after each ball, or a notice to read it."""

    groups_joined: tuple[str, ...] = ()
    game_id = 0
    #: Whether the last event relayed was this game's state (then its console notice is covered).
    covered = False

    async def connect(self) -> None:
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        room_id = await database_sync_to_async(player_room_of)(
            self.scope.get("user", AnonymousUser()), game_id
        )
        if room_id is None:
            await self.close()
            return
        self.game_id = game_id
        self.groups_joined = (room_display_group(room_id), game_console_group(game_id))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The page only listens; buying and marking are requests through the services."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Like the displays: relaying reads no database, so it skips Channels' per-handler
        # close of stale connections on the one sync thread.
        kind = message.get("type")
        if kind == "display.state":
            game = (message.get("state") or {}).get("game")
            if game is not None and game.get("id") == self.game_id:
                self.covered = True
                await self.send_json({"type": "game.state", "game": game})
            else:
                self.covered = False
        elif kind == "console.changed":
            if not self.covered:
                await self.send_json({"type": "game.changed", "game": self.game_id})
            self.covered = False
        elif kind == "display.refresh":
            return  # sales and the jackpot: the page reads them with its state
        else:
            await super().dispatch(message)
