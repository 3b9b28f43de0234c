"""The draw's websockets (bingo.live.consumers) through the whole ASGI app.

A display gets its room's state at connect and each new state after a ball commits; a bad
token is refused; a console listens only for a caller of the game's hall. The ball is drawn
in the test's thread, through ``sync_to_async``, inside the event loop the consumers run in,
so its ``on_commit`` broadcast goes through the real channel layer: channels_redis with
REDIS_URL set, the in-memory layer without. ``transactional_db``: the broadcast fires on commit.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore

from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.models import DrawMode, Game
from tests.autodraw.helpers import Clock
from tests.draw.test_views import Console
from tests.live.sockets import ORIGIN, Socket, connect_answer, run, send_hostile_frames

pytestmark = pytest.mark.django_db(transaction=True)


def _session_cookie(user: User) -> bytes:
    """A logged-in session for ``user``, as the browser's cookie header carries it."""
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.save()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}".encode()


@pytest.fixture
def hall() -> Console:
    return Console()


def display_path(hall: Console) -> str:
    return f"/ws/ecra/{draw_selectors.display_token(room=hall.room)}/"


# --- the display -----------------------------------------------------------------------------------


def test_a_display_gets_the_state_at_connect_and_each_ball_after_it_commits(hall: Console) -> None:
    game = hall.drawing(mode=DrawMode.ELECTRONIC)
    first = draw_services.game_draw_ball(game=game, user=hall.caller, position=1)

    def draw(position: int) -> int:
        return draw_services.game_draw_ball(game=game, user=hall.caller, position=position).number

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], int, dict[str, Any], bool]:
        display = Socket(display_path(hall))
        assert (await display.connect())["type"] == "websocket.accept"
        at_connect = await display.message()
        second = await sync_to_async(draw)(2)  # committed: the display hears of it
        after_ball = await display.message()
        await sync_to_async(draw)(2)  # the same press again: nothing new to announce
        await sync_to_async(draw)(3)
        after_third = await display.message()
        quiet = await display.nothing()
        await display.close()
        return at_connect, after_ball, second, after_third, quiet

    at_connect, after_ball, second, after_third, quiet = run(scenario)

    assert at_connect["type"] == "display"
    assert at_connect["room"] == hall.room.name
    assert at_connect["game"]["id"] == game.pk
    assert at_connect["game"]["balls"] == [first.number]
    assert at_connect["game"]["count"] == 1
    assert after_ball["game"]["balls"] == [first.number, second]
    assert after_ball["game"]["count"] == 2  # R13
    assert after_ball["game"]["last"] == second
    assert after_ball["game"]["last_label"] == str(second)
    assert after_third["game"]["count"] == 3
    assert quiet  # one message per ball: the repeated press announced nothing


def test_a_display_that_reconnects_shows_the_current_state(hall: Console) -> None:
    game = hall.drawing()

    async def scenario() -> dict[str, Any]:
        display = Socket(display_path(hall))
        await display.connect()
        await display.message()
        await display.close()
        await sync_to_async(hall.key)(game, 7, 8)  # drawn while the display was away
        again = Socket(display_path(hall))
        await again.connect()
        state = await again.message()
        await again.close()
        return state

    assert run(scenario)["game"]["balls"] == [7, 8]


def test_displays_connecting_together_share_the_read_of_their_rooms_state(
    hall: Console, monkeypatch: pytest.MonkeyPatch
) -> None:
    """30 displays of a room switched on at once: the state each gets at connect comes from one
    or two reads of the room (each read starts after the displays it serves subscribed), not
    one per display; every display gets the current state."""
    game = hall.drawing()
    hall.key(game, 7, 8)
    reads: list[int] = []
    build = draw_selectors.display_state

    def counted(*, room_id: int) -> dict[str, Any]:
        reads.append(room_id)
        return build(room_id=room_id)

    monkeypatch.setattr(draw_selectors, "display_state", counted)

    async def scenario() -> tuple[list[dict[str, Any]], int]:
        displays = [Socket(display_path(hall)) for _ in range(30)]
        answers = await asyncio.gather(*(display.connect() for display in displays))
        assert {answer["type"] for answer in answers} == {"websocket.accept"}
        states = [await display.message() for display in displays]
        at_connect = len(reads)  # before the read each connect schedules a moment later
        for display in displays:
            await display.close()
        return states, at_connect

    states, at_connect = run(scenario)

    assert [state["game"]["balls"] for state in states] == [[7, 8]] * 30
    assert 1 <= at_connect <= 2


def test_a_display_hears_only_its_own_room(hall: Console) -> None:
    other = Console(name="Sala Mindelo")
    game = other.drawing()

    async def scenario() -> bool:
        display = Socket(display_path(hall))
        await display.connect()
        await display.message()
        await sync_to_async(other.key)(game, 5)
        quiet = await display.nothing()
        await display.close()
        return quiet

    assert run(scenario)


