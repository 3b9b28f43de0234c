"""R98 on PostgreSQL: two games made null at the same time (a manager's fault on one, the
reconciler's on another, or any annulment) refund the same players in the order of their own
sales. The refunds must take the players' rows in one order (their keys), or two refunds that
cross deadlock and one of them fails: the fault is not declared, the players wait for their
money. Skipped on SQLite."""

from __future__ import annotations

import contextlib
import threading
import time
from decimal import Decimal
from functools import partial
from typing import Any

import pytest
from django.db import transaction

from bingo.autodraw import services
from bingo.faults import services as fault_services
from bingo.models import Game, OnlineRoom, Player, RoomMode
from bingo.players import services as player_services
from bingo.players.selectors import wallet_balance
from halls.models import Jackpot, Room
from tests.autodraw.helpers import OnlineHall, committed, online_buy
from tests.concurrency import postgresql_only, run_threads

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    postgresql_only("row locks and deadlock detection are PostgreSQL's")


def test_r98_two_faults_refunding_the_same_players_in_crossed_order_both_refund(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lobby = OnlineHall("Sala Cruzada")
    lobby.series(1)
    lobby.series(2)
    other = OnlineRoom.objects.create(
        room=Room.objects.create(hall=lobby.hall, name="Sala online 2"),
        mode=RoomMode.CONTINUOUS,
        ball_interval=Decimal("1"),
        sales_seconds=60,
        pause_seconds=10,
        variant="90",
    )
    ana, rui = lobby.player("ana"), lobby.player("rui")
    first = committed(lambda: services.online_room_advance(room_id=lobby.room.pk))
    second = committed(lambda: services.online_room_advance(room_id=other.pk))
    assert first is not None
    assert second is not None
    assert first.pk != second.pk
    online_buy(first, ana, 1)  # the first game's sales: Ana, then Rui
    online_buy(first, rui, 1)
    online_buy(second, rui, 1)  # the second's: Rui, then Ana
    online_buy(second, ana, 1)

    # Each refund waits (a little) after its first wallet entry for the other to make its
    # own: with the players' rows taken in sale order, the two then wait for each other.
    barrier = threading.Barrier(2)
    real_post = player_services.wallet_post
    posted: set[int] = set()

    def slow_post(**kwargs: Any) -> Any:
        entry = real_post(**kwargs)
        me = threading.get_ident()
        if kwargs.get("kind") == "refund" and me not in posted:
            posted.add(me)
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=3)
        return entry

    monkeypatch.setattr(player_services, "wallet_post", slow_post)

    def fault(game: Game) -> None:
        fault_services.online_game_fault(game=game, user=lobby.manager, reason="Servidor")

    run_threads([partial(fault, first), partial(fault, second)], timeout=30, together=False)
    for game in (first, second):
        game.refresh_from_db()
        assert game.state == Game.State.ANNULLED
    for player in (ana, rui):
        assert wallet_balance(player=Player.objects.get(pk=player.pk)) == Decimal("1000.00")


def test_r98_a_fault_takes_the_jackpot_before_the_wallets_as_a_bingo_does() -> None:
    """A bingo that wins the jackpot (R9) locks the hall's jackpot, then pays the wallets (R97);
    a fault refunding the same players at that moment must take the jackpot (R10's reversal)
    before their wallets too, or the two wait for each other and one fails."""
    lobby = OnlineHall("Sala do Jackpot")
    lobby.series(1)
    ana = lobby.player("ana")
    game = committed(lambda: services.online_room_advance(room_id=lobby.room.pk))
    assert game is not None
    online_buy(game, ana, 1)
    Jackpot.objects.get_or_create(hall=lobby.hall)

    held, started = threading.Event(), threading.Event()

    def bingo_paying() -> None:  # the order of prize_award's jackpot win, then the payout
        with transaction.atomic():
            Jackpot.objects.select_for_update().get(hall=lobby.hall)
            held.set()
            started.wait(10)
            time.sleep(1.5)  # the fault is under way, waiting for what it needs
            player_services.wallet_post(
                player=ana,
                kind="deposit",
                amount=Decimal("5.00"),
                recorded_by=lobby.cashier,
                reference="x",
            )

    def fault() -> None:
        held.wait(10)
        started.set()
        fault_services.online_game_fault(game=game, user=lobby.manager, reason="Servidor")

    run_threads([bingo_paying, fault], timeout=30, together=False)
    game.refresh_from_db()
    assert game.state == Game.State.ANNULLED
    assert wallet_balance(player=Player.objects.get(pk=ana.pk)) == Decimal("1005.00")
