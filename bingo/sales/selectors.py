"""Reads of selling: the price board (R29), the cashier's screen, receipts, the shift report and
the slips of the prizes paid at the desk (R50).

Each function does its joins and aggregates in a fixed, small number of queries (no N+1), so a
busy cash desk or a board refreshed after every sale stays cheap.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Q, QuerySet, Sum

from bingo.common.money import money_display, quantum_for
from bingo.common.roles import Role
from bingo.drawers.selectors import DrawerFigures, drawer_figures
from bingo.engine.payout import slip_code, slip_code_matches, slip_code_payment_id
from bingo.engine.prizes import PrizeKind, PrizePlan, PrizePlanError, prize_amounts
from bingo.games import doubles
from bingo.models import ENDED_STATES, Game, GameSeries, GameState, PrizePayment, Sale
from halls.models import CashDesk, StaffMembership

# --- the price board (R29) -----------------------------------------------------------------------


@dataclass(frozen=True)
class BoardSeries:
    """One series on sale in a game, as the board and the cashier screen show it."""

    series_id: int
    label: str
    position: int
    price: Decimal
    price_display: str
    cards_sold: int
    #: The next card number to be sold; None once the series is sold out.
    next_number: int | None
    remaining: int
    back_colour: str
    face_colour: str


@dataclass(frozen=True)
class BoardPrize:
    """A prize of the game's plan and what it is worth with the sales so far (R7, R10)."""

    kind: PrizeKind
    amount: Decimal
    display: str


@dataclass(frozen=True)
class BoardFigures:
    """Everything the price board of one game shows."""

    game_id: int
    game_number: int
    hall_name: str
    room_name: str
    currency: str
    state: str
    series: tuple[BoardSeries, ...]
    cards_sold: int
    total: Decimal
    prizes: tuple[BoardPrize, ...]
    jackpot_active: bool
    jackpot_contribution: Decimal

    @property
    def selling(self) -> bool:
        return self.state == GameState.SELLING.value

    @property
    def state_name(self) -> str:
        """The game's state as the board shows it when it is not selling: sales closed, drawing,
        finished, annulled (its real state, not «sales closed» for a game over)."""
        return str(GameState(self.state).label)

    @property
    def ended(self) -> bool:
        """Whether the game is over (finished or annulled): the board then links its results."""
        return self.state in ENDED_STATES

    @property
    def total_display(self) -> str:
        return money_display(self.total, self.currency)

    @property
    def jackpot_display(self) -> str:
        return money_display(self.jackpot_contribution, self.currency)

    def as_message(self) -> dict[str, Any]:
        """The figures as the board's websocket message (JSON: money as strings)."""
        return {
            "type": "board",
            "game": self.game_id,
            "state": self.state,
            "selling": self.selling,
            "ended": self.ended,
            "cards_sold": self.cards_sold,
            "total": f"{self.total:.2f}",
            "total_display": self.total_display,
            "series": [
                {
                    "label": s.label,
                    "price": f"{s.price:.2f}",
                    "price_display": s.price_display,
                    "cards_sold": s.cards_sold,
                    "next_number": s.next_number,
                    "remaining": s.remaining,
                }
                for s in self.series
            ],
            "prizes": [
                {"kind": p.kind.value, "amount": f"{p.amount:.2f}", "display": p.display} for p in self.prizes
            ],
            "jackpot_active": self.jackpot_active,
            "jackpot_contribution": f"{self.jackpot_contribution:.2f}",
            "jackpot_display": self.jackpot_display,
        }


def _plan(shares: dict[str, str]) -> PrizePlan | None:
    try:
        return PrizePlan(tuple((PrizeKind(kind), Decimal(str(share))) for kind, share in shares.items()))
    except (ValueError, InvalidOperation):
        return None


def game_series_list(*, game_id: int) -> QuerySet[GameSeries]:
    """The series on sale in a game, first then second (R38), with the series joined."""
    return GameSeries.objects.filter(game_id=game_id).select_related("series").order_by("position")