def test_a_display_drops_what_a_client_sends_and_still_shows_the_next_ball(hall: Console) -> None:
    game = hall.drawing()

    async def scenario() -> dict[str, Any]:
        display = Socket(display_path(hall))
        await display.connect()
        await display.message()
        await send_hostile_frames(display.communicator)
        await sync_to_async(hall.key)(game, 9)
        state = await display.message()
        await display.close()
        return state

    assert run(scenario)["game"]["balls"] == [9]


@pytest.mark.parametrize("token", ["not-a-token", "1", "bad:token:here"])
def test_a_display_with_a_bad_token_is_refused(hall: Console, token: str) -> None:
    assert connect_answer(Socket(f"/ws/ecra/{token}/"))["type"] == "websocket.close"


def test_a_tampered_token_is_refused(hall: Console) -> None:
    token = draw_selectors.display_token(room=hall.room)

    assert connect_answer(Socket(f"/ws/ecra/{token[:-2]}xx/"))["type"] == "websocket.close"


def test_a_display_from_a_foreign_origin_is_refused(hall: Console) -> None:
    foreign = Socket(display_path(hall), origin="https://evil.example")
    assert connect_answer(foreign)["type"] == "websocket.close"


# --- the caller's console ---------------------------------------------------------------------------


def console_path(game: Game) -> str:
    return f"/ws/locutor/{game.pk}/"


def test_a_callers_console_hears_that_the_game_changed(hall: Console) -> None:
    game = hall.drawing(mode=DrawMode.ELECTRONIC)
    cookie = _session_cookie(hall.caller)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        console = Socket(console_path(game), cookie=cookie)
        assert (await console.connect())["type"] == "websocket.accept"
        await sync_to_async(draw_services.game_draw_ball)(game=game, user=hall.caller, position=1)
        after_ball = await console.message()
        await sync_to_async(draw_services.game_switch_to_manual)(game=game, user=hall.caller, reason="jam")
        after_switch = await console.message()
        await console.close()
        return after_ball, after_switch

    after_ball, after_switch = run(scenario)

    assert after_ball == {"type": "console.changed", "game": game.pk}
    assert after_switch == {"type": "console.changed", "game": game.pk}


def test_a_console_drops_what_a_client_sends_and_still_hears_the_next_ball(hall: Console) -> None:
    game = hall.drawing()
    cookie = _session_cookie(hall.caller)

    async def scenario() -> dict[str, Any]:
        console = Socket(console_path(game), cookie=cookie)
        assert (await console.connect())["type"] == "websocket.accept"
        await send_hostile_frames(console.communicator)
        await sync_to_async(hall.key)(game, 9)
        notice = await console.message()
        await console.close()
        return notice

    assert run(scenario) == {"type": "console.changed", "game": game.pk}


def test_a_console_refuses_anyone_but_a_caller_of_the_games_hall(hall: Console) -> None:
    game = hall.drawing()
    other = Console(name="Sala Mindelo")
    refused = [None, _session_cookie(hall.cashier), _session_cookie(other.caller)]

    async def scenario() -> list[str]:
        answers = []
        for cookie in refused:
            console = Socket(console_path(game), cookie=cookie)
            answers.append((await console.connect())["type"])
            await console.close()
        return answers

    assert run(scenario) == ["websocket.close"] * len(refused)


def test_a_console_of_no_game_or_from_a_foreign_origin_is_refused(hall: Console) -> None:
    game = hall.drawing()
    cookie = _session_cookie(hall.caller)

    async def scenario() -> list[str]:
        answers = []
        for path, origin in ((console_path(game), "https://evil.example"), ("/ws/locutor/999999/", ORIGIN)):
            console = Socket(path, cookie=cookie, origin=origin)
            answers.append((await console.connect())["type"])
            await console.close()
        return answers

    assert run(scenario) == ["websocket.close", "websocket.close"]


def test_a_display_is_told_live_when_the_last_game_comes(hall: Console, clock: Clock) -> None:  # R53
    """30 minutes before the session's scheduled end the display's state says nothing; 5 minutes
    before, the next state pushed to it (after a ball) says this is the last game."""
    game = hall.drawing(mode=DrawMode.ELECTRONIC)
    end = hall.session.scheduled_end
    clock.to(end - timedelta(minutes=30))

    def draw_at(minutes_left: int, position: int) -> None:
        clock.to(end - timedelta(minutes=minutes_left))
        draw_services.game_draw_ball(game=game, user=hall.caller, position=position)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        display = Socket(display_path(hall))
        await display.connect()
        at_connect = await display.message()
        await sync_to_async(draw_at)(5, 1)
        after_ball = await display.message()
        await display.close()
        return at_connect, after_ball

    at_connect, after_ball = run(scenario)

    assert at_connect["last_game"] is False
    assert at_connect["last_game_from"] == (end - timedelta(minutes=10)).isoformat()
    assert (after_ball["game"]["count"], after_ball["last_game"]) == (1, True)
