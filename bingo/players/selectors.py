"""Reads of online players and their wallets (R85-R103)."""

from __future__ import annotations

from decimal import Decimal

from bingo.models import Player, WalletEntry


def wallet_balance(*, player: Player) -> Decimal:
    """The player's balance: the last entry's ``balance_after`` (0 before the first)."""
    last = (
        WalletEntry.objects.filter(player=player)
        .order_by("-seq")
        .values_list("balance_after", flat=True)
        .first()
    )
    return last if last is not None else Decimal("0.00")
