"""Standing orders on PostgreSQL (issue 25 point 2): two fill tasks of the same game running at
once, in two workers, buy once for each order. The order's row lock (taken before the wallet's,
docs/architecture.md «Lock order») makes the second wait and find the fill made; the unique fill
row (order, game) and the purchase's key hold it again. Real threads and connections; skipped on
SQLite."""

from __future__ import annotations

from decimal import Decimal

import pytest

from bingo.autodraw import services as autodraw_services
from bingo.models import Game, GameState, OnlineOrder, OnlineOrderFill, OrderEnd, Sale, WalletEntry
from bingo.online import services
from bingo.players.selectors import wallet_balance
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
