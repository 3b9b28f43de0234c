"""Reads of the drawer: the cash that went through a desk in a window, and the close-outs.

``drawer_figures`` is the one computation of a drawer's cash: the live preview of an open drawer,
the figures its close freezes (``bingo.drawers.services.drawer_close``), the report of any date
and time range, and the desk's shift report (``bingo.sales``) all read it. Four queries, whatever
the volume.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Q, QuerySet, Sum
from django.utils.translation import gettext_lazy

from bingo.common.money import money_display
from bingo.common.roles import Role
from bingo.models import DrawerShift, PrizePayment, Refund, Sale, WalletEntry
from halls.models import CashDesk
from halls.selectors import hall_list_for

ZERO = Decimal("0.00")

#: Who sees a desk's close-outs: its hall's cashiers (their desk's drawer) and managers (every desk).
DRAWER_ROLES = (Role.CASHIER, Role.MANAGER)


@dataclass(frozen=True)
class DrawerFigures:
    """The cash of one desk's drawer over a window, as a bingo POS's session summary gives it:
    the beginning bank (the opening float), the sales (cash received less the change given back),
    the prizes paid in cash (gross, less the tax withheld, R61 g)), the wallets' deposits and
    withdrawals at the desk, the cash expected, and once counted the over/short.

    The counts (``sales`` ...) are None for a closed drawer's frozen figures, which keep the money only.
    """

    currency: str
    opening_float: Decimal
    cash_received: Decimal
    change_given: Decimal
    prizes_gross: Decimal
    tax_withheld: Decimal
    deposits: Decimal
    withdrawals: Decimal
    #: R55, R57: the cash handed back at the desk for its sales of a suspended or annulled game.
    refunds: Decimal
    counted_cash: Decimal | None = None
    sales: int | None = None
    cards: int | None = None
    payments: int | None = None
    deposit_count: int | None = None
    withdrawal_count: int | None = None

    @property
    def net_sales(self) -> Decimal:
        return self.cash_received - self.change_given

    @property
    def prizes_net(self) -> Decimal:
        return self.prizes_gross - self.tax_withheld

    @property
    def expected_cash(self) -> Decimal:
        """Float + net sales - prizes paid in cash + deposits - withdrawals - refunds."""
        return (
            self.opening_float
            + self.net_sales
            - self.prizes_net
            + self.deposits
            - self.withdrawals
            - self.refunds
        )

    @property
    def over_short(self) -> Decimal | None:
        """Counted less expected: over when positive, short when negative; None until counted."""
        return None if self.counted_cash is None else self.counted_cash - self.expected_cash


def drawer_figures(
    *,
    cash_desk: CashDesk,
    start: datetime,
    end: datetime,
    opening_float: Decimal = ZERO,
    cashier_id: int | None = None,
    counted_cash: Decimal | None = None,
) -> DrawerFigures:
    """The cash that went through ``cash_desk`` in [``start``, ``end``) (by ``cashier_id`` only
    when given): every sale request at the desk counted once, with the cash handed over for it
    (a request spanning two series, R38, is two ledger rows of one ``cash_received``) and the
    change given back; the prizes paid there (R8, R50); the refunds of its sales (R55, R57); the
    wallets' deposits and withdrawals there. A request belongs to the window its first row was
    written in."""
    window = {"cash_desk": cash_desk}
    firsts = Sale.objects.filter(part=1, created_at__gte=start, created_at__lt=end, **window)
    payments = PrizePayment.objects.filter(paid_at__gte=start, paid_at__lt=end, **window)
    moves = WalletEntry.objects.filter(
        created_at__gte=start,
        created_at__lt=end,
        kind__in=(WalletEntry.Kind.DEPOSIT, WalletEntry.Kind.WITHDRAWAL),
        **window,
    )
    if cashier_id is not None:
        firsts = firsts.filter(cashier_id=cashier_id)
        payments = payments.filter(cashier_id=cashier_id)
        moves = moves.filter(recorded_by_id=cashier_id)
    # One statement for the sales, so that a sale committing meanwhile is in all their figures
    # or in none (two reads could see its cards and not its cash: a negative change).
    sold = Sale.objects.filter(request_key__in=firsts.values("request_key"), **window).aggregate(
        cash=Sum("cash_received", filter=Q(part=1)),
        requests=Count("pk", filter=Q(part=1)),
        amount=Sum("amount"),
        cards=Sum("quantity"),
    )
    # R55, R57: a desk sale's refund is cash handed back at the desk.
    refunds = Refund.objects.filter(sale__cash_desk=cash_desk, created_at__gte=start, created_at__lt=end)
    if cashier_id is not None:
        refunds = refunds.filter(sale__cashier_id=cashier_id)
    refunded = refunds.aggregate(total=Sum("amount"))["total"] or ZERO
    paid = payments.aggregate(gross=Sum("gross"), tax=Sum("tax_withheld"), count=Count("pk"))
    by_kind = {
        row["kind"]: (abs(row["total"]), row["count"])
        for row in moves.values("kind").annotate(total=Sum("amount"), count=Count("pk")).order_by()
    }
    cash = sold["cash"] or ZERO
    deposits, deposit_count = by_kind.get(WalletEntry.Kind.DEPOSIT, (ZERO, 0))
    withdrawals, withdrawal_count = by_kind.get(WalletEntry.Kind.WITHDRAWAL, (ZERO, 0))
    return DrawerFigures(
        currency=cash_desk.hall.currency,
        opening_float=opening_float,
        cash_received=cash,
        change_given=cash - (sold["amount"] or ZERO),
        prizes_gross=paid["gross"] or ZERO,
        tax_withheld=paid["tax"] or ZERO,
        deposits=deposits,
        withdrawals=withdrawals,
        refunds=refunded,
        counted_cash=counted_cash,
        sales=sold["requests"],
        cards=sold["cards"] or 0,
        payments=paid["count"],
        deposit_count=deposit_count,
        withdrawal_count=withdrawal_count,
    )


#: The figures a closed drawer keeps (the others are their sums).
_FROZEN = (
    "cash_received",
    "change_given",
    "prizes_gross",
    "tax_withheld",
    "deposits",
    "withdrawals",
    "refunds",
    "counted_cash",
)


def shift_figures(*, shift: DrawerShift, now: datetime) -> DrawerFigures:
    """A drawer's figures: a closed one's as its close froze them; an open one's live, from its
    opening to ``now`` (the preview of its close)."""
    if shift.closed_at is None:
        return drawer_figures(
            cash_desk=shift.cash_desk, start=shift.opened_at, end=now, opening_float=shift.opening_float
        )
    frozen = {name: getattr(shift, name) for name in _FROZEN}
    return DrawerFigures(currency=shift.cash_desk.hall.currency, opening_float=shift.opening_float, **frozen)


#: The figures of a drawer in the order of a POS session summary, with their labels; the counted
#: cash and the over/short only once counted.
FIGURE_LABELS = (
    ("opening_float", gettext_lazy("Opening float")),
    ("cash_received", gettext_lazy("Cash received from sales")),
    ("change_given", gettext_lazy("Change given")),
    ("net_sales", gettext_lazy("Net sales")),
    ("prizes_gross", gettext_lazy("Prizes paid (gross)")),
    ("tax_withheld", gettext_lazy("Tax withheld")),
    ("prizes_net", gettext_lazy("Prizes paid in cash")),
    ("deposits", gettext_lazy("Wallet deposits")),
    ("withdrawals", gettext_lazy("Wallet withdrawals")),
    ("refunds", gettext_lazy("Refunds paid")),
    ("expected_cash", gettext_lazy("Expected cash")),
    ("counted_cash", gettext_lazy("Counted cash")),
    ("over_short", gettext_lazy("Over (+) / short (-)")),
)


@dataclass(frozen=True)
class FigureLine:
    """One line of a drawer's summary: its key (the screen's and the tests' handle), label, amount."""

    key: str
    label: str
    amount: Decimal
    display: str


