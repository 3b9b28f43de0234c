"""A room's display between balls: sales and jackpot movements reach it without a ball drawn.

Sellers send the displays a bare ``display.refresh`` notice (bingo.live.events), at most once in
``DISPLAY_NOTICE_SECONDS`` per game; the displays of a room read their state once, together,
``DISPLAY_REFRESH_SECONDS`` after it, and again while notices keep coming (bingo.live.consumers).
Through the whole ASGI app and the real channel layer, as in tests/live/test_consumers.py.
"""

from __future__ import annotations

import asyncio
import time
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from bingo.draw import selectors as draw_selectors
from bingo.jackpot import services as jackpot_services
from bingo.live import consumers, events
from bingo.models import Game
from halls.models import Hall, Room
from tests.draw.test_views import Console
from tests.live.sockets import Socket, run
from tests.live.test_consumers import display_path

pytestmark = pytest.mark.django_db(transaction=True)

#: Long enough for the reads that follow a notice to be done: one DISPLAY_REFRESH_SECONDS after
#: it, and one more when another notice (or display) came while the first was waiting.
SETTLE = 2 * consumers.DISPLAY_REFRESH_SECONDS + 0.3


@pytest.fixture
def hall() -> Console:
    return Console()


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rooms whose display state was built, one entry per build, wherever it was built."""
    built: list[int] = []
    real = draw_selectors.display_state

    def counted(*, room_id: int) -> dict[str, Any]:
        built.append(room_id)
        return real(room_id=room_id)

    monkeypatch.setattr(draw_selectors, "display_state", counted)
    return built


async def until(display: Socket, check: Any, timeout: float = 5) -> list[dict[str, Any]]:
    """The messages ``display`` gets until one satisfies ``check``; fails after ``timeout``."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while not seen or not check(seen[-1]):
        assert time.monotonic() < deadline, seen
        seen.append(await display.message())
    return seen


def sold(state: dict[str, Any]) -> int:
    return int(state["game"]["cards_sold"])


# --- sales -----------------------------------------------------------------------------------------


def test_a_display_shows_a_sale_with_no_ball_drawn(hall: Console) -> None:
    game = hall.game(hall.series(1))

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        display = Socket(display_path(hall))
        assert (await display.connect())["type"] == "websocket.accept"
        at_connect = await display.message()
        await asyncio.sleep(SETTLE)  # the read each connect schedules is done
        await sync_to_async(hall.sell)(game, 3)
        after = (await until(display, lambda state: sold(state) == 3))[-1]
        await display.close()
        return at_connect, after

    at_connect, after = run(scenario)

    assert at_connect["game"]["id"] == game.pk
    assert sold(at_connect) == 0
    assert after["game"]["id"] == game.pk
    assert after["game"]["balls"] == []  # no ball: the sale alone brought it
    assert after["game"]["total_display"] == "300 CVE"
    assert [p["display"] for p in after["game"]["prizes"]] == ["60 CVE", "180 CVE"]


def test_a_sale_whose_notice_was_skipped_still_reaches_the_display(hall: Console) -> None:
    """As if this process had just told the displays of another sale: this one's notice is
    skipped, and the read the display makes after connecting picks it up."""
    game = hall.game(hall.series(1))

    async def scenario() -> dict[str, Any]:
        display = Socket(display_path(hall))
        await display.connect()
        await display.message()
        events._last_display_notice[game.pk] = time.monotonic()
        await sync_to_async(hall.sell)(game, 4)
        last = (await until(display, lambda state: sold(state) == 4))[-1]
        await display.close()
        return last

    assert sold(run(scenario)) == 4


