"""The wallet's ledger on PostgreSQL (bingo/migrations/0011): the database itself refuses an
entry that breaks the chain or goes below zero, and any UPDATE or DELETE; concurrent deposits and
withdrawals (real threads, real row locks) never lose or double-count money."""

from __future__ import annotations

from decimal import Decimal
from functools import partial

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from bingo.common.roles import Role
from bingo.models import WalletEntry
from bingo.players import selectors, services
from halls.models import Hall
from tests.concurrency import run_threads
from tests.db_roles import as_table_owner
from tests.players.conftest import Halls, staff

pytestmark = pytest.mark.postgres


def _pg_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the ledger's chain and insert-only triggers exist on PostgreSQL only")


def _raw_insert(player_id: int, seq: int, kind: str, amount: str, balance: str, staff_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO bingo_walletentry (player_id, seq, kind, amount, balance_after, recorded_by_id,"
            " reference, key, created_at) VALUES (%s, %s, %s, %s, %s, %s, 'x', '', now())",
            [player_id, seq, kind, amount, balance, staff_id],
        )


def test_a_raw_insert_breaking_the_chain_or_going_negative_is_refused(halls: Halls) -> None:
    _pg_only()
    player = halls.player()
    halls.deposit(player, "100", key="a")
    staff = halls.cashier.pk
    for seq, kind, amount, balance in [
        (3, "deposit", "10", "110"),  # skips entry 2
        (2, "deposit", "10", "999"),  # a balance that is not 100 + 10
        (2, "withdrawal", "-150", "-50"),  # below zero
        (2, "withdrawal", "-150", "0"),  # below zero, with a forged balance
    ]:
        with pytest.raises(IntegrityError), transaction.atomic():
            _raw_insert(player.pk, seq, kind, amount, balance, staff)
    assert list(WalletEntry.objects.values_list("seq", "balance_after")) == [(1, Decimal("100.00"))]


def test_update_and_delete_are_refused(halls: Halls) -> None:
    _pg_only()
    player = halls.player()
    entry = halls.deposit(player, "100", key="a")
    # As the tables' owner: the app's role is refused by its privileges before any trigger is
    # asked (tests/common/test_db_roles.py).
    with as_table_owner():
        with pytest.raises(IntegrityError), transaction.atomic():
            WalletEntry.objects.filter(pk=entry.pk).update(balance_after=Decimal("1000"))  # type: ignore[attr-defined]
        with pytest.raises(IntegrityError), transaction.atomic():
            WalletEntry.objects.filter(pk=entry.pk).delete()  # type: ignore[attr-defined]
    assert selectors.wallet_balance(player=player) == Decimal("100")


@pytest.mark.django_db(transaction=True)
def test_concurrent_deposits_and_withdrawals_never_lose_or_double_count_money() -> None:
    """Six desks at once on one wallet (deposits of 10, withdrawals of 25, each sent twice with
    one key): the balance is the sum of the entries, every key counted once, never below zero."""
    _pg_only()
    hall = Hall.objects.create(name="Sala Corrida")
    cashiers = [staff(hall, Role.CASHIER, f"c{i}") for i in range(6)]
    halls = Halls(
        praia=hall, mindelo=hall, cashier=cashiers[0], manager=cashiers[0], other_cashier=cashiers[0]
    )
    player = halls.player("corrida")
    halls.deposit(player, "100", key="seed")
    refused: list[str] = []

    def desk(index: int) -> None:
        for n in range(10):
            key = f"{index}-{n}"
            for _try in range(2):  # the form sent twice
                try:
                    if (index + n) % 2:
                        services.wallet_withdraw(
                            player=player,
                            amount=Decimal("25"),
                            staff=cashiers[index],
                            reference="CNI",
                            key=key,
                        )
                    else:
                        services.wallet_deposit(
                            player=player,
                            amount=Decimal("10"),
                            staff=cashiers[index],
                            reference="CNI",
                            key=key,
                        )
                except ValidationError:
                    refused.append(key)  # more than the balance: nothing written

    run_threads([partial(desk, i) for i in range(6)])
    entries = list(WalletEntry.objects.filter(player=player).order_by("seq"))
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    keys = [e.key for e in entries]
    assert len(keys) == len(set(keys))  # every key counted once
    assert sum(e.amount for e in entries) == selectors.wallet_balance(player=player)
    assert all(e.balance_after >= 0 for e in entries)
    deposits = sum(1 for e in entries if e.kind == "deposit") - 1
    withdrawals = sum(1 for e in entries if e.kind == "withdrawal")
    assert deposits == 30  # a deposit is never refused
    # A withdrawal refused on its first try may pass on its second, the balance having grown.
    assert withdrawals + len({services.desk_key(k) for k in refused} - set(keys)) == 30
    assert selectors.wallet_balance(player=player) == Decimal("100") + 10 * deposits - 25 * withdrawals
