"""Writes of sessions and games: opening and closing sessions, adding games, opening and closing
their sales (R32-R33, R40), and the double cards' second game (R15).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from actas import services as acta_services
from actas.audit.models import AuditAction
from actas.audit.services import audit_record
from actas.models import ActaNote
from bingo.ballsets import selectors as ballset_selectors
from bingo.ballsets import services as ballset_services
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
from bingo.games import doubles, locks
from bingo.jackpot import services as jackpot_services
from bingo.live import events
from bingo.models import Game, GameSeries, OnlineRoom, Session
from cards.models import CardSet, Series
from cards.selectors import series_stock
from halls.models import BallSetCheck, Hall, Room

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
    online: bool = False,
) -> Session:
    """Open a session in ``room`` from ``starts_at`` to ``scheduled_end``; with the hall's jackpot
    active, ``jackpot_balls`` is the number of balls within which a bingo wins it, fixed and
    announced now (R9).

    A hall session (the session screen, the API) is refused in an online room, whenever it
    starts: the online loop runs every session of that room as its own (``bingo/autodraw``),
    so it would sell and draw its games online, beside the room's continuous session or its
    scheduled ones. ``online``: a session of an online room, opened by the system (continuous
    mode, R90) or scheduled on the room's page (session mode, R91-R93, ``bingo.online``)."""
    is_online = OnlineRoom.serves(room.pk)
    if online and not is_online:
        raise ValueError(f"room {room.pk} is not an online room")
    if is_online and not online:
        raise ValidationError(
            {
                "room": _(
                    "%(room)s is an online room: the system opens its sessions (continuous mode, "
                    "R90) or they are scheduled on its page under Online rooms (session mode, R91); "
                    "a hall session cannot be opened in it."
                )
                % {"room": room.name}
            }
        )
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


def _end_checks_close(
    *,
    session: Session,
    user: User | None,
    end_checks: Mapping[int, Iterable[int]],
    missing_check_reason: str,
) -> None:
    """R23: record the end-of-session checks given (ball set id -> the balls that failed, none:
    every ball OK); any set still awaiting its check needs ``missing_check_reason``, written in
    the acta as an occurrence (R61 m)). Inside ``session_close``'s transaction."""
    awaited = {
        ball_set.pk: ball_set for ball_set in ballset_selectors.session_end_checks_awaited(session=session)
    }
    for ball_set_id, faulty_balls in end_checks.items():
        ball_set = awaited.pop(ball_set_id, None)
        if ball_set is None:
            raise ValidationError(
                {
                    "end_checks": _("Ball set #%(id)s awaits no end-of-session check in this session (R23).")
                    % {"id": ball_set_id}
                }
            )
        ballset_services.ball_set_check_record(
            ball_set=ball_set,
            session=session,
            phase=BallSetCheck.Phase.END,
            faulty_balls=faulty_balls,
            user=user,
        )
    if not awaited:
        return
    serials = ", ".join(ball_set.serial_number for ball_set in awaited.values())
    reason = missing_check_reason.strip()
    if len(reason) > bounds.REASON_MAX_LENGTH:
        raise ValidationError(
            {
                "missing_check_reason": _("Say it in at most %(n)d characters.")
                % {"n": bounds.REASON_MAX_LENGTH}
            }
        )
    if not reason:
        raise ValidationError(
            {
                "missing_check_reason": _(
                    "The end-of-session check of ball set %(sets)s is not recorded (R23: every ball "
                    "runs through the mechanism at the start and at the end of each session): "
                    "record it, or say why it could not be made."
                )
                % {"sets": serials}
            }
        )
    if user is None:
        raise ValidationError(
            _("A person of the hall closes a session whose end-of-session check was not made.")
        )
    # The acta is in the hall's language (R54), whoever writes it.
    with translation.override(settings.LANGUAGE_CODE):
        text = _("End-of-session check of ball set %(sets)s not made (R23): %(reason)s") % {
            "sets": serials,
            "reason": reason,
        }
    acta_services.acta_note_record(session=session, kind=ActaNote.Kind.OCCURRENCE, user=user, text=text)


