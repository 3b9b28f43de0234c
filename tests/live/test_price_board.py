"""The price board's websocket (bingo.live.consumers.PriceBoardConsumer) through the whole ASGI app.

A board gets the current figures on connect and new ones after every committed sale. The sale
runs in the test's thread, through ``sync_to_async``, inside the event loop the consumer runs in,
so its ``on_commit`` broadcast goes through the real channel layer: channels_redis with
REDIS_URL set, the in-memory layer without. ``transactional_db``: the broadcast fires on commit.
"""

from __future__ import annotations

import asyncio
import os
import time
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from bingo.draw import services as draw_services
from bingo.games import services
from bingo.live import consumers, events, fanout
from tests.draw.test_services import Draw, all_numbers
from tests.live.sockets import ORIGIN, Socket, connect_answer, run, send_hostile_frames
from tests.sales.test_views import Desk

pytestmark = pytest.mark.django_db(transaction=True)


class Board(Socket):
    """A websocket client of one price board: its ``figures`` are the messages it is sent."""

    def __init__(self, game_id: int, origin: str = ORIGIN) -> None:
        super().__init__(f"/ws/quadro/{game_id}/", origin=origin)

    async def figures(self) -> dict[str, Any]:
        return await self.message()


@pytest.fixture
def praia() -> Desk:
    return Desk()