def test_a_burst_of_sales_costs_few_reads_and_the_last_sale_shows(hall: Console, builds: list[int]) -> None:
    game = hall.game(hall.series(1))
    sales = 40

    async def scenario() -> tuple[list[dict[str, Any]], float, int, bool]:
        displays = [Socket(display_path(hall)) for _ in range(3)]
        for display in displays:
            await display.connect()
            await display.message()
        await asyncio.sleep(SETTLE)  # the read each connect schedules is done
        before = len(builds)
        started = time.monotonic()
        for _ in range(sales):  # 2 cards each: 80 cards, one at a time as the desks sell
            await sync_to_async(hall.sell)(game, 2)
            await asyncio.sleep(0.03)
        lasted = time.monotonic() - started
        seen = await until(displays[0], lambda state: sold(state) == 2 * sales)
        for other in displays[1:]:
            await until(other, lambda state: sold(state) == 2 * sales)
        quiet = await displays[0].nothing() and await displays[0].nothing()
        await asyncio.sleep(SETTLE)
        for display in displays:
            await display.close()
        return seen, lasted, len(builds) - before, quiet

    seen, lasted, reads, quiet = run(scenario)

    assert sold(seen[-1]) == 2 * sales  # the last sale is never left off
    assert [sold(s) for s in seen] == sorted(sold(s) for s in seen)  # never back
    # One read for the 3 displays per DISPLAY_REFRESH_SECONDS while sales go on, and one after.
    assert reads <= lasted / consumers.DISPLAY_REFRESH_SECONDS + 2, (reads, lasted)
    assert reads < sales
    assert quiet  # nothing more once the last state is shown