def session_close(
    *,
    session: Session,
    user: User | None = None,
    end_checks: Mapping[int, Iterable[int]] | None = None,
    missing_check_reason: str = "",
) -> Session:
    """End ``session``: every game in it must be finished, annulled, or never opened; ``user``
    (None: the system) is recorded in the audit trail. R23: every ball set checked at its start
    is checked at its end — recorded before, or now in ``end_checks`` (ball set id -> the balls
    that failed) — or ``missing_check_reason`` says why it could not be made, an occurrence in
    the acta (R61 m)); otherwise refused, nothing changed. Online sessions have no ball sets."""
    with transaction.atomic():
        session = locks.session_lock(session_id=session.pk)
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
        _end_checks_close(
            session=session, user=user, end_checks=end_checks or {}, missing_check_reason=missing_check_reason
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
    pattern: str | Iterable[tuple[int, int]] | None = None,
    pattern_key: str | None = None,
    online: bool = False,
) -> Game:
    """Add the next numbered game to ``session``, with the variant's default prize plan or
    ``prize_plan`` (shares of sales in percent), refused unless it meets R7; ``line_kinds`` say
    what wins the line (R67, R75); ``pattern_key`` (a library pattern, or ``custom`` with the
    cells ``pattern``) makes the 75-ball bingo a pattern (R73 b)), the full card without.

    Refused in a session of an online room unless ``online`` (the system's continuous games,
    R90, and a scheduled session's, R91-R93, ``bingo.online``): the online loop opens the sales
    of a session's planned games itself, so a game added by hand would be sold with the next
    series of the room, or block it (another variant), whatever was announced."""
    is_online = OnlineRoom.serves(session.room_id)
    if online and not is_online:
        raise ValueError(f"session {session.pk} is not an online room's")
    if is_online and not online:
        raise ValidationError(
            _(
                "This session is an online room's: the system creates its games (continuous mode, "
                "R90) or they are scheduled with the session on the room's page (session mode, R91-R93)."
            )
        )
    hall = session.room.hall
    chosen, plan, rules = game_plan_check(
        variant=variant,
        prize_plan=prize_plan,
        jackpot_active=hall.jackpot_active,
        line_kinds=line_kinds,
        pattern=pattern,
        pattern_key=pattern_key,
    )
    with transaction.atomic():
        locks.session_lock(session_id=session.pk)  # games numbered one after another
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
    pattern: str | Iterable[tuple[int, int]] | None = None,
    pattern_key: str | None = None,
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
            chosen.value, [k.value for k, _share in plan.shares], line_kinds, pattern, pattern_key
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
        # The lock order (docs/architecture.md): the game, then the series, in their keys' order.
        game = locks.game_lock(game_id=game.pk)
        hall = game.session.room.hall
        # R60: a game starts with its sale, not before the games that ended are in the acta.
        acta_services.acta_require_recorded(game=game)
        by_id = locks.series_lock(series_ids=[s.pk for s in series])
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
    online_room = OnlineRoom.serves(game.session.room_id)
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
        # The first game of the double cards, then this one: games in their keys' order (the
        # lock order, docs/architecture.md); looked for again once both are locked.
        first = doubles.doubles_before(Game.objects.get(pk=game.pk))
        locked = locks.games_lock(game_ids=[game.pk] if first is None else [first.pk, game.pk])
        game = locked[game.pk]
        previous = doubles.doubles_before(game)
        if previous is None or previous.pk not in locked:
            raise ValidationError(_("Game %(n)d has no double cards to play again.") % {"n": game.number - 1})
        previous = locked[previous.pk]
        # R60: the first game of the double cards is in the acta before the second starts.
        acta_services.acta_require_recorded(game=game)
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
        # The lock order (docs/architecture.md), as every sale takes it: the game, then its
        # series. Sales in flight finish first and are counted; later ones see the game closed.
        # The series come last of all: the jackpot that R10's contribution moves is taken before
        # them, since an online purchase holds its buyer's wallet while it waits for a series.
        game = locks.game_lock(game_id=game.pk)
        hall = game.session.room.hall
        if game.jackpot_active:
            jackpot_services.jackpot_lock(hall=hall)
        locked = {s.pk: s for s in locks.game_series_lock(game_id=game.pk)}
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
            # R10: 3 % of the prize money goes to the jackpot as the sale closes (its row
            # locked above, before the series).
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
