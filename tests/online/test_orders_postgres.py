"""Standing orders on PostgreSQL (issue 25 point 2): two fill tasks of the same game running at
once, in two workers, buy once for each order; a self-exclusion beside a fill holding an order
never waits for it (R101, the lock order). The order's row lock (taken before the wallet's,
docs/architecture.md «Lock order») makes the second wait and find the fill made; the unique fill
row (order, game) and the purchase's key hold it again. Real threads and connections; skipped on
SQLite."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.utils import translation

from bingo.autodraw import services as autodraw_services
from bingo.models import Game, GameState, OnlineOrder, OnlineOrderFill, OrderEnd, Sale, WalletEntry
from bingo.online import services
from bingo.players import services as player_services
from bingo.players.selectors import wallet_balance
from bingo.protection import services as protection_services
from tests.autodraw.helpers import committed
from tests.concurrency import postgresql_only, run_threads
from tests.online.helpers import Fills, OnlineSetup

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    postgresql_only()


def test_two_fill_tasks_at_once_for_the_same_game_buy_once(fills: Fills) -> None:
    site = OnlineSetup(name="Sala das Corridas")
    site.series(1, price="10.00")
    players = [site.player("100.00") for _ in range(6)]
    orders = [
        services.online_order_create(
            player=player, online_room=site.online, games=2, quantity=2, key=f"corrida-{n}"
        )
        for n, player in enumerate(players)
    ]
    committed(lambda: autodraw_services.online_room_advance(room_id=site.online.pk))
    game = Game.objects.get(session__room=site.room, state=GameState.SELLING.value)
    assert fills.queued == [game.pk]
    made: list[int] = []

    def worker() -> None:
        made.append(len(services.online_orders_fill(game_id=game.pk)))

    run_threads([worker, worker])

    assert sum(made) == 6  # six fills between the two runs, never twelve
    assert OnlineOrderFill.objects.filter(game=game).count() == 6
    for player, order in zip(players, orders, strict=True):
        assert Sale.objects.filter(game=game, buyer=player).count() == 1
        assert WalletEntry.objects.filter(player=player, kind=WalletEntry.Kind.PURCHASE).count() == 1
        assert wallet_balance(player=player) == Decimal("80.00")
        order.refresh_from_db()
        assert (order.games_filled, order.end_reason) == (1, "")
    # R36: twelve cards, each sold once, in number order from card 1.
    numbers = sorted(
        n for s in Sale.objects.filter(game=game) for n in range(s.first_number, s.last_number + 1)
    )
    assert numbers == list(range(1, 13))
    assert not OnlineOrder.objects.filter(end_reason=OrderEnd.REFUSED).exists()


def test_an_exclusion_never_waits_for_an_order_a_fill_holds(fills: Fills) -> None:
    """R101 and the lock order (docs/architecture.md): a self-exclusion holds the player's row (the
    wallet's lock) while it ends their open orders; a fill holds an order, then waits for that row.
    The exclusion takes the orders it can without waiting (SKIP LOCKED): the order no fill holds
    ends with it (``barred``), the one a fill holds is left to that fill, whose purchase the
    exclusion then refuses, ending it saying why. Were the exclusion to wait for the order, it
    would wait for the fill, and the fill for it: ``lock_timeout`` fails the test instead."""
    site = OnlineSetup(name="Sala da Exclusão")
    site.series(1, price="10.00")
    other = services.online_room_create(hall=site.hall, name="Online 2", mode="continuous", ball_interval="2")
    player = site.player("100.00")
    held_order = services.online_order_create(
        player=player, online_room=site.online, games=2, quantity=1, key="segura"
    )
    free_order = services.online_order_create(
        player=player, online_room=other, games=2, quantity=1, key="livre"
    )
    held, released = threading.Event(), threading.Event()

    def fill_holding_the_order() -> None:
        with transaction.atomic():
            OnlineOrder.objects.select_for_update(no_key=True).get(pk=held_order.pk)  # as _order_fill
            held.set()
            assert released.wait(30)
            player_services.wallet_lock(player=player)  # then the purchase's wallet, as online_buy

    def self_exclusion() -> None:
        assert held.wait(30)
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '3s'")
                protection_services.player_self_exclude(player=player, length="1m", confirmed=True)
        finally:
            released.set()

    run_threads([fill_holding_the_order, self_exclusion], together=False)

    free_order.refresh_from_db()
    held_order.refresh_from_db()
    assert free_order.end_reason == OrderEnd.BARRED
    assert held_order.is_open  # left to its fill
    committed(lambda: autodraw_services.online_room_advance(room_id=site.online.pk))
    game = Game.objects.get(session__room=site.room, state=GameState.SELLING.value)
    with translation.override("pt"):
        services.online_orders_fill(game_id=game.pk)
    held_order.refresh_from_db()
    assert held_order.end_reason == OrderEnd.REFUSED
    assert "R101" in held_order.end_text
    assert not Sale.objects.filter(buyer=player).exists()