def game_board(*, game_id: int) -> BoardFigures | None:
    """The figures of a game's price board: the price and cards sold of each series, the sales
    total, each prize's value so far and the jackpot's share (R29); None if there is no such game.
    Four queries, whatever the sales."""
    game = Game.objects.select_related("session__room__hall").filter(pk=game_id).first()
    if game is None:
        return None
    return game_board_figures(game=game)


def game_board_figures(*, game: Game) -> BoardFigures:
    """``game_board`` of a game already read with its session, room and hall (as the room's
    display reads it after every ball): three queries."""
    game_id = game.pk
    hall = game.session.room.hall
    on_sale = list(game_series_list(game_id=game_id))
    sold = {
        row["series_id"]: (row["cards"] or 0, row["amount"] or Decimal("0"))
        for row in Sale.objects.filter(game_id=game_id)
        .values("series_id")
        .annotate(cards=Sum("quantity"), amount=Sum("amount"))
        .order_by()
    }
    total = sum((amount for _, amount in sold.values()), Decimal("0"))
    if game.doubles_of_id is not None:
        # R15: the second game of double cards sells nothing; its cards are those carried over.
        sold = {
            e.series_id: ((e.last_number or 0) - e.start_number + 1 if e.last_number else 0, Decimal("0"))
            for e in on_sale
        }
    series = tuple(
        _board_series(entry, sold.get(entry.series_id, (0, Decimal("0")))[0], hall.currency)
        for entry in on_sale
    )
    prizes: tuple[BoardPrize, ...] = ()
    jackpot = Decimal("0")
    plan = _plan(game.prize_plan)
    if plan is not None:
        try:
            base = doubles.prize_base(game, entries=on_sale, sales_total=total)
            amounts = prize_amounts(
                plan, base, jackpot_active=game.jackpot_active, quantum=quantum_for(hall.currency)
            )
        except PrizePlanError:
            pass  # a plan R7 refuses pays nothing; game_create never saves one
        else:
            prizes = tuple(
                BoardPrize(kind, value, money_display(value, hall.currency))
                for kind, value in amounts.amounts
            )
            jackpot = amounts.jackpot_contribution
    return BoardFigures(
        game_id=game.pk,
        game_number=game.number,
        hall_name=hall.name,
        room_name=game.session.room.name,
        currency=hall.currency,
        state=game.state,
        series=series,
        cards_sold=sum(cards for cards, _ in sold.values()),
        total=total,
        prizes=prizes,
        jackpot_active=game.jackpot_active,
        jackpot_contribution=jackpot,
    )


def _board_series(entry: GameSeries, cards_sold: int, currency: str) -> BoardSeries:
    s = entry.series
    return BoardSeries(
        series_id=s.pk,
        label=s.label,
        position=entry.position,
        price=s.price,
        price_display=money_display(s.price, currency),
        cards_sold=cards_sold,
        next_number=s.last_sold + 1 if s.last_sold < s.size else None,
        remaining=s.size - s.last_sold,
        back_colour=s.back_colour,
        face_colour=s.face_colour,
    )


# --- the cashier's screen ------------------------------------------------------------------------


def cashier_hall_ids(user: AbstractBaseUser | AnonymousUser) -> list[int]:
    """The ids of the halls where ``user`` works as a cashier."""
    if not user.is_authenticated:
        return []
    return list(
        StaffMembership.objects.filter(user_id=user.pk, role=Role.CASHIER.value).values_list(
            "hall_id", flat=True
        )
    )


def cashier_games(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Game]:
    """The games selling cards in the halls where ``user`` is a cashier, hall and room joined;
    not the online rooms' games, which sell only online (R85)."""
    return (
        Game.objects.filter(
            state=GameState.SELLING.value,
            session__room__hall_id__in=cashier_hall_ids(user),
            session__room__online__isnull=True,
        )
        .select_related("session__room__hall")
        .order_by("session__room__hall__name", "session__room__name", "session__starts_at", "number")
    )


def cashier_desks(user: AbstractBaseUser | AnonymousUser) -> QuerySet[CashDesk]:
    """The cash desks of the halls where ``user`` is a cashier."""
    return CashDesk.objects.filter(hall_id__in=cashier_hall_ids(user)).select_related("hall")


