"""Writes of a hall's progressive jackpot (R9-R13): its configuration and its ledger.

Every movement locks the jackpot row, appends to the ledger, then saves the new balance, so the
balance is always the sum of the movements (PostgreSQL checks both, halls migration 0004). Once
it commits, the displays of the hall's rooms show the new balance (R13; STYLE rule 4).

The tables are the halls app's (``Jackpot``, ``JackpotMovement``); the feature lives here, with
the games, because every contribution, win and reversal belongs to a game.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from bingo.common import bounds
from bingo.live import events
from bingo.models import Game
from halls.models import Hall, Jackpot, JackpotMovement


def _check_amount(amount: Decimal, *, field: str = "amount") -> Decimal:
    if not isinstance(amount, Decimal) or not amount.is_finite():
        raise ValidationError({field: _("Give the amount as a number.")})
    if amount != amount.quantize(Decimal("0.01")):
        # Never rounded here: a fraction of a cent would be lost from the ledger.
        raise ValidationError({field: _("Amounts are in whole cents.")})
    return amount


def _typed_amount(amount: Decimal, *, field: str = "amount") -> Decimal:
    """An amount the manager typed (a base value, a seed, an adjustment): a checked amount of
    at most ``bounds.AMOUNT_MAX`` either way."""
    amount = _check_amount(amount, field=field)
    if abs(amount) > bounds.AMOUNT_MAX:
        raise ValidationError({field: _("An amount is at most %(max)s.") % {"max": bounds.AMOUNT_MAX}})
    return amount


def _locked_jackpot(hall: Hall) -> Jackpot:
    # get_or_create re-reads after losing a creation race; then the row lock serializes writers.
    # The lock order (docs/architecture.md): after the games, before the acta, the wallets and
    # the series on sale.
    Jackpot.objects.get_or_create(hall=hall)
    return Jackpot.objects.select_for_update(no_key=True).get(hall=hall)


def jackpot_lock(*, hall: Hall) -> Jackpot:
    """Lock ``hall``'s jackpot until the transaction ends (made on first use), for a transaction
    that moves it only after locking a series on sale: the close takes it first, since nothing
    of the lock order is locked after a series on sale (docs/architecture.md)."""
    return _locked_jackpot(hall)


def _game_of_hall(*, hall: Hall, game_id: int) -> None:
    if not Game.objects.filter(pk=game_id, session__room__hall_id=hall.pk).exists():
        raise ValidationError(
            {"game": _("Game %(id)d is not a game of %(hall)s.") % {"id": game_id, "hall": hall.name}}
        )


def _announce(hall_id: int) -> None:
    # Registered inside the movement's transaction: a movement rolled back announces nothing.
    transaction.on_commit(lambda: events.hall_jackpot_changed(hall_id))


def _move(
    jackpot: Jackpot,
    *,
    kind: str,
    amount: Decimal,
    game_id: int | None = None,
    note: str = "",
    user: User | None = None,
) -> JackpotMovement:
    balance = jackpot.balance + amount
    if balance < 0:
        raise ValidationError({"amount": _("The jackpot cannot go below zero.")})
    if balance > bounds.BALANCE_MAX:  # what the ledger's column holds: refused here, not by it
        raise ValidationError(
            {
                "amount": _("The jackpot holds %(balance)s and can hold at most %(max)s.")
                % {"balance": jackpot.balance, "max": bounds.BALANCE_MAX}
            }
        )
    movement = JackpotMovement.objects.create(
        jackpot=jackpot,
        kind=kind,
        amount=amount,
        balance_after=balance,
        game_id=game_id,
        note=note,
        created_by=user,
    )
    jackpot.balance = balance
    jackpot.save(update_fields=["balance", "updated_at"])
    _announce(jackpot.hall_id)
    return movement


def jackpot_configure(
    *,
    hall: Hall,
    base_value: Decimal,
    authorization_reference: str = "",
    conditions: str = "",
    valid_until: date | None = None,
) -> Jackpot:
    """Set ``hall``'s jackpot base value (R11) and its authorization, conditions and time limit (R12)."""
    base_value = _typed_amount(base_value, field="base_value")
    if base_value < 0:
        raise ValidationError({"base_value": _("The base value cannot be negative.")})
    with transaction.atomic():
        jackpot = _locked_jackpot(hall)
        jackpot.base_value = base_value
        jackpot.authorization_reference = authorization_reference.strip()
        jackpot.conditions = conditions.strip()
        jackpot.valid_until = valid_until
        jackpot.full_clean(exclude=["hall"])
        jackpot.save()
        _announce(hall.pk)  # the time limit decides whether the displays show it running (R12)
    return jackpot


