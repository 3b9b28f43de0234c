"""Reads of a hall's progressive jackpot (R9-R13): what the displays show, and its ledger."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import QuerySet

from bingo.common.clock import hall_today
from halls.models import Hall, Jackpot, JackpotMovement


@dataclass(frozen=True)
class JackpotState:
    """What displays and the board show of a hall's jackpot (R13, R29)."""

    hall_id: int
    active: bool
    balance: Decimal
    base_value: Decimal
    currency: str
    valid_until: date | None


def jackpot_state(*, hall: Hall, read_with_hall: bool = False) -> JackpotState:
    """``hall``'s jackpot for displays: running (R9, within the R12 time limit), balance and base value.
    ``read_with_hall``: ``hall`` was read just now with its jackpot
    (``select_related("…hall__jackpot")``), which is used as it is, with no query of its own."""
    jackpot = _jackpot_read_with(hall) if read_with_hall else jackpot_get(hall=hall)
    if jackpot is None:
        return JackpotState(
            hall_id=hall.pk,
            active=False,
            balance=Decimal("0.00"),
            base_value=Decimal("0.00"),
            currency=hall.currency,
            valid_until=None,
        )
    today = hall_today(hall)
    in_time = jackpot.valid_until is None or today <= jackpot.valid_until
    return JackpotState(
        hall_id=hall.pk,
        active=hall.jackpot_active and in_time,
        balance=jackpot.balance,
        base_value=jackpot.base_value,
        currency=hall.currency,
        valid_until=jackpot.valid_until,
    )


def _jackpot_read_with(hall: Hall) -> Jackpot | None:
    try:
        return hall.jackpot
    except Jackpot.DoesNotExist:  # read with the hall: it has none
        return None


def jackpot_get(*, hall: Hall) -> Jackpot | None:
    """``hall``'s jackpot row; None until it is first configured or seeded."""
    return Jackpot.objects.filter(hall=hall).first()


def jackpot_movement_list(*, hall: Hall) -> QuerySet[JackpotMovement]:
    """``hall``'s jackpot ledger, newest first, with each movement's game, room and author joined."""
    return (
        JackpotMovement.objects.filter(jackpot__hall=hall)
        .select_related("game__session__room", "created_by")
        .order_by("-id")
    )
