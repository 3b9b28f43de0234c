"""The player's websocket (bingo.live.players, ws/online/game/<id>/): a player of the game's
operator hears each ball with the game's state; anyone else is refused; a wrong origin too."""

from __future__ import annotations

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
