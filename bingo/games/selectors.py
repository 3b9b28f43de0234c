"""Reads of sessions and games, per hall."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection
from django.db.models import Max, Min, Prefetch, QuerySet, Sum, prefetch_related_objects

from bingo.common import rows
from bingo.common.roles import Role
from bingo.engine import Variant
from bingo.engine.draw import ball_label
from bingo.games.exports import game_export_data
from bingo.models import Game, GameSeries, PrizeKind, PrizePayment, PrizeWinner, Sale, Session
from cards.models import CardSet
from halls.models import Hall, JackpotMovement, Room
from halls.selectors import hall_list_for

# --- sessions and games, per hall ----------------------------------------------------------------


def session_list_for(user: AbstractBaseUser | AnonymousUser, *roles: Role) -> QuerySet[Session]:
    """The sessions of the halls where ``user`` holds one of ``roles``, newest first, with their
    room, hall and opener joined and their games prefetched in number order."""
    return (
        Session.objects.filter(room__hall__in=hall_list_for(user, *roles))
        .select_related("room__hall", "opened_by")
        .prefetch_related(Prefetch("games", queryset=Game.objects.order_by("number")))
        .order_by("-starts_at", "-pk")
    )


def game_list_for(user: AbstractBaseUser | AnonymousUser, *roles: Role) -> QuerySet[Game]:
    """The games of the halls where ``user`` holds one of ``roles``, with their session, room and
    hall joined and the series on sale prefetched in position order."""
    return (
        Game.objects.filter(session__room__hall__in=hall_list_for(user, *roles))
        .select_related("session__room__hall")
        .prefetch_related(
            Prefetch("on_sale", queryset=GameSeries.objects.select_related("series").order_by("position"))
        )
        .order_by("session", "number")
    )


# A game with its session, room and hall, written out for PostgreSQL: compiling the queryset
# (its joins and the model's ordering) cost the desk's sale more than the rest of its view.
_GAME_JOINED = f"""
SELECT {rows.columns(Game, "g")}, {rows.columns(Session, "s")}, {rows.columns(Room, "r")},
       {rows.columns(Hall, "h")}
  FROM bingo_game g
  JOIN bingo_session s ON s.id = g.session_id
  JOIN halls_room r ON r.id = s.room_id
  JOIN halls_hall h ON h.id = r.hall_id
 WHERE g.id = %s
"""  # noqa: S608 - the models' column names, no input


def game_get_joined(*, game_id: int, series: bool = True) -> Game | None:
    """Game ``game_id`` with its session, room and hall joined (and, with ``series``, its series
    on sale prefetched in position order, as ``game_list_for``); None when there is none."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_GAME_JOINED, [game_id])
            row = cursor.fetchone()
        if row is None:
            return None
        game, session, room, hall = rows.instances(row, Game, Session, Room, Hall)
        assert isinstance(game, Game)
        assert isinstance(session, Session)
        assert isinstance(room, Room)
        room.hall = hall  # type: ignore[assignment]
        session.room = room
        game.session = session
    else:
        try:
            game = Game.objects.select_related("session__room__hall").get(pk=game_id)
        except Game.DoesNotExist:
            return None
    if series:
        prefetch_related_objects(
            [game],
            Prefetch("on_sale", queryset=GameSeries.objects.select_related("series").order_by("position")),
        )
    return game


def session_card_set_list(*, session: Session) -> QuerySet[CardSet]:
    """The card sets of the series played in ``session``, by id: what an inspector regenerates
    and compares with their fingerprints (R14)."""
    return CardSet.objects.filter(series__games__game__session=session).distinct().order_by("pk")


@dataclass(frozen=True)
class SeriesSold:
    """The cards of one series a game has sold so far, numbered ``first`` to ``last`` (R36-R38)."""

    label: str
    cards: int
    first: int | None
    last: int | None


def game_series_sold(*, game: Game) -> list[SeriesSold]:
    """Each series on sale in ``game`` (first, then the one its sale rolled into, R38) with the
    cards sold so far: two queries."""
    sold: dict[int, tuple[int, int, int]] = {
        series_id: (cards, first, last)
        for series_id, cards, first, last in Sale.objects.filter(game_id=game.pk)
        .order_by()
        .values("series_id")
        .annotate(cards=Sum("quantity"), first=Min("first_number"), last=Max("last_number"))
        .values_list("series_id", "cards", "first", "last")
    }
    out = []
    for entry in GameSeries.objects.filter(game_id=game.pk).select_related("series").order_by("position"):
        cards, first, last = sold.get(entry.series_id, (0, None, None))
        out.append(SeriesSold(entry.series.label, cards, first, last))
    return out


def session_prizes_paid(*, session: Session) -> dict[int, Decimal]:
    """What the cash desks paid out of each game's prizes in ``session`` (gross, before tax), by game id."""
    rows = (
        PrizePayment.objects.filter(winner__prize__game__session=session)
        .values("winner__prize__game_id")
        .annotate(total=Sum("gross"))
    )
    return {row["winner__prize__game_id"]: row["total"] for row in rows}