def jackpot_seed(*, hall: Hall, amount: Decimal, note: str = "", user: User | None = None) -> JackpotMovement:
    """Add the operator's ``amount`` to ``hall``'s jackpot (R11: usually its base value, once)."""
    amount = _typed_amount(amount)
    if amount <= 0:
        raise ValidationError({"amount": _("A seed adds a positive amount.")})
    with transaction.atomic():
        return _move(
            _locked_jackpot(hall), kind=JackpotMovement.Kind.SEED, amount=amount, note=note.strip(), user=user
        )


def jackpot_contribute(*, hall: Hall, game_id: int, amount: Decimal) -> JackpotMovement:
    """Add game ``game_id``'s share of its prize money to ``hall``'s jackpot (R10), once per game.

    The caller computes the 3% (R10) in whole cents; a game with no prize money contributes 0.
    """
    amount = _check_amount(amount)
    if amount < 0:
        raise ValidationError({"amount": _("A contribution cannot be negative (R10).")})
    _game_of_hall(hall=hall, game_id=game_id)
    with transaction.atomic():
        jackpot = _locked_jackpot(hall)
        if jackpot.movements.filter(game_id=game_id, kind=JackpotMovement.Kind.CONTRIBUTION).exists():
            raise ValidationError(
                _("Game %(id)d already contributed to the jackpot (R10).") % {"id": game_id}
            )
        return _move(jackpot, kind=JackpotMovement.Kind.CONTRIBUTION, amount=amount, game_id=game_id)


def jackpot_win(*, hall: Hall, game_id: int) -> Decimal:
    """Pay ``hall``'s whole jackpot to game ``game_id``'s bingo and put the base back (R11); return it."""
    _game_of_hall(hall=hall, game_id=game_id)
    with transaction.atomic():
        jackpot = _locked_jackpot(hall)
        if jackpot.movements.filter(game_id=game_id, kind=JackpotMovement.Kind.WIN).exists():
            raise ValidationError(_("The jackpot was already won in game %(id)d.") % {"id": game_id})
        won = jackpot.balance
        _move(jackpot, kind=JackpotMovement.Kind.WIN, amount=-won, game_id=game_id)
        _move(jackpot, kind=JackpotMovement.Kind.RESET, amount=jackpot.base_value, game_id=game_id)
    return won


def jackpot_reverse(*, hall: Hall, game_id: int) -> JackpotMovement | None:
    """Give back an annulled game's contribution (R10, R57: its prize money is refunded), as
    far as the balance allows (a jackpot won since keeps what it paid); None if it gave none."""
    _game_of_hall(hall=hall, game_id=game_id)
    with transaction.atomic():
        jackpot = _locked_jackpot(hall)
        given = jackpot.movements.filter(game_id=game_id, kind=JackpotMovement.Kind.CONTRIBUTION).first()
        if (
            given is None
            or jackpot.movements.filter(game_id=game_id, kind=JackpotMovement.Kind.REVERSAL).exists()
        ):
            return None
        back = min(given.amount, jackpot.balance)
        return _move(jackpot, kind=JackpotMovement.Kind.REVERSAL, amount=-back, game_id=game_id)


def jackpot_adjust(*, hall: Hall, amount: Decimal, note: str, user: User | None = None) -> JackpotMovement:
    """Correct ``hall``'s jackpot by a signed ``amount``, with the reason in ``note``."""
    amount = _typed_amount(amount)
    if amount == 0:
        raise ValidationError({"amount": _("An adjustment changes the balance.")})
    note = note.strip()
    if not note:
        raise ValidationError({"note": _("Say why.")})
    with transaction.atomic():
        return _move(
            _locked_jackpot(hall), kind=JackpotMovement.Kind.ADJUSTMENT, amount=amount, note=note, user=user
        )
