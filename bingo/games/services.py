"""Writes of sessions and games: opening and closing sessions, adding games, opening and closing
their sales (R32-R33, R40), and the double cards' second game (R15).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from actas import services as acta_services
from actas.audit.models import AuditAction
from actas.audit.services import audit_record
from bingo.common import bounds
from bingo.common.engine_messages import validation_error
from bingo.common.money import money_display, quantum_for
from bingo.draw import detection
from bingo.engine import Variant
from bingo.engine.detection import PrizeRules, PrizeRulesError
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
    sales_closed_announcement,
    sales_open_announcement,
    second_series_validate,
)
from bingo.games import doubles
from bingo.jackpot import services as jackpot_services
from bingo.live import events
from bingo.models import Game, GameSeries, OnlineRoom, Session
from cards.models import CardSet, Series
from cards.selectors import series_stock
from halls.models import Hall, Room

#: How each prize is named in announcements.
PRIZE_NAMES = {
    PrizeKind.LINE: gettext_lazy("Line prize"),
    PrizeKind.BINGO: gettext_lazy("Bingo prize"),
    PrizeKind.FOUR_CORNERS: gettext_lazy("Four corners prize"),
    PrizeKind.COLUMN: gettext_lazy("Column prize"),
}


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
    # A day's play at most, opened at most a year ahead (bingo.common.bounds): no session then
    # reaches a date beyond what the database's timestamps and Python's datetimes hold.
    if scheduled_end - starts_at > bounds.SESSION_MAX_LENGTH:
        raise ValidationError(
            {
                "scheduled_end": _("A session lasts at most %(hours)d hours.")
                % {"hours": bounds.SESSION_MAX_LENGTH // timedelta(hours=1)}
            }
        )
    if starts_at > timezone.now() + bounds.SESSION_MAX_AHEAD:
        raise ValidationError({"starts_at": _("A session is opened at most a year ahead.")})
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


def session_close(*, session: Session, user: User | None = None) -> Session:
    """End ``session``: every game in it must be finished, annulled, or never opened; ``user``
    (None: the system) is recorded in the audit trail."""
    with transaction.atomic():
        session = Session.objects.select_for_update().select_related("room").get(pk=session.pk)
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
        # R61 h): the end closes the acta, chained, with the ball sets' record as it stands.
        acta_services.acta_session_close_record(session=session, user=user)
        # R61: the session row keeps when it ended, not who ended it.
        audit_record(
            user=user, hall_id=session.room.hall_id, action=AuditAction.SESSION_CLOSED, session=session
        )
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
    chosen, plan, rules = game_plan_check(
        variant=variant,
        prize_plan=prize_plan,
        jackpot_active=hall.jackpot_active,
        line_kinds=line_kinds,
        pattern=pattern,
    )
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


def game_plan_check(
    *,
    variant: str,
    prize_plan: dict[str, str] | None,
    jackpot_active: bool,
    line_kinds: list[str] | None = None,
    pattern: str | None = None,
) -> tuple[Variant, PrizePlan, PrizeRules]:
    """The variant, prize plan (the variant's default when None; refused unless it meets R7)
    and winning rules of a game, as ``game_create`` takes them; ValidationError says what is
    wrong. Online rooms check their continuous games' plan with it too (R85)."""
    try:
        chosen = Variant(variant)
    except ValueError:
        raise ValidationError(_("Unknown variant: %(v)s.") % {"v": variant}) from None
    plan = default_plan(chosen) if prize_plan is None else _plan_from(prize_plan)
    try:
        plan_validate(plan, jackpot_active=jackpot_active)
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
    return chosen, plan, rules


def _plan_from(shares: dict[str, str]) -> PrizePlan:
    try:
        return PrizePlan(tuple((PrizeKind(kind), Decimal(str(share))) for kind, share in shares.items()))
    except (ValueError, InvalidOperation):
        raise ValidationError(_("A prize plan names prizes and their share of sales in percent.")) from None


def game_open_sales(*, game: Game, series: list[Series], user: User | None = None) -> Game:
    """Put ``series`` on sale in ``game`` (the first, and optionally a second of the same price
    to roll into, R38) and record the announcement of R33; ``user`` goes in the audit trail."""
    if not 1 <= len(series) <= 2:
        raise ValidationError(_("Put one series on sale, and at most one more to continue in (R38)."))
    with transaction.atomic():
        game = (
            Game.objects.select_for_update(of=("self",)).select_related("session__room__hall").get(pk=game.pk)
        )
        hall = game.session.room.hall
        # R60: a game starts with its sale, not before the games that ended are in the acta.
        acta_services.acta_require_recorded(game=game)
        locked = list(Series.objects.select_for_update().filter(pk__in=[s.pk for s in series]).order_by("pk"))
        by_id = {s.pk: s for s in locked}
        chosen = [by_id[s.pk] for s in series]
        _move(game, GameState.SELLING)
        _check_doubles(game, chosen)
        for position, item in enumerate(chosen, start=1):
            _check_can_sell(game, hall, item, position, chosen[0])
        stocks = [series_stock(s) for s in chosen]
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
        audit_record(
            user=user,
            hall_id=hall.pk,
            action=AuditAction.SALES_OPENED,
            game=game,
            detail=", ".join(s.label for s in chosen),
        )
        # The room's displays move to the game now selling (R29, R33).
        transaction.on_commit(lambda: events.game_changed(game.pk))
    return game


def _check_can_sell(game: Game, hall: Hall, series: Series, position: int, first: Series) -> None:
    if series.hall_id != hall.pk:
        raise ValidationError(_("Series %(s)s belongs to another hall.") % {"s": series.label})
    # R85: an online room sells the series set aside for online play, and a hall only the others.
    online_room = OnlineRoom.objects.filter(room_id=game.session.room_id).exists()
    if online_room and not series.online:
        raise ValidationError(
            _("Series %(s)s is a hall series: an online room sells only online series (R85).")
            % {"s": series.label}
        )
    if series.online and not online_room:
        raise ValidationError(
            _("Series %(s)s is set aside for online play: it is sold only in an online room (R85).")
            % {"s": series.label}
        )
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
            second_series_validate(series_stock(first), series_stock(series))  # R38 a), b)
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


def game_play_doubles(*, game: Game, user: User | None = None) -> Game:
    """Make ``game`` the second game of the double cards the session's previous game sold (R15):
    the same cards play again, nothing is sold, and its sales close at once with the
    announcement of R40 (its prizes are worked out on the other half of the cards' price);
    ``user`` goes in the audit trail."""
    with transaction.atomic():
        game = (
            Game.objects.select_for_update(of=("self",)).select_related("session__room__hall").get(pk=game.pk)
        )
        previous = doubles.doubles_before(game)
        if previous is None:
            raise ValidationError(_("Game %(n)d has no double cards to play again.") % {"n": game.number - 1})
        # R60: the first game of the double cards is in the acta before the second starts.
        acta_services.acta_require_recorded(game=game)
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
        audit_record(
            user=user,
            hall_id=game.session.room.hall_id,
            action=AuditAction.DOUBLES_PLAYED,
            game=game,
            detail=str(previous.number),
        )
        game_close_sales(game=game, user=user)  # tells the displays, after commit
        game.refresh_from_db()
    return game


def game_close_sales(*, game: Game, user: User | None = None) -> Game:
    """Close the sales of ``game`` and record the announcement of R40: the cards sold of each
    series, the prize values and the jackpot's contribution; ``user`` goes in the audit trail."""
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
        audit_record(user=user, hall_id=hall.pk, action=AuditAction.SALES_CLOSED, game=game)
        if game.jackpot_active:
            # R10: 3 % of the prize money goes to the jackpot as the sale closes (game -> jackpot
            # lock order, as prize_award takes them).
            jackpot_services.jackpot_contribute(
                hall=hall, game_id=game.pk, amount=amounts.jackpot_contribution
            )
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