def figure_lines(figures: DrawerFigures, *, with_float: bool = True) -> list[FigureLine]:
    """``figures`` as the summary's lines, money as ``money_display`` writes it in ``style``;
    without the opening float's line for a report of a range, which has none."""
    lines = []
    for key, label in FIGURE_LABELS:
        amount = getattr(figures, key)
        if amount is not None and (with_float or key != "opening_float"):
            lines.append(FigureLine(key, str(label), amount, money_display(amount, figures.currency)))
    return lines


# --- the close-outs --------------------------------------------------------------------------------


def drawer_shift_list_for(user: AbstractBaseUser | AnonymousUser) -> QuerySet[DrawerShift]:
    """The drawers of the desks of the halls where ``user`` is a cashier or a manager, newest
    first, desk, hall and people joined."""
    return DrawerShift.objects.filter(cash_desk__hall__in=hall_list_for(user, *DRAWER_ROLES)).select_related(
        "cash_desk__hall", "opened_by", "closed_by"
    )


def drawer_open_get(*, cash_desk: CashDesk) -> DrawerShift | None:
    """The open drawer of ``cash_desk``, if it has one (never more than one)."""
    return (
        DrawerShift.objects.filter(cash_desk=cash_desk, closed_at__isnull=True)
        .select_related("cash_desk__hall", "opened_by")
        .first()
    )