@dataclass(frozen=True)
class DeskTotals:
    """What one cash desk has sold in one game: cards, their value, the cash handed over for them
    and the change given back (``received - amount``)."""

    cards: int
    amount: Decimal
    sales: int
    received: Decimal = Decimal("0")

    @property
    def change(self) -> Decimal:
        return self.received - self.amount


def desk_game_totals(*, game_id: int, cash_desk_id: int) -> DeskTotals:
    """The cards and cash sold at ``cash_desk_id`` in ``game_id`` (one aggregate query). The cash
    received is each request's once: a request spanning two series (R38) is two rows of one
    ``cash_received``, counted on its first."""
    row = Sale.objects.filter(game_id=game_id, cash_desk_id=cash_desk_id).aggregate(
        cards=Sum("quantity"),
        amount=Sum("amount"),
        sales=Count("request_key", distinct=True),
        received=Sum("cash_received", filter=Q(part=1)),
    )
    return DeskTotals(
        row["cards"] or 0, row["amount"] or Decimal("0"), row["sales"] or 0, row["received"] or Decimal("0")
    )


def sale_receipt(*, request_key: str, cashier_id: int) -> list[Sale]:
    """The ledger rows of one sale by ``cashier_id`` (one per series, R38), series joined."""
    return list(
        Sale.objects.filter(request_key=request_key, cashier_id=cashier_id)
        .select_related("series", "game__session__room__hall")
        .order_by("part")
    )


# --- the shift report ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ShiftRange:
    """Consecutive cards of one series sold at the desk (a run of sales with no gap)."""

    first_number: int
    last_number: int

    @property
    def count(self) -> int:
        return self.last_number - self.first_number + 1


@dataclass(frozen=True)
class ShiftLine:
    """One series in one game sold at the desk: its ranges, cards and cash."""

    game_id: int
    game_number: int
    room_name: str
    series_label: str
    unit_price: Decimal
    ranges: tuple[ShiftRange, ...]
    cards: int
    amount: Decimal
    currency: str

    @property
    def unit_price_display(self) -> str:
        return money_display(self.unit_price, self.currency)

    @property
    def amount_display(self) -> str:
        return money_display(self.amount, self.currency)


@dataclass(frozen=True)
class ShiftReport:
    """The cards a cash desk sold since a moment, by game, series and range, and the cash that
    went through it: the sales' cash received and change given, the prizes paid, the wallets'
    deposits and withdrawals (``bingo.drawers.selectors.drawer_figures``, the close-out's own)."""

    cash_desk: CashDesk
    since: datetime
    lines: tuple[ShiftLine, ...]
    cards: int
    sales: int
    first_sale_at: datetime | None
    last_sale_at: datetime | None
    figures: DrawerFigures

    @property
    def cash_expected(self) -> Decimal:
        """What the drawer gained: net sales - prizes paid in cash + deposits - withdrawals."""
        return self.figures.expected_cash

    @property
    def cash_expected_display(self) -> str:
        return money_display(self.cash_expected, self.cash_desk.hall.currency)


def shift_report(
    *, cash_desk: CashDesk, since: datetime, now: datetime, cashier_id: int | None = None
) -> ShiftReport:
    """The shift report of ``cash_desk`` from ``since`` to ``now``, of every cashier or of
    ``cashier_id`` only: cards by game, series and range, and the cash expected with the prizes
    paid and the wallets' movements at the desk counted, as a close-out counts them."""
    found = Sale.objects.filter(cash_desk=cash_desk, created_at__gte=since, created_at__lt=now)
    if cashier_id is not None:
        found = found.filter(cashier_id=cashier_id)
    sales = list(
        found.select_related("series", "game__session__room").order_by(
            "game__session__starts_at", "game__number", "series_id", "first_number"
        )
    )
    lines: list[ShiftLine] = []
    for _key, group in itertools.groupby(sales, key=lambda sale: (sale.game_id, sale.series_id)):
        rows = list(group)
        ranges: list[ShiftRange] = []
        for sale in rows:
            if ranges and ranges[-1].last_number + 1 == sale.first_number:
                ranges[-1] = ShiftRange(ranges[-1].first_number, sale.last_number)
            else:
                ranges.append(ShiftRange(sale.first_number, sale.last_number))
        first = rows[0]
        lines.append(
            ShiftLine(
                game_id=first.game_id,
                game_number=first.game.number,
                room_name=first.game.session.room.name,
                series_label=first.series.label,
                unit_price=first.unit_price,
                ranges=tuple(ranges),
                cards=sum(sale.quantity for sale in rows),
                amount=sum((sale.amount for sale in rows), Decimal("0")),
                currency=cash_desk.hall.currency,
            )
        )
    times = [sale.created_at for sale in sales]
    return ShiftReport(
        cash_desk=cash_desk,
        since=since,
        lines=tuple(lines),
        cards=sum(line.cards for line in lines),
        sales=len({sale.request_key for sale in sales}),  # one sale may span two series (R38)
        first_sale_at=min(times, default=None),
        last_sale_at=max(times, default=None),
        figures=drawer_figures(cash_desk=cash_desk, start=since, end=now, cashier_id=cashier_id),
    )


