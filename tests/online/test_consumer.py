"""The player's websocket (bingo.live.players, ws/online/game/<id>/): a player of the game's
operator hears each ball with the game's state; anyone else is refused; a wrong origin too."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async

from tests.live.sockets import Socket, run, send_hostile_frames
from tests.live.test_consumers import _session_cookie
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_hears_each_ball_of_the_game():
    site = OnlineSetup()
    game = site.game(site.series(1))
    player = site.player()
    game = site.drawing(game)
    cookie = _session_cookie(player.user)

    async def scenario() -> None:
        socket = Socket(f"/ws/online/game/{game.pk}/", cookie=cookie)
        assert (await socket.connect())["type"] == "websocket.accept"
        await sync_to_async(site.key)(game, 7)
        message = await socket.message()
        assert message["type"] == "game.state"
        assert message["game"]["id"] == game.pk
        assert message["game"]["balls"] == [7]
        assert message["game"]["last"] == 7
        assert await socket.nothing()  # the console's notice of the same ball is covered
        await sync_to_async(site.key)(game, 12)
        assert (await socket.message())["game"]["balls"] == [7, 12]
        await socket.close()

    run(scenario)


def test_what_the_page_sends_is_dropped_and_the_next_ball_still_comes():
    """JSON nested 5,000 deep, text that is not JSON, bytes: dropped unread (issue 20, 3)."""
    site = OnlineSetup()
    game = site.drawing(site.game(site.series(1)))
    cookie = _session_cookie(site.player().user)

    async def scenario() -> None:
        socket = Socket(f"/ws/online/game/{game.pk}/", cookie=cookie)
        assert (await socket.connect())["type"] == "websocket.accept"
        await send_hostile_frames(socket.communicator)
        await sync_to_async(site.key)(game, 7)
        assert (await socket.message())["game"]["balls"] == [7]
        await socket.close()

    run(scenario)


def test_others_are_refused():
    site = OnlineSetup()
    game = site.game(site.series(1))
    stranger = OnlineSetup(name="Outro").player()
    cookies = [_session_cookie(stranger.user), _session_cookie(site.cashier), None]

    async def scenario() -> None:
        for cookie in cookies:
            socket = Socket(f"/ws/online/game/{game.pk}/", cookie=cookie)
            assert (await socket.connect())["type"] == "websocket.close"
        player = await sync_to_async(site.player)()
        cookie = await sync_to_async(_session_cookie)(player.user)
        socket = Socket(f"/ws/online/game/{game.pk}/", cookie=cookie, origin="http://evil.example")
        assert (await socket.connect())["type"] == "websocket.close"

    run(scenario)


def test_the_online_message_is_the_game_s_state_or_a_notice_to_read_it():
    """What bingo.live.events.game_changed publishes on the game's online topic, encoded once per
    server process for all its players: the state when the room's display shows this game,
    else (a session playing several) a notice to read the player's state."""
    from bingo.live.events import online_game_message

    shown = {"type": "display", "game": {"id": 5, "balls": [7]}}
    assert online_game_message(5, shown) == {"type": "game.state", "game": {"id": 5, "balls": [7]}}
    assert online_game_message(6, shown) == {"type": "game.changed", "game": 6}
    assert online_game_message(6, {"type": "display", "game": None}) == {"type": "game.changed", "game": 6}


def _connect_all(path: str, cookies: list[bytes | None]) -> tuple[list[str], int]:
    """Open a socket to ``path`` with each cookie at once: the answers, and the queries made."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    async def scenario() -> list[str]:
        sockets = [Socket(path, cookie=cookie) for cookie in cookies]
        answers = await asyncio.gather(*(socket.connect() for socket in sockets))
        for socket in sockets:
            await socket.close()
        return [answer["type"] for answer in answers]

    # The consumers' database work runs in this thread (async_to_sync from it), on its connection.
    with CaptureQueriesContext(connection) as queries:
        answers = run(scenario)
    return answers, len(queries)


def test_players_connecting_together_are_let_in_by_a_few_queries_however_many():
    """Their sessions, users and the game are read together (bingo.live.players.player_rooms):
    40 players cost what 10 do, a handful of queries, where each used to cost five of its own;
    a stranger among them is still refused."""
    site = OnlineSetup()
    game = site.drawing(site.game(site.series(1)))
    stranger = _session_cookie(OnlineSetup(name="Outro").player().user)
    few = [_session_cookie(site.player().user) for _ in range(10)]
    many = [_session_cookie(site.player().user) for _ in range(40)]
    path = f"/ws/online/game/{game.pk}/"

    answers_few, queries_few = _connect_all(path, [*few, stranger])
    answers_many, queries_many = _connect_all(path, [*many, stranger])

    assert answers_few == ["websocket.accept"] * 10 + ["websocket.close"]
    assert answers_many == ["websocket.accept"] * 40 + ["websocket.close"]
    assert queries_few <= 9  # three rounds at most of three queries (sessions, users, games)
    assert queries_many <= 9  # the same, not one query per player


def test_a_session_that_no_longer_lets_its_player_in_is_refused():
    """As Channels' AuthMiddleware refused them one by one: a session logged out (deleted),
    expired, of a user made inactive, or whose password changed since (the session's hash);
    a session of a player without the player role, or with a forged user id."""
    from datetime import timedelta

    from django.contrib.auth import SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    site = OnlineSetup()
    game = site.drawing(site.game(site.series(1)))
    path = f"/ws/online/game/{game.pk}/"
    valid = _session_cookie(site.player().user)
    logged_out = _session_cookie(site.player().user)
    Session.objects.filter(session_key=logged_out.decode().split("=")[1]).delete()
    expired = _session_cookie(site.player().user)
    Session.objects.filter(session_key=expired.decode().split("=")[1]).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    inactive_player = site.player()
    inactive = _session_cookie(inactive_player.user)
    inactive_player.user.is_active = False
    inactive_player.user.save()
    changed_player = site.player()
    changed = _session_cookie(changed_player.user)
    changed_player.user.set_password("another one, quite long")
    changed_player.user.save()
    roleless_player = site.player()
    roleless = _session_cookie(roleless_player.user)
    roleless_player.user.groups.clear()
    forged = _session_cookie(site.player().user)
    store = SessionStore(session_key=forged.decode().split("=")[1])
    store[SESSION_KEY] = "not a number"
    store.save()

    answers, _ = _connect_all(path, [valid, logged_out, expired, inactive, changed, roleless, forged])

    assert answers == ["websocket.accept"] + ["websocket.close"] * 6