def test_a_sale_builds_no_display_state_and_notices_are_spaced_out(
    hall: Console, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = hall.game(hall.series(1))
    # Opening the sales told the displays and boards already, on the real clock: start afresh.
    events._last_notice.clear()
    events._last_display_notice.clear()
    sent: list[tuple[str, dict[str, Any]]] = []

    def published(topic: str, message: dict[str, Any]) -> None:
        sent.append((topic, message))

    def refused(**kwargs: Any) -> dict[str, Any]:
        raise AssertionError("a sale built the display state")

    monkeypatch.setattr(events, "publish", published)
    monkeypatch.setattr(events, "publish_notice", lambda topic, message, every: published(topic, message))
    monkeypatch.setattr(draw_selectors, "display_state", refused)
    clock = iter([100.0, 100.2, 100.6])
    monkeypatch.setattr(events, "_clock", lambda: next(clock))

    for _ in range(3):
        hall.sell(game, 1)  # committed (no surrounding transaction): its notice goes at once

    refresh = (f"room-display.{hall.room.pk}", {"type": "display.refresh"})
    board = (f"price-board.{game.pk}", {"type": "board.changed", "game": game.pk})
    # Boards at 100.0, 100.2 and 100.6; displays at 100.0 and 100.6 (100.2 is within 0.5 s).
    assert sent == [board, refresh, board, board, refresh]


# --- the jackpot -----------------------------------------------------------------------------------


def test_a_display_shows_the_jackpot_after_a_seed_and_an_adjustment(hall: Console) -> None:
    hall.game(hall.series(1))
    venue = Hall.objects.get(pk=hall.room.hall_id)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        display = Socket(display_path(hall))
        await display.connect()
        at_connect = await display.message()
        await asyncio.sleep(SETTLE)
        await sync_to_async(jackpot_services.jackpot_seed)(hall=venue, amount=Decimal("5000.00"))
        seeded = (await until(display, lambda state: state["jackpot"]["balance"] == "5000.00"))[-1]
        await sync_to_async(jackpot_services.jackpot_adjust)(
            hall=venue, amount=Decimal("-250.50"), note="miscounted seed"
        )
        adjusted = (await until(display, lambda state: state["jackpot"]["balance"] != "5000.00"))[-1]
        await display.close()
        return at_connect, seeded, adjusted

    at_connect, seeded, adjusted = run(scenario)

    assert at_connect["jackpot"]["balance"] == "0.00"
    assert seeded["jackpot"]["balance"] == "5000.00"
    assert adjusted["jackpot"]["balance"] == "4749.50"
    assert adjusted["game"]["balls"] == []


def test_a_jackpot_movement_reaches_every_room_of_the_hall_and_no_other(hall: Console) -> None:
    venue = Hall.objects.get(pk=hall.room.hall_id)
    second = Room.objects.create(hall=venue, name="Sala 2")
    other = Console(name="Sala Mindelo")

    async def scenario() -> tuple[list[str], bool]:
        displays = [
            Socket(display_path(hall)),
            Socket(f"/ws/ecra/{draw_selectors.display_token(room=second)}/"),
        ]
        elsewhere = Socket(display_path(other))
        for display in [*displays, elsewhere]:
            await display.connect()
            await display.message()
        await asyncio.sleep(SETTLE)  # the read each connect schedules is done
        await sync_to_async(jackpot_services.jackpot_seed)(hall=venue, amount=Decimal("100.00"))
        balances = []
        for display in displays:
            state = (await until(display, lambda state: state["jackpot"]["balance"] == "100.00"))[-1]
            balances.append(state["room"])
        quiet = await elsewhere.nothing()
        for display in [*displays, elsewhere]:
            await display.close()
        return balances, quiet

    rooms, quiet = run(scenario)

    assert rooms == [hall.room.name, "Sala 2"]
    assert quiet


def test_hall_jackpot_changed_tells_each_room_of_the_hall(
    hall: Console, monkeypatch: pytest.MonkeyPatch
) -> None:
    second = Room.objects.create(hall_id=hall.room.hall_id, name="Sala 2")
    Console(name="Sala Mindelo")
    sent: list[tuple[str, dict[str, Any]]] = []

    def published(topic: str, message: dict[str, Any]) -> None:
        sent.append((topic, message))

    monkeypatch.setattr(events, "publish", published)

    events.hall_jackpot_changed(hall.room.hall_id)

    assert sorted(sent) == sorted(
        (f"room-display.{room}", {"type": "display.refresh"}) for room in (hall.room.pk, second.pk)
    )


def test_a_ball_still_reaches_the_display_in_the_event_with_no_extra_read(
    hall: Console, builds: list[int]
) -> None:
    """The draw's own path is unchanged: the state travels in the event, built once."""
    game = hall.drawing()
    assert Game.objects.get(pk=game.pk).state == "drawing"

    async def scenario() -> tuple[dict[str, Any], int, bool]:
        display = Socket(display_path(hall))
        await display.connect()
        await display.message()
        await asyncio.sleep(SETTLE)
        before = len(builds)
        await sync_to_async(hall.key)(game, 17)
        after = await display.message()
        quiet = await display.nothing()
        await asyncio.sleep(SETTLE)
        await display.close()
        return after, len(builds) - before, quiet

    after, reads, quiet = run(scenario)

    assert after["game"]["balls"] == [17]
    assert reads == 1  # events.game_changed's, for every display
    assert quiet


# --- opening and closing sales -----------------------------------------------------------------------


def test_opening_and_closing_sales_reach_the_display(hall: Console) -> None:
    """The display moves to the game put on sale (R33), and shows its final sales when they
    close (R40), with no sale or ball needed."""
    from bingo.games import services

    previous = hall.closed(cards=2)
    series = hall.series(2)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        display = Socket(display_path(hall))
        await display.connect()
        at_connect = await display.message()
        await asyncio.sleep(SETTLE)
        game = await sync_to_async(hall.game)(series)
        opened = (await until(display, lambda state: state["game"]["id"] == game.pk))[-1]
        await sync_to_async(services.game_close_sales)(game=game)
        closed = (await until(display, lambda state: state["game"]["state"] == "sales_closed"))[-1]
        await display.close()
        return at_connect, opened, closed

    at_connect, opened, closed = run(scenario)
    assert at_connect["game"]["id"] == previous.pk
    assert opened["game"]["state"] == "selling"
    assert closed["game"]["id"] == opened["game"]["id"]
