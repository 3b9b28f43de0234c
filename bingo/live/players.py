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

Connecting costs no query of its own: the players who connect at about the same time (a hall's
evening, a server restarted and every screen coming back) are let in by one read of their
sessions, users and games together (``player_rooms``, a ``bingo.live.batches.Batched`` round:
three queries at most, whatever the number), with the same checks Channels' ``AuthMiddleware``
made one socket at a time (the session unexpired, its backend, the user active, the session's
hash of the password). A game's room and operator never change: each process reads them once.

On connect and reconnect the page reads the player's state, so a gap never leaves a wrong board.
The page only listens: buying and marking are requests through the services, and whatever it
sends on the websocket is dropped unread (``bingo.live.consumers.ListeningConsumer``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
)
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends import db as db_sessions
from django.core.exceptions import ValidationError
from django.db.models import Exists, F, OuterRef
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from bingo.common.roles import Role
from bingo.live.batches import Batched
from bingo.live.consumers import ListeningConsumer
from bingo.live.events import online_game_topic
from bingo.live.fanout import TopicConsumerMixin
from bingo.models import Game

#: Online game -> (its room, its operator): fixed once the game exists, so read once per process.
_online_games: dict[int, tuple[int, int]] = {}
_ONLINE_GAMES_KEPT = 10_000


def _online_game_places(game_ids: set[int]) -> dict[int, tuple[int, int]]:
    unknown = game_ids - _online_games.keys()
    if unknown:
        if len(_online_games) > _ONLINE_GAMES_KEPT:
            _online_games.clear()
        rows = Game.objects.filter(pk__in=unknown, session__room__online__isnull=False).values_list(
            "pk", "session__room_id", "session__room__hall_id"
        )
        _online_games.update((pk, (room, hall)) for pk, room, hall in rows)
    return {pk: _online_games[pk] for pk in game_ids if pk in _online_games}


def _sessions(keys: set[str]) -> dict[str, dict[str, Any]]:
    """The data of each unexpired session of ``keys`` (one query with a database engine)."""
    engine = import_module(settings.SESSION_ENGINE)
    store = engine.SessionStore
    if not issubclass(store, db_sessions.SessionStore):
        return {key: dict(store(key).load()) for key in keys}  # each engine reads its own way
    # Django's database sessions, or a store built on them (bingo.common.sessions): one query.
    rows = store.get_model_class().objects.filter(session_key__in=keys, expire_date__gt=timezone.now())
    decoder = store()
    return {row.session_key: decoder.decode(row.session_data) for row in rows}


def _session_user(session: dict[str, Any], users: dict[Any, Any]) -> Any:
    """The user logged in in ``session`` as ``channels.auth.get_user`` finds them, from
    ``users`` (read together) when their backend is the model backend; else None."""
    model = get_user_model()
    try:
        user_id = model._meta.pk.to_python(session[SESSION_KEY])
        backend_path = session[BACKEND_SESSION_KEY]
    except (KeyError, ValueError, ValidationError):
        return None
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return None
    backend = load_backend(backend_path)
    # Django's ModelBackend, or one that reads the same user with more (bingo/players/backends.py,
    # ``reads_as_model_backend``): the batch's read stands for it.
    if isinstance(backend, ModelBackend) and (
        type(backend).get_user is ModelBackend.get_user or getattr(backend, "reads_as_model_backend", False)
    ):
        user = users.get(user_id)
        user = user if user is not None and backend.user_can_authenticate(user) else None
    else:
        user = backend.get_user(user_id)
    if user is None:
        return None
    if hasattr(user, "get_session_auth_hash"):
        session_hash = session.get(HASH_SESSION_KEY)
        if not (session_hash and constant_time_compare(session_hash, user.get_session_auth_hash())):
            return None
    return user


def player_rooms(asks: list[tuple[str, int]]) -> dict[tuple[str, int], int | None]:
    """For each (session key, game id): the game's room when the session's user is a player of
    the game's operator and the game is in one of its online rooms; else None. Three queries at
    most (the sessions, their users with their player role and operator, the games not read
    before), however many asks."""
    sessions = _sessions({key for key, _ in asks if key})
    model = get_user_model()
    ids = set()
    for session in sessions.values():
        try:
            ids.add(model._meta.pk.to_python(session[SESSION_KEY]))
        except (KeyError, ValueError, ValidationError):
            continue
    players = model.groups.through.objects.filter(user_id=OuterRef("pk"), group__name=Role.PLAYER.value)
    users: dict[Any, Any] = {}
    if ids:
        found = model._default_manager.filter(pk__in=ids)
        users = {
            user.pk: user
            for user in found.annotate(is_player=Exists(players), player_hall=F("player__hall_id"))
        }
    games = _online_game_places({game for _, game in asks})
    answers: dict[tuple[str, int], int | None] = {}
    for key, game_id in asks:
        data = sessions.get(key)
        user = _session_user(data, users) if data is not None else None
        # Their role and operator, read with the users (another backend's user too).
        read = users.get(user.pk) if user is not None else None
        place = games.get(game_id)
        player_hall = read.player_hall if read is not None and read.is_player else None
        answers[(key, game_id)] = (
            place[0] if place and player_hall is not None and place[1] == player_hall else None
        )
    return answers


_player_rooms: Batched[tuple[str, int], int | None] = Batched(player_rooms)


class PlayerGameConsumer(TopicConsumerMixin, ListeningConsumer):
    """One player's game screen: the game's state after each ball, or a notice to read it."""

    channel_layer_alias = None
    game_id = 0

    async def connect(self) -> None:
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        session_key = self.scope.get("cookies", {}).get(settings.SESSION_COOKIE_NAME, "")
        room_id = await _player_rooms.ask((session_key, game_id)) if session_key else None
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
