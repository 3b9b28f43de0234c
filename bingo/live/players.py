"""The online player's game screen over a websocket (``ws/online/game/<game_id>/``, R94-R97).

Only a player of the game's operator may listen (a logged-in user with the player role whose
``Player.hall`` is the game's hall, the game in one of its online rooms); the origin is checked
before it gets here (``bingo.asgi``), like every websocket. The consumer decides nothing and
reads nothing per ball: it follows the game's online topic (``online-game.<id>``, published by
``bingo.live.events.game_changed`` after every ball, prize and change of stage) and sends each
message as it comes, encoded once per server process for all its players (docs/live.md):

* ``{"type": "game.state", "game": {...}}``: the game's state as the room's displays show it:
  the balls, the last one, the stage, the prizes and their winners. The page marks the cards
  and finds "one to go" itself from them (R95).
* ``{"type": "game.changed", "game": <id>}``: the game changed but the room's display shows
  another game (a session-mode room plays several), or a message may have been missed (a
  sequence number skipped): the page reads the player's state again
  (``/api/online/games/<id>/state/``).

On connect and reconnect the page reads the player's state, so a gap never leaves a wrong board.
The page only listens: buying and marking are requests through the services, and whatever it
sends on the websocket is dropped unread (``bingo.live.consumers.ListeningConsumer``).
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from bingo.common.roles import Role, user_roles
from bingo.live.consumers import ListeningConsumer
from bingo.live.events import online_game_topic
from bingo.live.fanout import TopicConsumerMixin
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


class PlayerGameConsumer(TopicConsumerMixin, ListeningConsumer):
    """One player's game screen: the game's state after each ball, or a notice to read it."""

    channel_layer_alias = None
    game_id = 0

    async def connect(self) -> None:
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        room_id = await database_sync_to_async(player_room_of)(
            self.scope.get("user", AnonymousUser()), game_id
        )
        if room_id is None:
            await self.close()
            return
        self.game_id = game_id
        # Subscribed before the page reads its state: a ball committed in between is relayed.
        await self.topic_subscribe(online_game_topic(game_id))
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.topics_unsubscribe()

    async def topic_resync(self, topic: str) -> None:
        """A message may have been missed: the page reads the player's state again."""
        await self.send_json({"type": "game.changed", "game": self.game_id})