def test_boards_connecting_together_share_the_read_of_their_figures(
    praia: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20 boards of a game opened at once get the current figures from one or two reads (each
    read starts after the boards it serves subscribed), not one read each."""
    praia.sell(praia.selling, 2)
    game = praia.selling
    reads: list[int] = []
    read = consumers._board_message

    def counted(game_id: int) -> dict[str, Any] | None:
        reads.append(game_id)
        return read(game_id)

    monkeypatch.setattr(consumers, "_board_message", counted)

    async def scenario() -> tuple[list[dict[str, Any]], int]:
        boards = [Board(game.pk) for _ in range(20)]
        answers = await asyncio.gather(*(board.connect() for board in boards))
        assert {answer["type"] for answer in answers} == {"websocket.accept"}
        figures = [await board.figures() for board in boards]
        at_connect = len(reads)  # before the trailing read each connect schedules
        for board in boards:
            await board.close()
        return figures, at_connect

    figures, at_connect = run(scenario)

    assert [f["cards_sold"] for f in figures] == [2] * 20
    assert 1 <= at_connect <= 2


def test_a_board_gets_the_figures_on_connect_and_after_each_sale(praia: Desk) -> None:
    praia.sell(praia.selling, 2)
    game = praia.selling

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        board = Board(game.pk)
        assert (await board.connect())["type"] == "websocket.accept"
        at_connect = await board.figures()
        await sync_to_async(praia.sell)(game, 8)  # committed: the board hears of it
        after_sale = await board.figures()
        await sync_to_async(praia.sell)(game, 5)
        after_another = await board.figures()
        await board.close()
        return at_connect, after_sale, after_another

    at_connect, after_sale, after_another = run(scenario)

    assert at_connect["type"] == "board"
    assert at_connect["game"] == game.pk
    assert at_connect["cards_sold"] == 2
    assert at_connect["total_display"] == "200 CVE"
    assert at_connect["selling"] is True
    assert at_connect["jackpot_active"] is False
    assert at_connect["series"] == [
        {
            "label": "A-1",
            "price": "100.00",
            "price_display": "100 CVE",
            "cards_sold": 2,
            "next_number": 3,
            "remaining": 88,
        }
    ]
    # 1 000 CVE of sales: prize money 800, line 20 % of sales = 200, bingo 60 % = 600 (R7).
    assert after_sale["cards_sold"] == 10
    assert after_sale["total"] == "1000.00"
    assert [(p["kind"], p["display"]) for p in after_sale["prizes"]] == [
        ("line", "200 CVE"),
        ("bingo", "600 CVE"),
    ]
    assert after_another["cards_sold"] == 15
    assert after_another["series"][0]["next_number"] == 16


def test_a_board_that_reconnects_shows_the_current_state(praia: Desk) -> None:
    game = praia.selling

    async def scenario() -> dict[str, Any]:
        board = Board(game.pk)
        await board.connect()
        await board.figures()
        await board.close()
        await sync_to_async(praia.sell)(game, 7)  # sold while the board was away
        again = Board(game.pk)
        await again.connect()
        figures = await again.figures()
        await again.close()
        return figures

    figures = run(scenario)

    assert figures["cards_sold"] == 7
    assert figures["total_display"] == "700 CVE"


def test_a_board_hears_only_its_own_game(praia: Desk) -> None:
    other = Desk(name="Sala Mindelo")

    async def scenario() -> bool:
        board = Board(praia.selling.pk)
        await board.connect()
        await board.figures()
        await sync_to_async(other.sell)(other.selling, 3)
        quiet = await board.nothing()
        await board.close()
        return quiet

    assert run(scenario)


def test_a_rolled_back_sale_is_not_announced(praia: Desk) -> None:
    def refused_sale() -> None:
        with pytest.raises(Exception, match="R39"):
            praia.sell(praia.selling, 3, cash=Decimal("1"))

    async def scenario() -> bool:
        board = Board(praia.selling.pk)
        await board.connect()
        await board.figures()
        await sync_to_async(refused_sale)()
        quiet = await board.nothing()
        await board.close()
        return quiet

    assert run(scenario)


def test_closing_the_sales_shows_on_the_board_at_the_next_reconnect(praia: Desk) -> None:
    praia.sell(praia.selling, 4)
    services.game_close_sales(game=praia.selling)

    async def scenario() -> dict[str, Any]:
        board = Board(praia.selling.pk)
        await board.connect()
        figures = await board.figures()
        await board.close()
        return figures

    figures = run(scenario)

    assert figures["selling"] is False
    assert figures["state"] == "sales_closed"
    assert figures["cards_sold"] == 4


def test_a_board_of_no_game_is_closed(db: None) -> None:
    assert connect_answer(Board(999_999))["type"] == "websocket.close"


def test_a_board_from_a_foreign_origin_is_refused(praia: Desk) -> None:
    assert connect_answer(Board(praia.selling.pk, origin="https://evil.example"))["type"] == "websocket.close"


def test_the_board_ignores_what_a_client_sends(praia: Desk) -> None:
    async def scenario() -> bool:
        board = Board(praia.selling.pk)
        await board.connect()
        await board.figures()
        await board.communicator.send_input({"type": "websocket.receive", "text": '{"cards_sold": 1000}'})
        quiet = await board.nothing()
        await board.close()
        return quiet

    assert run(scenario)


def test_the_board_drops_hostile_frames_and_still_shows_the_next_sale(praia: Desk) -> None:
    """JSON nested 5,000 deep, text that is not JSON, bytes: dropped unread (issue 20, 3)."""

    async def scenario() -> dict[str, Any]:
        board = Board(praia.selling.pk)
        await board.connect()
        await board.figures()
        await send_hostile_frames(board.communicator)
        await sync_to_async(praia.sell)(praia.selling, 3)
        figures = await board.figures()
        await board.close()
        return figures

    assert run(scenario)["cards_sold"] == 3


def test_a_sale_whose_notice_was_skipped_still_reaches_the_board(praia: Desk) -> None:
    """Sellers space their notices out (events.BOARD_NOTICE_SECONDS); the board's trailing
    read after connect and after each notice picks up the sales in between."""
    game = praia.selling

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        board = Board(game.pk)
        await board.connect()
        at_connect = await board.figures()
        # As if this process had just sent a notice: this sale's notice is skipped.
        events._last_notice[game.pk] = time.monotonic()
        await sync_to_async(praia.sell)(game, 6)
        later = await board.figures()
        await board.close()
        return at_connect, later

    at_connect, later = run(scenario)

    assert at_connect["cards_sold"] == 0
    assert later["cards_sold"] == 6


def test_the_sales_of_many_processes_within_one_window_make_one_notice_and_the_board_shows_the_last(
    praia: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With Redis, sellers in several processes share one notice window per game: the board
    hears one notice for all their sales, and its trailing read shows the last sale."""
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL not set: without Redis there is one process")
    game = praia.selling
    # A window wide enough for four sales on a loaded machine; the trailing read stays longer,
    # within figures()' 5 s.
    monkeypatch.setattr(events, "BOARD_NOTICE_SECONDS", 3.0)
    monkeypatch.setattr(consumers, "BOARD_TRAILING_SECONDS", 3.5)
    heard: list[dict[str, Any]] = []
    relay = consumers.PriceBoardConsumer.topic_message

    async def counted(board: Any, topic: str, message: dict[str, Any], text: str) -> None:
        heard.append(message)
        await relay(board, topic, message, text)

    monkeypatch.setattr(consumers.PriceBoardConsumer, "topic_message", counted)
    processes = [fanout._SendingThread() for _ in range(4)]

    def sell_from(process: fanout._SendingThread, quantity: int) -> None:
        monkeypatch.setattr(fanout, "_sender", lambda: process.sender)
        events._last_notice.clear()  # each process spaces its own notices: this one sent none
        praia.sell(game, quantity)
        process.sender.flush(5)

    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
        # Opening the sales sent a notice, whose window (0.1 s then) would cover these sales: out
        # and over before the board listens (flushed after it connected, the board heard it too).
        await sync_to_async(fanout.flush)()
        await asyncio.sleep(0.2)
        board = Board(game.pk)
        await board.connect()
        at_connect = await board.figures()
        for process, quantity in zip(processes, [1, 2, 3, 4], strict=True):
            await sync_to_async(sell_from)(process, quantity)
        shown = [await board.figures()]
        while shown[-1]["cards_sold"] < 10:
            shown.append(await board.figures())
        quiet = await board.nothing()
        await board.close()
        return at_connect, shown, quiet

    try:
        at_connect, shown, quiet = run(scenario)
    finally:
        for process in processes:
            process.sender.loop.call_soon_threadsafe(process.sender.loop.stop)

    assert at_connect["cards_sold"] == 0
    assert heard == [{"type": "board.changed", "game": game.pk}]  # one notice for 4 processes
    assert shown[-1]["cards_sold"] == 10  # the trailing read shows the last sale
    assert quiet


def test_notices_of_one_game_are_spaced_out(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    def published(topic: str, message: dict[str, Any]) -> None:
        sent.append((topic, message))

    monkeypatch.setattr(events, "publish", published)
    monkeypatch.setattr(events, "publish_notice", lambda topic, message, every: published(topic, message))
    clock = iter([100.0, 100.05, 100.2, 100.21])
    monkeypatch.setattr(events, "_clock", lambda: next(clock))
    events._last_notice.clear()

    for _ in range(4):
        events.price_board_changed(7)
    # At 100.0 and 100.2 (0.2 s apart); 100.05 and 100.21 fall within 0.1 s of a notice.
    assert sent == [("price-board.7", {"type": "board.changed", "game": 7})] * 2


def test_a_board_shows_live_that_the_game_ended(db: None) -> None:
    """After the sales the board shows the game's real state as it changes: drawing, then
    finished once the bingo is awarded (not «sales closed»), with its results linked (issue 24)."""
    hall = Draw(name="Sala Fim")
    game = hall.drawing(cards=5)
    card = hall.card(game, 1)

    def bingo() -> None:
        hall.key(game, *all_numbers(card))
        draw_services.prize_award(game=game, user=hall.caller, kind="line")
        draw_services.prize_award(game=game, user=hall.caller, kind="bingo")

    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        board = Board(game.pk)
        await board.connect()
        at_connect = await board.figures()
        await sync_to_async(bingo)()  # committed: the boards hear that the game changed
        seen = [await board.figures()]
        while seen[-1]["state"] != "finished":
            seen.append(await board.figures())
        await board.close()
        return at_connect, seen

    at_connect, seen = run(scenario)

    assert (at_connect["state"], at_connect["selling"], at_connect["ended"]) == ("drawing", False, False)
    assert (seen[-1]["state"], seen[-1]["selling"], seen[-1]["ended"]) == ("finished", False, True)


def test_a_board_shows_live_that_the_game_was_annulled(db: None) -> None:  # R57
    hall = Draw(name="Sala Anulada")
    game = hall.drawing(cards=5)
    hall.key(game, 7)

    async def scenario() -> list[dict[str, Any]]:
        board = Board(game.pk)
        await board.connect()
        seen = [await board.figures()]
        await sync_to_async(draw_services.game_annul)(game=game, user=hall.caller, reason="7 announced as 1")
        while seen[-1]["state"] != "annulled":
            seen.append(await board.figures())
        await board.close()
        return seen

    seen = run(scenario)

    assert seen[0]["state"] == "drawing"
    assert (seen[-1]["state"], seen[-1]["ended"]) == ("annulled", True)
