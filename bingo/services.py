"""Writes of the games app: sessions, games, opening and closing sales, selling cards.

Every sale goes through ``sale_make``, whatever the caller (screen, API, simulation). It locks
the game row, then the series rows in id order, so concurrent cashiers queue on one game and no
card number is skipped or sold twice (R36); PostgreSQL also refuses overlapping card ranges.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Max, Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from bingo import detection, doubles
from bingo.common.money import money_display, quantum_for
from bingo.common.roles import Role
from bingo.engine import Variant
from bingo.engine.detection import PrizeRulesError
from bingo.engine.gamestate import GameState, IllegalTransition, transition
from bingo.engine.prizes import (
    PrizeKind,
    PrizePlan,
    PrizePlanError,
    default_plan,
    plan_validate,
    prize_amounts,
)
from bingo.engine.sales import (
    SaleError,
    SeriesStock,
    allocate,
    sales_closed_announcement,
    sales_open_announcement,
    second_series_validate,
)
from bingo.engine_messages import validation_error
from bingo.live import events
from bingo.models import Game, GameSeries, Sale, Session
from cards.models import CardSet, Series
from halls import services as hall_services
from halls.models import CashDesk, Hall, Room, StaffMembership

#: How each prize is named in announcements.
PRIZE_NAMES = {
    PrizeKind.LINE: gettext_lazy("Line prize"),
    PrizeKind.BINGO: gettext_lazy("Bingo prize"),
    PrizeKind.FOUR_CORNERS: gettext_lazy("Four corners prize"),
    PrizeKind.COLUMN: gettext_lazy("Column prize"),
}


def staff_has_role(*, user: User, hall_id: int, role: Role) -> bool:
    """Whether ``user`` works in hall ``hall_id`` in ``role`` (one hall's cashier has no say in another)."""
    return StaffMembership.objects.filter(user=user, hall_id=hall_id, role=role.value).exists()


def _move(game: Game, target: GameState) -> None:
    try:
        game.state = transition(GameState(game.state), target).value
    except IllegalTransition as exc:
        raise validation_error(exc) from None


def session_open(
    *,
    room: Room,
    starts_at: datetime,
    scheduled_end: datetime,
    user: User | None,
    jackpot_balls: int | None = None,
) -> Session:
    """Open a session in ``room`` from ``starts_at`` to ``scheduled_end``; with the hall's jackpot
    active, ``jackpot_balls`` is the number of balls within which a bingo wins it, fixed and
    announced now (R9)."""
    if scheduled_end <= starts_at:
        raise ValidationError(_("A session must end after it starts."))
    if jackpot_balls is not None:
        if not room.hall.jackpot_active:
            raise ValidationError(_("This hall's jackpot is not active (R9)."))
        if (
            isinstance(jackpot_balls, bool)
            or not isinstance(jackpot_balls, int)
            or not 1 <= jackpot_balls <= 90
        ):
            raise ValidationError(_("The jackpot is won within 1 to 90 balls (R9)."))
    return Session.objects.create(
        room=room,
        starts_at=starts_at,
        scheduled_end=scheduled_end,
        opened_by=user,
        jackpot_balls=jackpot_balls,
    )


def session_close(*, session: Session) -> Session:
    """End ``session``: every game in it must be finished, annulled, or never opened."""
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        if session.ended_at is not None:
            return session
        open_games = session.games.filter(
            state__in=[
                GameState.SELLING.value,
                GameState.SALES_CLOSED.value,
                GameState.DRAWING.value,
                GameState.SUSPENDED.value,  # solved or annulled with its refund first (R55)
            ]
        ).values_list("number", flat=True)
        if open_games:
            raise ValidationError(
                _("Games %(numbers)s have not ended.") % {"numbers": ", ".join(str(n) for n in open_games)}
            )
        if waiting := doubles.awaiting_second_game(session):
            raise ValidationError(
                _("Game %(n)d sold double cards: play their second game before the session ends (R15).")
                % {"n": waiting[0]}
            )
        session.ended_at = timezone.now()
        session.save(update_fields=["ended_at"])
    return session


def game_create(
    *,
    session: Session,
    variant: str,
    prize_plan: dict[str, str] | None = None,
    line_kinds: list[str] | None = None,
    pattern: str | None = None,
) -> Game:
    """Add the next numbered game to ``session``, with the variant's default prize plan or
    ``prize_plan`` (shares of sales in percent), refused unless it meets R7; ``line_kinds`` and
    ``pattern`` say what wins the line (R67, R75) and a 75-ball pattern bingo (R73 b))."""
    hall = session.room.hall
    try:
        chosen = Variant(variant)
    except ValueError:
        raise ValidationError(_("Unknown variant: %(v)s.") % {"v": variant}) from None
    plan = default_plan(chosen) if prize_plan is None else _plan_from(prize_plan)
    try:
        plan_validate(plan, jackpot_active=hall.jackpot_active)
    except PrizePlanError as exc:
        raise validation_error(exc) from None
    try:
        rules = detection.rules_from(
            chosen.value, [k.value for k, _share in plan.shares], line_kinds, pattern
        )
    except (PrizeRulesError, ValueError) as exc:
        if isinstance(exc, PrizeRulesError):
            raise validation_error(exc) from None
        raise ValidationError(_("Unknown kind of line.")) from None
    with transaction.atomic():
        Session.objects.select_for_update().get(pk=session.pk)
        number = (session.games.aggregate(n=Max("number"))["n"] or 0) + 1
        previous = session.games.filter(number=number - 1).first()
        if previous is not None and previous.variant != chosen.value and doubles.doubles_pending(previous):
            raise ValidationError(
                _("Game %(n)d sells double cards: the next one plays them again as a %(v)s-ball game (R15).")
                % {"n": previous.number, "v": previous.variant}
            )
        return Game.objects.create(
            session=session,
            number=number,
            variant=chosen.value,
            prize_plan={kind.value: str(share) for kind, share in plan.shares},
            jackpot_active=hall.jackpot_active,
            win_rules=detection.rules_json(rules),
        )


def _plan_from(shares: dict[str, str]) -> PrizePlan:
    try:
        return PrizePlan(tuple((PrizeKind(kind), Decimal(str(share))) for kind, share in shares.items()))
    except (ValueError, InvalidOperation):
        raise ValidationError(_("A prize plan names prizes and their share of sales in percent.")) from None


def game_open_sales(*, game: Game, series: list[Series]) -> Game:
    """Put ``series`` on sale in ``game`` (the first, and optionally a second of the same price
    to roll into, R38) and record the announcement of R33."""
    if not 1 <= len(series) <= 2:
        raise ValidationError(_("Put one series on sale, and at most one more to continue in (R38)."))
    with transaction.atomic():
        game = (
            Game.objects.select_for_update(of=("self",)).select_related("session__room__hall").get(pk=game.pk)
        )
        hall = game.session.room.hall
        locked = list(Series.objects.select_for_update().filter(pk__in=[s.pk for s in series]).order_by("pk"))
        by_id = {s.pk: s for s in locked}
        chosen = [by_id[s.pk] for s in series]
        _move(game, GameState.SELLING)
        _check_doubles(game, chosen)
        for position, item in enumerate(chosen, start=1):
            _check_can_sell(game, hall, item, position, chosen[0])
        stocks = [_stock(s) for s in chosen]
        for position, item in enumerate(chosen, start=1):
            # R37: the sale starts after the last card sold of the series, even the day before.
            GameSeries.objects.create(
                game=game, series=item, position=position, start_number=item.last_sold + 1
            )
            item.status = Series.Status.ON_SALE
            item.on_sale_in = game
            item.save(update_fields=["status", "on_sale_in"])
        game.price = chosen[0].price
        game.opening_announcement = sales_open_announcement(stocks[:1], currency=hall.currency)
        game.sales_opened_at = timezone.now()
        game.save(update_fields=["state", "price", "opening_announcement", "sales_opened_at"])
        # The room's displays move to the game now selling (R29, R33).
        transaction.on_commit(lambda: events.game_changed(game.pk))
    return game


def _check_can_sell(game: Game, hall: Hall, series: Series, position: int, first: Series) -> None:
    if series.hall_id != hall.pk:
        raise ValidationError(_("Series %(s)s belongs to another hall.") % {"s": series.label})
    if series.card_set.variant != game.variant:
        raise ValidationError(_("Series %(s)s holds cards of another variant.") % {"s": series.label})
    if series.card_set.status != CardSet.Status.READY or series.status in (
        Series.Status.RETIRED,
        Series.Status.EXHAUSTED,
    ):
        raise ValidationError(_("Series %(s)s cannot be sold.") % {"s": series.label})
    if (
        GameSeries.objects.filter(series=series, game__state=GameState.SELLING.value)
        .exclude(game=game)
        .exists()
    ):
        raise ValidationError(_("Series %(s)s is on sale in another game.") % {"s": series.label})
    if position == 2:
        try:
            second_series_validate(_stock(first), _stock(series))  # R38 a), b)
        except SaleError as exc:
            raise validation_error(exc) from None


def _check_doubles(game: Game, chosen: list[Series]) -> None:
    """R15: a game after one that sells double cards plays them (``game_play_doubles``) and
    sells nothing; double cards go on sale only where the next game can play them."""
    if (previous := doubles.doubles_before(game)) is not None:
        raise ValidationError(
            _("Game %(n)d sells double cards: this game plays them again and sells none (R15).")
            % {"n": previous.number}
        )
    if len({s.double for s in chosen}) > 1:
        raise ValidationError(_("Both series on sale must be double cards, or neither (R15, R38)."))
    if not chosen[0].double:
        return
    following = Game.objects.filter(session=game.session_id, number=game.number + 1).first()
    if following is not None and (
        following.state != GameState.PLANNED.value or following.variant != game.variant
    ):
        raise ValidationError(
            _("Double cards play this game and the next, and game %(n)d cannot play them (R15).")
            % {"n": following.number}
        )


def game_play_doubles(*, game: Game) -> Game:
    """Make ``game`` the second game of the double cards the session's previous game sold (R15):
    the same cards play again, nothing is sold, and its sales close at once with the
    announcement of R40 (its prizes are worked out on the other half of the cards' price)."""
    with transaction.atomic():
        game = (
            Game.objects.select_for_update(of=("self",)).select_related("session__room__hall").get(pk=game.pk)
        )
        previous = doubles.doubles_before(game)
        if previous is None:
            raise ValidationError(_("Game %(n)d has no double cards to play again.") % {"n": game.number - 1})
        previous = Game.objects.select_for_update(of=("self",)).get(pk=previous.pk)
        if previous.state != GameState.FINISHED.value:
            raise ValidationError(
                _("Game %(n)d must end before its double cards play their second game (R15).")
                % {"n": previous.number}
            )
        if previous.variant != game.variant:
            raise ValidationError(
                _("Double cards of a %(v)s-ball game play a %(v)s-ball game (R15).") % {"v": previous.variant}
            )
        entries = list(
            GameSeries.objects.filter(game=previous, carried=False, last_number__isnull=False)
            .select_related("series")
            .order_by("position")
        )
        _move(game, GameState.SELLING)
        GameSeries.objects.bulk_create(
            GameSeries(
                game=game,
                series=e.series,
                position=e.position,
                start_number=e.start_number,
                last_number=e.last_number,
                carried=True,
            )
            for e in entries
        )
        game.doubles_of = previous
        game.price = previous.price
        game.opening_announcement = _(
            "Second game of the double cards sold in game %(n)d (R15): they play again, none are sold."
        ) % {"n": previous.number}
        game.sales_opened_at = timezone.now()
        game.save(update_fields=["state", "doubles_of", "price", "opening_announcement", "sales_opened_at"])
        game_close_sales(game=game)  # tells the displays, after commit
        game.refresh_from_db()
    return game


def _stock(series: Series) -> SeriesStock:
    return SeriesStock(series.pk, series.label, series.size, series.last_sold, series.price)


@dataclass(frozen=True)
class SaleResult:
    """What a sale sold: its ledger rows (one per series), the total and the change to give back."""

    sales: tuple[Sale, ...]
    amount: Decimal
    change: Decimal

    @property
    def cards(self) -> int:
        return sum(s.quantity for s in self.sales)


def sale_make(
    *,
    game: Game,
    quantity: int,
    cash_desk: CashDesk,
    cashier: User,
    cash_received: Decimal | str,
    request_key: str,
    player: str = "",
) -> SaleResult:
    """Sell ``quantity`` cards of ``game`` in number order (R36-R38), for cash (R39).

    A retried request (same ``request_key``) returns the first one's result and sells nothing,
    even after the game has closed.
    """
    try:
        return _sale_make(game, quantity, cash_desk, cashier, cash_received, request_key, player)
    except ValidationError:
        # Refused now, but perhaps a retry of a sale that went through: answer as it did.
        if request_key and (done := _sale_done(request_key)) is not None:
            return done
        raise


def _sale_make(
    game: Game,
    quantity: int,
    cash_desk: CashDesk,
    cashier: User,
    cash_received: Decimal | str,
    request_key: str,
    player: str,
) -> SaleResult:
    if not request_key or len(request_key) > 64:
        raise ValidationError(_("Each sale needs a request key of 1 to 64 characters."))
    player = player.strip()
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
        raise ValidationError(_("Sell at least one card."))
    try:
        received = Decimal(str(cash_received))
        if not received.is_finite() or received < 0:
            raise InvalidOperation
    except InvalidOperation:
        raise ValidationError(_("The cash received must be an amount of money.")) from None
    # Checked before any lock (staff, desks and the game's series rarely change): the locked
    # section stays short.
    context = _sale_context(game.pk)
    hall_id = context.hall_id if context else _hall_of(game)
    if hall_id is None:
        raise ValidationError(_("There is no such game."))
    if cash_desk.hall_id != hall_id:
        raise ValidationError(_("This cash desk belongs to another hall."))
    if not staff_has_role(user=cashier, hall_id=hall_id, role=Role.CASHIER):
        raise ValidationError(_("Only a cashier of this hall can sell its cards."))
    try:
        result = None
        if context and not context.card_limit:
            result = _sell_fast(
                game.pk,
                context.series_id,
                context.price,
                quantity,
                cash_desk,
                cashier,
                received,
                request_key,
                player,
            )
        if result is None:
            with transaction.atomic():
                result = _sell(game, quantity, cash_desk, cashier, received, request_key, player)
    except IntegrityError:
        # A retried request (same key): its first copy's sale stands, and this one sold nothing.
        if (done := _sale_done(request_key)) is not None:
            return done
        raise
    transaction.on_commit(lambda: events.price_board_changed(game.pk))
    return result


#: Seconds a process keeps what it knows of a selling game (its first series, price, hall).
#: Staleness is harmless: the fast path's UPDATE checks the series row itself, and anything
#: unexpected falls back to the locked path, which reads everything afresh.
SALE_CONTEXT_SECONDS = 5.0
_sale_contexts: dict[int, tuple[float, SaleContext | None]] = {}


@dataclass(frozen=True)
class SaleContext:
    """What a sale needs to know of its game before taking any lock."""

    series_id: int
    price: Decimal
    hall_id: int
    card_limit: int | None


def _sale_context(game_id: int) -> SaleContext | None:
    """The game's first series, its price, and its hall's id and card limit (cached briefly)."""
    now = time.monotonic()
    cached = _sale_contexts.get(game_id)
    if cached is not None and now - cached[0] < SALE_CONTEXT_SECONDS:
        return cached[1]
    row = (
        GameSeries.objects.filter(game_id=game_id, position=1)
        .values_list(
            "series_id",
            "series__price",
            "game__session__room__hall_id",
            "game__session__room__hall__card_limit_per_player",
        )
        .first()
    )
    context = SaleContext(*row) if row else None
    if len(_sale_contexts) > 1000:
        _sale_contexts.clear()
    _sale_contexts[game_id] = (now, context)
    return context


def _hall_of(game: Game) -> int | None:
    return Game.objects.filter(pk=game.pk).values_list("session__room__hall_id", flat=True).first()


_TAKE_NUMBERS = """
    UPDATE cards_series
       SET last_sold = last_sold + %(quantity)s,
           status = CASE WHEN last_sold + %(quantity)s = size THEN 'exhausted' ELSE status END
     WHERE id = %(series)s AND on_sale_in_id = %(game)s AND status = 'on_sale'
       AND last_sold + %(quantity)s <= size
       AND NOT EXISTS (SELECT 1 FROM halls_hall
                        WHERE id = %(hall)s AND card_limit_per_player IS NOT NULL)
 RETURNING last_sold
"""

# PostgreSQL: the numbers and the ledger row in one statement. Run outside any transaction it
# commits by itself, so the series row lock (R36) is held only inside the server, for the
# statement and its commit, never across a round trip to a client that may be descheduled.
_TAKE_NUMBERS_AND_RECORD = (
    "WITH taken AS ("
    + _TAKE_NUMBERS
    + """)
INSERT INTO bingo_sale (game_id, series_id, first_number, last_number, quantity, unit_price,
                        amount, cash_desk_id, cashier_id, cash_received, player, request_key,
                        part, created_at)
SELECT %(game)s, %(series)s, last_sold - %(quantity)s + 1, last_sold, %(quantity)s, %(price)s,
       %(amount)s, %(desk)s, %(cashier)s, %(received)s, %(player)s, %(key)s, 1, %(now)s
  FROM taken
RETURNING id, first_number, last_number
"""
)


def _sell_fast(
    game_id: int,
    series_id: int,
    price: Decimal,
    quantity: int,
    desk: CashDesk,
    cashier: User,
    received: Decimal,
    key: str,
    player: str,
) -> SaleResult | None:
    """The common sale: the next ``quantity`` cards of the game's first series, taken with one
    conditional UPDATE that holds the series row lock until commit (R36). None when it does not
    apply: the series is short (R38 rollover), the game is not selling, the cash is short, or
    the hall limits cards per player (R35; the UPDATE reads the hall row itself, so a limit set
    since the cached context was read is never skipped); the locked path then decides, and
    explains any refusal."""
    amount = price * quantity
    if received < amount:
        return None
    params: dict[str, Any] = {
        "quantity": quantity,
        "series": series_id,
        "game": game_id,
        "price": price,
        "amount": amount,
        "desk": desk.pk,
        "hall": desk.hall_id,  # the game's hall: checked before
        "cashier": cashier.pk,
        "received": received,
        "player": player,
        "key": key,
        "now": timezone.now(),
    }
    if connection.vendor == "postgresql":
        # Inside a caller's transaction, a savepoint keeps a duplicate key from poisoning it.
        savepoint = transaction.atomic() if connection.in_atomic_block else contextlib.nullcontext()
        with savepoint, connection.cursor() as cursor:
            cursor.execute(_TAKE_NUMBERS_AND_RECORD, params)
            row = cursor.fetchone()
        if row is None:
            return None
        sale_id, first, last = row
    else:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(_TAKE_NUMBERS, params)
            taken = cursor.fetchone()
            if taken is None:
                return None
            last = int(taken[0])
            sale = Sale.objects.create(
                game_id=game_id, series_id=series_id, first_number=last - quantity + 1, last_number=last,
                quantity=quantity, unit_price=price, amount=amount, cash_desk=desk,
                cashier=cashier, cash_received=received, player=player, request_key=key, part=1,
            )  # fmt: skip
        return SaleResult((sale,), amount, received - amount)
    sale = Sale(
        id=sale_id,
        game_id=game_id,
        series_id=series_id,
        first_number=first,
        last_number=last,
        quantity=quantity,
        unit_price=price,
        amount=amount,
        cash_desk=desk,
        cashier=cashier,
        cash_received=received,
        player=player,
        request_key=key,
        part=1,
        created_at=params["now"],
    )
    sale._state.adding = False
    sale._state.db = connection.alias
    return SaleResult((sale,), amount, received - amount)


def _sale_done(request_key: str) -> SaleResult | None:
    rows = tuple(Sale.objects.filter(request_key=request_key).order_by("part"))
    if not rows:
        return None
    amount = sum((s.amount for s in rows), Decimal("0"))
    return SaleResult(rows, amount, rows[0].cash_received - amount)


def _sell(
    game: Game, quantity: int, desk: CashDesk, cashier: User, received: Decimal, key: str, player: str
) -> SaleResult:
    # Sales queue on the rows of the series on sale (R36: one number after another). Closing the
    # game takes the same locks, so the state read below, in a statement of its own after the
    # lock is granted, is the committed one: no sale slips into a closed game.
    on_sale = list(
        Series.objects.select_for_update(of=("self",))
        .filter(games__game_id=game.pk)
        .annotate(position=F("games__position"), start=F("games__start_number"))
        .order_by("pk")
    )
    game = Game.objects.select_related("session__room__hall").get(pk=game.pk)
    hall = game.session.room.hall
    if game.state != GameState.SELLING.value or not on_sale or game.doubles_of_id is not None:
        raise ValidationError(_("Game %(n)d is not selling cards.") % {"n": game.number})
    if hall.card_limit_per_player:
        # R35: the cap needs to know who buys.
        if not player:
            raise ValidationError(_("This hall limits cards per player (R35): say who is buying."))
        bought = game.sales.filter(player=player).aggregate(n=Sum("quantity"))["n"] or 0
        if bought + quantity > hall.card_limit_per_player:
            raise ValidationError(
                _("A player may buy at most %(limit)d cards in a game (R35); %(player)s has %(bought)d.")
                % {"limit": hall.card_limit_per_player, "player": player, "bought": bought}
            )
    on_sale.sort(key=lambda s: s.position)
    first = on_sale[0]
    if first.status == Series.Status.RETIRED:
        raise ValidationError(
            _("Series %(s)s was retired: its sale has stopped. Close this game's sales.") % {"s": first.label}
        )
    # A retired second series is no longer there to roll into (R38): the first one's cards only.
    second = on_sale[1] if len(on_sale) > 1 and on_sale[1].status != Series.Status.RETIRED else None

    try:
        blocks = allocate(quantity, _stock(first), first.start, _stock(second) if second else None)
    except SaleError as exc:
        raise validation_error(exc) from None
    price = first.price
    amount = price * quantity
    if received < amount:
        raise ValidationError(
            _("The cards cost %(amount)s; only %(received)s was received (cash only, no credit, R39).")
            % {"amount": amount, "received": received}
        )
    series = {s.pk: s for s in on_sale}
    rows = []
    for part, block in enumerate(blocks, start=1):
        s = series[block.series_id]
        s.last_sold = block.last_number
        if s.last_sold == s.size:
            s.status = Series.Status.EXHAUSTED
        s.save(update_fields=["last_sold", "status"])
        count = block.last_number - block.first_number + 1
        rows.append(
            Sale.objects.create(
                game=game,
                series=s,
                first_number=block.first_number,
                last_number=block.last_number,
                quantity=count,
                unit_price=s.price,
                amount=s.price * count,
                cash_desk=desk,
                cashier=cashier,
                cash_received=received,
                player=player,
                request_key=key,
                part=part,
            )
        )
    return SaleResult(tuple(rows), amount, received - amount)


def game_close_sales(*, game: Game) -> Game:
    """Close the sales of ``game`` and record the announcement of R40: the cards sold of each
    series, the prize values and the jackpot's contribution."""
    with transaction.atomic():
        # Same locks as sale_make (the game, then the series on sale): sales in flight finish
        # first and are counted; later ones see the game closed.
        game = (
            Game.objects.select_for_update(of=("self",)).select_related("session__room__hall").get(pk=game.pk)
        )
        hall = game.session.room.hall
        locked = {s.pk: s for s in Series.objects.select_for_update().filter(games__game=game).order_by("pk")}
        _move(game, GameState.SALES_CLOSED)
        entries = list(GameSeries.objects.filter(game=game).order_by("position"))
        for entry in entries:
            sold_to = locked[entry.series_id].last_sold
            if not entry.carried and sold_to >= entry.start_number:  # sold some in this game
                entry.last_number = sold_to
                entry.save(update_fields=["last_number"])
            entry.series = locked[entry.series_id]
        blocks = [
            (e.series.label, e.start_number, e.last_number) for e in entries if e.last_number is not None
        ]
        amounts = prize_amounts(
            _plan_from(game.prize_plan),
            doubles.prize_base(game, entries=entries),
            jackpot_active=game.jackpot_active,
            quantum=quantum_for(hall.currency),
        )
        lines = [sales_closed_announcement(blocks)] if blocks else [_("No cards were sold.")]
        if game.doubles_of_id is not None:
            lines.insert(0, game.opening_announcement)
        elif blocks and doubles.sells_doubles(game, entries):
            lines.append(
                _("Double cards: they also play the next game; their prizes are paid after it (R15, R45).")
            )
        for kind, value in amounts.amounts:
            lines.append(
                _("%(prize)s: %(value)s")
                % {"prize": PRIZE_NAMES[kind], "value": money_display(value, hall.currency)}
            )
        if game.jackpot_active:
            lines.append(
                _("To the progressive jackpot: %(value)s")
                % {"value": money_display(amounts.jackpot_contribution, hall.currency)}
            )
        game.closing_announcement = "\n".join(lines)
        game.sales_closed_at = timezone.now()
        # What rounding the prizes down to the escudo leaves over: kept, never lost (SPEC §2).
        game.prize_remainder = amounts.remainder
        game.save(update_fields=["state", "closing_announcement", "sales_closed_at", "prize_remainder"])
        if game.jackpot_active:
            # R10: 3 % of the prize money goes to the jackpot as the sale closes (game -> jackpot
            # lock order, as prize_award takes them).
            hall_services.jackpot_contribute(hall=hall, game_id=game.pk, amount=amounts.jackpot_contribution)
        for entry in entries:
            if entry.carried:
                continue  # R15: played again here, never put on sale
            s = locked[entry.series_id]
            s.on_sale_in = None
            if s.status == Series.Status.ON_SALE:
                s.status = Series.Status.IN_STOCK
            s.save(update_fields=["status", "on_sale_in"])
        # The displays show the final sales and prizes (R40); the boards that sales are closed.
        transaction.on_commit(lambda: events.game_changed(game.pk))
    return game