# --- a game's results, once it has ended -----------------------------------------------------------


@dataclass(frozen=True)
class PaymentMade:
    """How a winning card's share was paid: in cash at a desk by a cashier (R8, R50), or into the
    buyer's wallet by the system (R97, ``online``)."""

    online: bool
    desk: str
    cashier: str
    paid_at: datetime
    gross: Decimal
    tax_withheld: Decimal
    net: Decimal


@dataclass(frozen=True)
class WinningCard:
    """One winning card of a prize (R49: with the ball that completed it), its share (R6) and
    its payment; None while the share is still due."""

    series: str
    number: int
    completed_at_ball: int
    share: Decimal
    payment: PaymentMade | None


@dataclass(frozen=True)
class PrizeResult:
    """A prize awarded, as the acta recorded it (R6, R61 f-g): at which ball, its total, the
    equal share of each winning card and what rounding down left (SPEC §2)."""

    kind: str
    name: str
    ball_count: int
    total: Decimal
    amount_each: Decimal
    remainder: Decimal
    tax_each: Decimal
    cards: tuple[WinningCard, ...]


@dataclass(frozen=True)
class JackpotMove:
    """A movement of the hall's jackpot this game caused: its contribution (R10), a win and the
    reset to the base value (R9, R11), the contribution given back on annulment (R57)."""

    kind: str
    name: str
    amount: Decimal
    balance_after: Decimal
    at: datetime


@dataclass(frozen=True)
class GameResults:
    """Everything a finished or annulled game's results page shows."""

    #: The game with its session, room and hall.
    game: Game
    #: The game as the acta recorded it (``bingo.games.exports.game_export_data``).
    record: dict[str, Any]
    #: Every ball in drawing order (R42), with its label (R77: the letter in 75-ball games).
    balls: tuple[tuple[int, str], ...]
    prizes: tuple[PrizeResult, ...]
    jackpot: tuple[JackpotMove, ...]

    @property
    def currency(self) -> str:
        return self.game.session.room.hall.currency

    @property
    def cards(self) -> tuple[WinningCard, ...]:
        return tuple(card for prize in self.prizes for card in prize.cards)

    @property
    def paid(self) -> Decimal:
        """The shares paid so far, gross (before the tax withheld)."""
        return sum((c.payment.gross for c in self.cards if c.payment is not None), Decimal(0))

    @property
    def due(self) -> Decimal:
        """The shares not yet paid."""
        return sum((c.share for c in self.cards if c.payment is None), Decimal(0))

    @property
    def cards_due(self) -> int:
        return sum(1 for c in self.cards if c.payment is None)


def _payment_made(winner: PrizeWinner) -> PaymentMade | None:
    payment: PrizePayment | None = getattr(winner, "payment", None)  # None: not paid yet
    if payment is None:
        return None
    return PaymentMade(
        online=payment.cash_desk is None,
        desk=payment.cash_desk.name if payment.cash_desk else "",
        cashier=payment.cashier.get_username() if payment.cashier else "",
        paid_at=payment.paid_at,
        gross=payment.gross,
        tax_withheld=payment.tax_withheld,
        net=payment.net,
    )


def game_results_get(*, game: Game) -> GameResults:
    """The results of ``game`` once it has ended (finished or annulled, R59): its record in the
    acta (``game_export_data``: the balls in order, each prize with its total, equal shares and
    remainder, the sales and refunds), every winning card with its payment (where, by whom,
    when) or its share still due, and the jackpot's movements. A fixed number of queries,
    whatever the prizes, winners and payments."""
    record = game_export_data(game=game)
    winners = (
        PrizeWinner.objects.filter(prize__game_id=game.pk)
        .select_related("prize", "series", "payment__cash_desk", "payment__cashier")
        .order_by("series__order_number", "card_number")
    )
    cards: dict[str, list[WinningCard]] = defaultdict(list)
    for winner in winners:
        cards[winner.prize.kind].append(
            WinningCard(
                series=winner.series.label,
                number=winner.card_number,
                completed_at_ball=winner.completed_at_ball,
                share=winner.amount,
                payment=_payment_made(winner),
            )
        )
    prizes = tuple(
        PrizeResult(
            kind=prize["kind"],
            name=str(PrizeKind(prize["kind"]).label),
            ball_count=prize["ball_count"],
            total=Decimal(prize["total"]),
            amount_each=Decimal(prize["amount_each"]),
            remainder=Decimal(prize["remainder"]),
            tax_each=Decimal(prize["tax_each"]),
            cards=tuple(cards[prize["kind"]]),
        )
        for prize in record["prizes"]
    )
    moves = tuple(
        JackpotMove(m.kind, str(m.get_kind_display()), m.amount, m.balance_after, m.created_at)
        for m in JackpotMovement.objects.filter(game_id=game.pk).order_by("pk")
    )
    variant = Variant(game.variant)
    return GameResults(
        game=game,
        record=record,
        balls=tuple((n, ball_label(variant, n)) for n in record["balls"]),
        prizes=prizes,
        jackpot=moves,
    )
