"""Writes of the drawer: a cashier opens a desk's drawer with a float and closes it with the
cash counted; the close freezes the drawer's figures and the over/short, once.

Selling, paying prizes and the wallets' movements at the desk do not need an open drawer: a
close-out counts whatever cash went through the desk while it was open (``drawer_figures``). The
database keeps one open drawer per desk, the sums and, on PostgreSQL, a closed drawer unchanged
(``bingo/migrations/0024``). Who opened and closed it, and when, stay in the row: the audit trail
reads them there (``actas/audit/selectors.py``).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common import bounds
from bingo.common.clock import hall_clock_text
from bingo.common.money import quantum_for
from bingo.common.roles import Role
from bingo.drawers.selectors import drawer_figures
from bingo.models import DrawerShift
from bingo.models.drawers import CLOSE_FIGURES, NOTE_MAX_LENGTH
from halls.models import CashDesk
from halls.selectors import staff_has_role


def _cash_counted(amount: object, *, field: str, currency: str) -> Decimal:
    """Cash a cashier counted or put in: a number from 0 to ``bounds.AMOUNT_MAX``, in the
    currency's steps (whole escudos)."""
    if not isinstance(amount, Decimal) or not amount.is_finite():
        raise ValidationError({field: _("Give the amount as a number.")})
    if amount < 0:
        raise ValidationError({field: _("The amount cannot be negative.")})
    if amount > bounds.AMOUNT_MAX:
        raise ValidationError({field: _("The amount is at most %(max)s.") % {"max": bounds.AMOUNT_MAX}})
    step = quantum_for(currency)
    if amount % step:
        raise ValidationError(
            {
                field: _("Amounts in %(currency)s are in steps of %(step)s.")
                % {"currency": currency, "step": step}
            }
        )
    return amount


def _check_cashier(cash_desk: CashDesk, cashier: User) -> None:
    if not staff_has_role(user=cashier, hall_id=cash_desk.hall_id, role=Role.CASHIER):
        raise PermissionDenied(_("Only a cashier of this desk's hall opens and closes its drawer."))


def drawer_open(
    *, cash_desk: CashDesk, cashier: User, opening_float: Decimal, now: datetime | None = None
) -> DrawerShift:
    """Open ``cash_desk``'s drawer with ``opening_float`` in it (the beginning bank), by
    ``cashier``, a cashier of the desk's hall (PermissionDenied for anyone else). Refused,
    writing nothing, while the desk has an open drawer."""
    _check_cashier(cash_desk, cashier)
    opening_float = _cash_counted(opening_float, field="opening_float", currency=cash_desk.hall.currency)
    if DrawerShift.objects.filter(cash_desk=cash_desk, closed_at__isnull=True).exists():
        raise _already_open(cash_desk)
    try:
        with transaction.atomic():
            return DrawerShift.objects.create(
                cash_desk=cash_desk,
                opened_by=cashier,
                opened_at=now or timezone.now(),
                opening_float=opening_float,
            )
    except IntegrityError:
        # Another cashier opened it in the meantime: the partial unique constraint said no.
        raise _already_open(cash_desk) from None


def _already_open(cash_desk: CashDesk) -> ValidationError:
    return ValidationError(
        _("%(desk)s already has an open drawer: close it first.") % {"desk": cash_desk.name}
    )


def drawer_close(
    *, shift: DrawerShift, cashier: User, counted_cash: Decimal, note: str = "", now: datetime | None = None
) -> DrawerShift:
    """Close ``shift`` with the cash ``cashier`` counted in the drawer: its figures from the
    opening to now (``drawer_figures``) are frozen in the row with the expected cash and the
    over/short, with who closed it and when. Refused, changing nothing, if it is closed already
    (PostgreSQL refuses any later change of the row)."""
    desk = shift.cash_desk
    _check_cashier(desk, cashier)
    counted = _cash_counted(counted_cash, field="counted_cash", currency=desk.hall.currency)
    note = note.strip()
    if len(note) > NOTE_MAX_LENGTH:
        raise ValidationError(
            {"note": _("The note has at most %(max)d characters.") % {"max": NOTE_MAX_LENGTH}}
        )
    with transaction.atomic():
        # The drawer's row alone: nothing else of the lock order is taken (docs/architecture.md).
        locked = DrawerShift.objects.select_for_update(no_key=True, of=("self",)).get(pk=shift.pk)
        if locked.closed_at is not None:
            raise ValidationError(
                _("This drawer was already closed at %(time)s; a close-out is never changed.")
                % {"time": hall_clock_text(locked.closed_at, desk.hall, "%d/%m/%Y %H:%M")}
            )
        closed_at = now or timezone.now()
        figures = drawer_figures(
            cash_desk=desk,
            start=locked.opened_at,
            end=closed_at,
            opening_float=locked.opening_float,
            counted_cash=counted,
        )
        locked.cash_desk = desk
        locked.closed_by = cashier
        locked.closed_at = closed_at
        locked.note = note
        for name in CLOSE_FIGURES:
            setattr(locked, name, getattr(figures, name))
        locked.save(update_fields=["closed_by", "closed_at", "note", *CLOSE_FIGURES])
    return locked
