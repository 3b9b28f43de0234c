"""Writes of online players and their wallets (R85-R103).

The wallet is an insert-only ledger (``WalletEntry``): every movement is one entry carrying the
balance after it, and nothing else holds a balance. ``wallet_post`` is the one way to write an
entry; it locks the player's row, so movements of one wallet queue one after another, and the
database checks the chain again (``bingo/migrations/0011``): an entry follows the previous one,
its balance is the previous plus its amount, and never below zero.
"""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from bingo.models import Player, PrizePayment, Refund, Sale, WalletEntry


def wallet_post(
    *,
    player: Player,
    kind: str,
    amount: Decimal,
    key: str = "",
    sale: Sale | None = None,
    prize_payment: PrizePayment | None = None,
    refund: Refund | None = None,
    recorded_by: User | None = None,
    reference: str = "",
) -> WalletEntry:
    """Write one movement of ``player``'s wallet: ``amount`` is positive, added for a deposit,
    prize or refund, taken for a withdrawal or purchase. Refused, changing nothing, when it would
    take the balance below zero. With ``key``, a retried request returns the entry it wrote the
    first time and writes nothing.

    Runs in the caller's transaction (a purchase writes its sale and its entry together) and
    locks the player's row until that commits.
    """
    if not isinstance(amount, Decimal) or not amount.is_finite() or amount <= 0:
        raise ValidationError(_("The amount must be more than zero."))
    if kind not in WalletEntry.Kind.values:
        raise ValidationError(_("Unknown kind of wallet movement."))
    signed = amount if kind in WalletEntry.CREDITS else -amount
    with transaction.atomic():
        Player.objects.select_for_update().filter(pk=player.pk).values_list("pk").get()
        if key and (done := WalletEntry.objects.filter(player=player, key=key).first()) is not None:
            return done
        last = (
            WalletEntry.objects.filter(player=player)
            .order_by("-seq")
            .values_list("seq", "balance_after")
            .first()
        )
        seq, balance = last if last is not None else (0, Decimal("0.00"))
        after = balance + signed
        if after < 0:
            raise ValidationError(
                _("The wallet holds %(balance)s; %(amount)s cannot be taken from it.")
                % {"balance": balance, "amount": amount}
            )
        return WalletEntry.objects.create(
            player=player,
            seq=seq + 1,
            kind=kind,
            amount=signed,
            balance_after=after,
            sale=sale,
            prize_payment=prize_payment,
            refund=refund,
            recorded_by=recorded_by,
            reference=reference,
            key=key,
        )
