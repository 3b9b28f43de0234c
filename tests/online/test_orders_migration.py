"""bingo/0029 over orders placed before it: each takes the room's variant and pattern and the price
its first purchase paid, else the room's latest game's, else the hall's next online series'; the
room's closing keeps no words (said from its code now); of a player's several open orders in a
room the oldest stays open and the others end, saying why."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from bingo.models import OnlineOrder, OrderEnd
from tests.autodraw.helpers import OnlineHall
from tests.db_roles import as_table_owner

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("bingo", "0028_online_room_pattern")]
AFTER = [("bingo", "0029_online_order_terms_and_ends")]


def _migrate(targets: list[tuple[str, str]] | None = None) -> None:
    """Migrate to ``targets`` (None: the latest), as the tables' owner, as production migrates."""
    with as_table_owner():
        executor = MigrationExecutor(connection)
        executor.migrate(targets or executor.loader.graph.leaf_nodes())


@pytest.fixture
def before_0029() -> Iterator[None]:
    """The database as bingo/0028 left it, then migrated forward again whatever the test did."""
    _migrate(BEFORE)
    yield
    _migrate()


def _old_order(player_id: int, room_id: int, key: str, *, ended: str = "", text: str = "") -> int:
    """An order as bingo/0027 wrote it (no price, variant nor pattern)."""
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO bingo_onlineorder (player_id, online_room_id, quantity, games_wanted, games_filled,"
            " key, created_at, ended_at, end_reason, end_text) VALUES (%s, %s, 1, 2, 0, %s, %s, %s, %s, %s)",
            [player_id, room_id, key, now, now if ended else None, ended, text],
        )
        cursor.execute("SELECT id FROM bingo_onlineorder WHERE key = %s", [key])
        return int(cursor.fetchone()[0])


def test_the_migration_pins_the_orders_placed_before_and_keeps_one_open_per_room(before_0029: None) -> None:
    hall = OnlineHall(name="Sala Migrada")
    hall.series(1, price="25.00")
    player = hall.player("ana")
    first = _old_order(player.pk, hall.online.pk, "primeira")
    second = _old_order(player.pk, hall.online.pk, "segunda")
    closed = _old_order(
        player.pk, hall.online.pk, "fechada", ended="room_closed", text="The room was closed to players."
    )

    _migrate(AFTER)

    orders = {order.pk: order for order in OnlineOrder.objects.all()}
    assert {(o.price, o.variant, o.pattern) for o in orders.values()} == {(Decimal("25.00"), "90", "")}
    assert orders[first].is_open
    assert (orders[second].end_reason, orders[second].end_text) == (
        OrderEnd.REFUSED,
        "Terminada: cada jogador tem no máximo uma encomenda aberta por sala.",
    )
    assert (orders[closed].end_reason, orders[closed].end_text) == (OrderEnd.ROOM_CLOSED, "")
