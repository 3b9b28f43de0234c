"""A cash desk's drawer, opened with a float and closed with the cash counted: the close-out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Round
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.db_roles import CLOSED_ONCE

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

#: What the close writes on the open row: the only columns the app may UPDATE, and only while
#: the row is open (bingo/migrations/0024's trigger; the app's grant, bingo/common/db_roles.py).
CLOSE_COLUMNS = CLOSED_ONCE["bingo_drawershift"]
#: The figures written at the close, all at once (an open drawer has none of them).
CLOSE_FIGURES = tuple(name for name in CLOSE_COLUMNS if name not in ("closed_by_id", "closed_at", "note"))
#: The longest note a cashier writes at the close (why the count differs, say).
NOTE_MAX_LENGTH = 500
#: The figures that are never negative (the others are their sums and differences).
_NOT_NEGATIVE = (
    "cash_received", "change_given", "prizes_gross", "tax_withheld", "deposits", "withdrawals", "refunds",
)  # fmt: skip


def _money(label: StrOrPromise) -> models.DecimalField:  # type: ignore[type-arg]
    # Sums of a shift's movements: two more digits than one movement's column.
    return models.DecimalField(label, max_digits=16, decimal_places=2, null=True, blank=True)


class DrawerShift(models.Model):
    """One shift of a cash desk's drawer: opened by a cashier with an opening float, closed with
    the cash counted. Every cash movement at the desk in [``opened_at``, ``closed_at``) is counted:
    the sales' cash received and change given, the prizes paid (gross, tax withheld, net; R8,
    R50, R61 g)), the wallets' deposits and withdrawals, the refunds of its sales (R55, R57).
    The close freezes them in the row with the expected cash and the over/short, and the row is
    never changed again.

    At most one open drawer per desk (a partial unique constraint). The database holds the sums
    (CheckConstraints) and, on PostgreSQL, refuses any UPDATE of a closed row and any DELETE or
    TRUNCATE (``bingo/migrations/0024``).
    """

    cash_desk = models.ForeignKey(
        "halls.CashDesk", verbose_name=_("cash desk"), on_delete=models.PROTECT, related_name="drawer_shifts"
    )
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("opened by"), on_delete=models.PROTECT, related_name="+"
    )
    opened_at = models.DateTimeField(_("opened at"))
    opening_float = models.DecimalField(_("opening float"), max_digits=14, decimal_places=2)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("closed by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    note = models.CharField(_("note"), max_length=NOTE_MAX_LENGTH, blank=True)
    cash_received = _money(_("cash received"))
    change_given = _money(_("change given"))
    net_sales = _money(_("net sales"))
    prizes_gross = _money(_("prizes paid (gross)"))
    tax_withheld = _money(_("tax withheld"))
    prizes_net = _money(_("prizes paid in cash"))
    deposits = _money(_("wallet deposits"))
    withdrawals = _money(_("wallet withdrawals"))
    # R55, R57: the cash handed back at the desk for its sales of a suspended or annulled game.
    refunds = _money(_("refunds paid"))
    expected_cash = _money(_("expected cash"))
    counted_cash = _money(_("counted cash"))
    over_short = _money(_("over/short"))

    class Meta:
        verbose_name = _("drawer shift")
        verbose_name_plural = _("drawer shifts")
        ordering = ("-opened_at", "-pk")
        constraints = [
            models.UniqueConstraint(
                fields=["cash_desk"], condition=Q(closed_at__isnull=True), name="drawer_one_open_per_desk"
            ),
            models.CheckConstraint(
                condition=Q(opening_float__gte=0, opening_float__lte=bounds.AMOUNT_MAX),
                name="drawer_float_in_bounds",
            ),
            # Open: nothing of the close. Closed: all of it, after the opening, the count in bounds.
            models.CheckConstraint(
                condition=Q(closed_at__isnull=True, closed_by__isnull=True, note="")
                & Q(**{f"{name}__isnull": True for name in CLOSE_FIGURES})
                | Q(
                    closed_at__gte=F("opened_at"),
                    closed_by__isnull=False,
                    counted_cash__gte=0,
                    counted_cash__lte=bounds.AMOUNT_MAX,
                    **{f"{name}__isnull": False for name in CLOSE_FIGURES},
                    **{f"{name}__gte": 0 for name in _NOT_NEGATIVE},
                ),
                name="drawer_open_or_closed_whole",
            ),
            # The sums (rounded to the cent: SQLite computes decimals as floats).
            models.CheckConstraint(
                condition=Q(closed_at__isnull=True)
                | Q(
                    net_sales=Round(F("cash_received") - F("change_given"), 2),
                    prizes_net=Round(F("prizes_gross") - F("tax_withheld"), 2),
                    expected_cash=Round(
                        F("opening_float")
                        + F("net_sales")
                        - F("prizes_net")
                        + F("deposits")
                        - F("withdrawals")
                        - F("refunds"),
                        2,
                    ),
                    over_short=Round(F("counted_cash") - F("expected_cash"), 2),
                ),
                name="drawer_figures_add_up",
            ),
        ]
        indexes = [models.Index(fields=["cash_desk", "opened_at"])]

    def __str__(self) -> str:
        return f"{self.cash_desk} {self.opened_at:%Y-%m-%d %H:%M}"

    @property
    def is_open(self) -> bool:
        return self.closed_at is None