# --- prizes paid at a desk (R50) -------------------------------------------------------------------


def desk_payment_list(*, cash_desk: CashDesk) -> QuerySet[PrizePayment]:
    """The prizes paid at ``cash_desk``, newest first, with their game, card and cashier joined."""
    return (
        PrizePayment.objects.filter(cash_desk=cash_desk)
        .select_related("winner__prize__game__session__room", "winner__series", "cashier")
        .order_by("-paid_at", "-pk")
    )


# --- the payout slip (R50) -----------------------------------------------------------------------


@dataclass(frozen=True)
class PayoutSlip:
    """What a desk paid for one winning card (R50): every prize of the card paid there, its
    sums, who paid it, where and when, and the code that finds the slip again.

    A card's prizes are paid at once (R50: once, after the game, R44; double cards after their
    second game, R45), so the card's desk payments are its payout.
    """

    code: str
    payments: tuple[PrizePayment, ...]
    gross: Decimal
    tax_withheld: Decimal
    net: Decimal

    @property
    def first(self) -> PrizePayment:
        return self.payments[0]

    @property
    def games(self) -> list[Game]:
        """The games the card won in, in order: one, or two for a double card (R15)."""
        seen: dict[int, Game] = {}
        for payment in self.payments:
            seen.setdefault(payment.winner.prize.game_id, payment.winner.prize.game)
        return list(seen.values())


def payout_slip_code(payment: PrizePayment) -> str:
    """The code printed on the slip of the payout whose first payment is ``payment``."""
    return slip_code(bytes(payment.winner.series.check_key), payment.pk)


def _card_desk_payments(*, series_id: int, card_number: int) -> list[PrizePayment]:
    return list(
        PrizePayment.objects.filter(
            winner__series_id=series_id, winner__card_number=card_number, cash_desk__isnull=False
        )
        .select_related("winner__prize__game__session__room__hall", "winner__series", "cash_desk", "cashier")
        .order_by("pk")
    )


def payout_slip_of(payment: PrizePayment) -> PayoutSlip:
    """The slip of the desk payout ``payment`` belongs to (one query)."""
    payments = tuple(
        _card_desk_payments(series_id=payment.winner.series_id, card_number=payment.winner.card_number)
    )
    return PayoutSlip(
        code=payout_slip_code(payments[0]),
        payments=payments,
        gross=sum((p.gross for p in payments), Decimal(0)),
        tax_withheld=sum((p.tax_withheld for p in payments), Decimal(0)),
        net=sum((p.net for p in payments), Decimal(0)),
    )


def payout_slip_get(*, code: str, hall_ids: Collection[int]) -> PayoutSlip | None:
    """The slip whose ``code`` was typed, if it is of a desk of one of ``hall_ids``; None for a
    malformed or wrong code and for another hall's slip alike, so a code tells nothing of the
    slips a person may not see."""
    payment_id = slip_code_payment_id(code)
    if payment_id is None:
        return None
    payment = (
        PrizePayment.objects.filter(pk=payment_id, cash_desk__hall_id__in=list(hall_ids))
        .select_related("winner__series")
        .first()
    )
    if payment is None or not slip_code_matches(bytes(payment.winner.series.check_key), payment.pk, code):
        return None
    return payout_slip_of(payment)
