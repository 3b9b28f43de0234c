"""The system as caller of the online rooms (R85-R97): it opens the sessions and games, sells
for everyone at once and closes (R90, R93), draws one ball per Celery task at the room's pace
(R88), awards every prize the moment a card holds it (R44, R46) and pays it into the buyer's
wallet with no action by the player (R97).

Nothing here draws, awards or sells by itself: every step calls the hall's own services
(``bingo.games.services``, ``bingo.draw.services``) as the system user, a caller of the hall,
so the audit trail and the acta say the system drew and awarded, and the hall's rules apply
unchanged (R85). Every step locks the row it moves (the room, the session, the game) and looks
again at what is already done, so running it twice, or in two workers at once, does it once.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import transaction
from django.db.models import Max, Min
from django.utils import timezone
from django.utils.translation import gettext as _

from actas import services as acta_services
from bingo.autodraw import selectors
from bingo.common.clock import hall_day_start, hall_today
from bingo.common.roles import Role
from bingo.common.tasks import task_enqueue_on_commit
from bingo.draw import detection
from bingo.draw import services as draw_services
from bingo.engine.gamestate import GameState
from bingo.engine.prizes import PrizeKind as EnginePrize
from bingo.faults import selectors as fault_selectors
from bingo.faults import services as fault_services
from bingo.games import locks
from bingo.games import services as game_services
from bingo.jackpot import services as jackpot_services
from bingo.live import events
from bingo.models import (
    UNDER_WAY_STATES,
    Ball,
    DrawMode,
    Game,
    OnlineRoom,
    Player,
    RoomMode,
    Sale,
    Session,
)
from bingo.online import selectors as online_selectors
from bingo.online import services as online_services
from halls.models import Hall, StaffMembership

logger = logging.getLogger(__name__)

#: The one user the system acts as in every hall with online rooms: inactive, no password.
SYSTEM_USERNAME = "sistema-online"

#: The Celery task that draws one ball of an online game (``bingo/autodraw/tasks.py``).
DRAW_BALL_TASK = "autodraw.draw_ball"
#: The Celery beat task that finds the work due (``settings.CELERY_BEAT_SCHEDULE``).
RECONCILE_TASK = "autodraw.reconcile"

#: R88: never less than this between two balls.
MIN_BALL_INTERVAL = Decimal("1")
#: A drawing game whose next ball is this late has lost its task (a worker killed): the
#: reconciler queues it again.
OVERDUE_GRACE = timedelta(seconds=2)


def system_user(*, hall: Hall) -> User:
    """The system as a person: one inactive user with no usable password (no one logs in as
    it), a caller of ``hall`` so the hall's draw services accept it. The audit trail and the
    acta name it as who drew and awarded in the online rooms.

    Created by migration ``bingo/0012`` so its name is taken before anyone can register it (and
    again here on a database emptied since). A user of that name who can log in, or who plays,
    is not the system: refused, rather than making them the caller of every online room.
    """
    with transaction.atomic():
        user, created = User.objects.get_or_create(
            username=SYSTEM_USERNAME,
            defaults={"first_name": "Sistema", "last_name": "online", "is_active": False},
        )
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        elif user.is_active or user.has_usable_password() or Player.objects.filter(user=user).exists():
            raise ImproperlyConfigured(
                f"The user {SYSTEM_USERNAME!r} can log in or plays: it is not the system's. Rename it."
            )
        StaffMembership.objects.get_or_create(hall=hall, user=user, role=Role.CALLER.value)
    return user


def ball_interval_check(seconds: Decimal | None) -> Decimal:
    """``seconds`` between balls, refused under one second (R88)."""
    if seconds is None or not isinstance(seconds, Decimal) or not seconds.is_finite():
        raise ValidationError(_("Say how many seconds go between balls (at least 1, R88)."))
    if seconds < MIN_BALL_INTERVAL:
        raise ValidationError(_("Balls are drawn at least 1 second apart (R88)."))
    return seconds


def _seconds(value: Decimal) -> timedelta:
    return timedelta(seconds=float(value))


# --- the rooms: sessions and games ----------------------------------------------------------


def online_room_advance(*, room_id: int) -> Game | None:
    """Do what ``room_id``'s online room needs now; returns the game whose sales it opened, if
    any. Continuous mode (R90): a session for the hall's day, and a game selling whenever none
    is under way, ``pause_seconds`` after the last ended, whatever the number of players.
    Session mode (R91-R93): at the session's start, every planned game's sales open at once."""
    with transaction.atomic():
        # First in the lock order (docs/architecture.md): two advances of a room queue here.
        online = locks.online_room_lock(room_id=room_id)
        if not online.active:
            return None
        if online.mode == RoomMode.CONTINUOUS:
            return _continuous_advance(online)
        return _sessions_advance(online)


def _day_end(hall: Hall, now: datetime) -> datetime:
    """The next midnight on the hall's clock."""
    return hall_day_start(hall, hall_today(hall, now) + timedelta(days=1))


def _room_idle(online: OnlineRoom, idle: dict[str, Any]) -> None:
    """Record on the (locked) room why it sells nothing (``idle``; empty: nothing stops it),
    for the manager's page and the API (``bingo.online.selectors.online_room_idle``). Written,
    and logged, only when it changes: the reconciler runs every second, and a room waiting for
    a series would otherwise log the same warning every second for as long as it waits."""
    if (online.idle or {}) == idle:
        return
    if idle:
        logger.warning(
            "online room %s sells nothing: %s (logged again when this changes)", online.pk, _idle_text(idle)
        )
    else:
        logger.info("online room %s sells again (was: %s)", online.pk, _idle_text(online.idle))
    online.idle = idle
    online.idle_since = timezone.now() if idle else None
    online.save(update_fields=["idle", "idle_since"])


def _idle_text(idle: dict[str, Any]) -> str:
    """The log's words for a room's ``idle`` (the manager reads it translated on the page)."""
    if idle.get("reason") == online_selectors.IDLE_SESSION_NO_SERIES:
        return (
            f"session {idle['session']}: game {idle['game']} has no online series of variant "
            f"{idle['variant']} at {idle['price']} with cards left to sell"
        )
    return f"no online series of variant {idle.get('variant')} with cards left to sell"


def _continuous_advance(online: OnlineRoom) -> Game | None:
    room, hall = online.room, online.room.hall
    now = timezone.now()
    session = selectors.room_session_open(room_id=room.pk)
    games = selectors.session_games(session=session) if session is not None else []
    if any(g.state in UNDER_WAY_STATES for g in games):
        _room_idle(online, {})
        return None  # the game under way moves on by itself (sales close, balls)
    system = system_user(hall=hall)
    if session is not None and session.scheduled_end <= now:
        # The hall's day is over and its games too: its acta closes (R61 h)), a new day opens.
        game_services.session_close(session=session, user=system)
        session, games = None, []
    last_end = Game.objects.filter(session__room=room, finished_at__isnull=False).aggregate(
        at=Max("finished_at")
    )["at"]
    if last_end is not None and now < last_end + timedelta(seconds=online.pause_seconds):
        return None
    interval = ball_interval_check(online.ball_interval)
    # The series first: a room with nothing to sell opens no session (and no acta) of its own.
    series = online_selectors.online_series_pick(hall=hall, variant=online.variant, strips=online.strips)
    if series is None:
        _room_idle(online, {"reason": online_selectors.IDLE_NO_SERIES, "variant": online.variant})
        return None
    if session is None:
        session = game_services.session_open(
            room=room, starts_at=now, scheduled_end=_day_end(hall, now), user=system, online=True
        )
    game = next((g for g in games if g.state == GameState.PLANNED.value), None)
    if game is None:
        # R73 b): the room's pattern as it is now; a later change leaves this game alone (R36).
        pattern_key, pattern = online.pattern_choice()
        game = game_services.game_create(
            session=session,
            variant=online.variant,
            prize_plan=online.prize_plan or None,
            online=True,
            pattern_key=pattern_key,
            pattern=pattern,
        )
    game = game_services.game_open_sales(game=game, series=[series], user=system)
    game.ball_interval = interval
    game.sales_close_at = now + timedelta(seconds=online.sales_seconds)
    game.save(update_fields=["ball_interval", "sales_close_at"])
    # The players' standing orders buy in it once its opening, everyone's, has committed (R93).
    online_services.online_orders_fill_queue(game=game)
    _room_idle(online, {})
    return game


def _sessions_advance(online: OnlineRoom) -> Game | None:
    """R93: at a session's start, the sales of all its planned games open together, each with
    the hall's next online series of its variant and price (R92), closing together."""
    now = timezone.now()
    hall = online.room.hall
    opened = None
    idle: dict[str, Any] = {}
    for session in Session.objects.filter(
        room=online.room, ended_at__isnull=True, starts_at__lte=now
    ).order_by("starts_at", "pk"):
        games = selectors.session_games(session=session)
        planned = [g for g in games if g.state == GameState.PLANNED.value]
        if not games:
            continue
        if any(g.sales_opened_at is not None for g in games):
            _session_close_when_over(session, games, hall)
            continue  # opened already: what is planned now was added after (R93: no more sales)
        if planned and now < session.scheduled_end:  # never sold after the session's end
            sold, missing = _session_open_sales(online, session, planned)
            opened = sold or opened
            if missing is not None and not idle:
                idle = {
                    "reason": online_selectors.IDLE_SESSION_NO_SERIES,
                    "session": session.pk,
                    "starts_at": session.starts_at.isoformat(),
                    "game": missing.number,
                    "variant": missing.variant,
                    "price": str(missing.price),
                }
    _room_idle(online, idle)
    return opened


def _session_open_sales(
    online: OnlineRoom, session: Session, planned: list[Game]
) -> tuple[Game | None, Game | None]:
    """Open the sales of every planned game of ``session`` at once (R93), or none: (the first
    game opened, None), or (None, the first game with no series to sell)."""
    hall = online.room.hall
    now = timezone.now()
    chosen = []
    with transaction.atomic():
        # Every game first, in their keys' order, then each one's series as its sales open (the
        # lock order, docs/architecture.md): never a series held while waiting for a game.
        locks.games_lock(game_ids=[g.pk for g in planned])
        # All or none (R93): a game with no series to sell keeps every game of the session closed.
        system = system_user(hall=hall)
        # The operator's moment, the same for every game (R93); if it has passed (the system
        # was down at the start), the room's sales window from now.
        close_at = min((g.sales_close_at for g in planned if g.sales_close_at is not None), default=None)
        if close_at is None or close_at <= now:
            close_at = now + timedelta(seconds=online.sales_seconds)
        for game in planned:
            interval = ball_interval_check(game.ball_interval or online.ball_interval)
            series = online_selectors.online_series_pick(
                hall=hall,
                variant=game.variant,
                price=game.price,
                strips=online.strips and game.variant == "90",
            )
            if series is None:
                # Logged by _room_idle when the room's state changes, not on every tick.
                transaction.set_rollback(True)
                return None, game
            game = game_services.game_open_sales(game=game, series=[series], user=system)
            game.ball_interval = interval
            game.sales_close_at = close_at
            game.save(update_fields=["ball_interval", "sales_close_at"])
            # Standing orders fill it after the commit (R93), or never if this opening rolls back.
            online_services.online_orders_fill_queue(game=game)
            chosen.append(game)
    return (chosen[0] if chosen else None), None


def _session_close_when_over(session: Session, games: list[Game], hall: Hall) -> None:
    """A session-mode session whose games sold and all ended closes (R61 h))."""
    sold = [g for g in games if g.sales_opened_at is not None]
    if any(g.state in UNDER_WAY_STATES for g in games) or not sold:
        return
    game_services.session_close(session=session, user=system_user(hall=hall))


# --- the games: sales close, the draw starts -------------------------------------------------


def online_game_sales_close(*, game_id: int) -> list[Game]:
    """Close, at once, the sales of every game of ``game_id``'s session still selling whose
    ``sales_close_at`` has passed (R93: for everyone together; no later sale), then, in a
    transaction of its own, start the session's next draw. In a continuous room a game that has
    sold no card yet keeps selling for another window, within the day's session: the room is
    always open (R90) and the acta is not filled with empty games while nobody plays, as long as
    its series can still sell (not retired). Otherwise a game that sold no card has nothing to
    draw: it is annulled, with its reason in the acta. Returns the games it closed."""
    closed: list[Game] = []
    with transaction.atomic():
        # The lock order (docs/architecture.md): the session, then every game due in their
        # keys' order, before any is closed (closing one takes its series and the jackpot).
        session_id = Game.objects.values_list("session_id", flat=True).get(pk=game_id)
        session = locks.session_lock(session_id=session_id)
        now = timezone.now()
        due_ids = Game.objects.filter(
            session=session, state=GameState.SELLING.value, sales_close_at__lte=now
        ).values_list("pk", flat=True)
        locked = locks.games_lock(game_ids=due_ids)
        # Closed meanwhile (a manager, a fault) is no longer due.
        due = sorted(
            (g for g in locked.values() if g.state == GameState.SELLING.value), key=lambda g: g.number
        )
        if not due:
            return closed
        hall = session.room.hall
        online = session.room.online
        system = system_user(hall=hall)
        if not all(Sale.objects.filter(game=item).exists() for item in due):
            # A game closed with no card sold is annulled below, which moves the jackpot (R10)
            # and records in the acta: both are locked now, before any series is (nothing of the
            # lock order is locked after a series on sale, docs/architecture.md). A game with a
            # sale keeps it: it is never annulled here.
            jackpot_services.jackpot_lock(hall=hall)
            acta_services.acta_lock(session_id=session.pk)
        for item in due:
            if (later := _first_sale_close(online, item)) is not None and later > now:
                # Others get time to join a game someone just bought into: its close moves on.
                _sales_close_move(item, later)
                continue
            again = now + timedelta(seconds=online.sales_seconds)
            if (
                online.mode == RoomMode.CONTINUOUS
                and again < session.scheduled_end
                and not Sale.objects.filter(game=item).exists()
                # Its series retired (or sold out): another window would sell nothing, for ever.
                and selectors.game_series_can_sell(game=item)
            ):
                _sales_close_move(item, again)
                continue
            item = game_services.game_close_sales(game=item, user=system)
            if not Sale.objects.filter(game=item).exists():
                item = draw_services.game_annul(
                    game=item, user=system, reason=_("No card was sold: there is nothing to draw (R90).")
                )
            closed.append(item)
    # The next draw, once the close has committed: starting it locks a game this close may not
    # hold, which the lock order puts before the series and the jackpot the close took. Should it
    # fail, the sales stay closed (R93) and the reconciler starts it on its next round.
    online_session_draw_next(session_id=session_id)
    return closed


def _sales_close_move(game: Game, close_at: datetime) -> None:
    """Move a (locked) continuous game's close of sales to ``close_at``; the screens hear it."""
    game.sales_close_at = close_at
    game.save(update_fields=["sales_close_at"])
    transaction.on_commit(functools.partial(events.game_changed, game.pk))


def _first_sale_close(online: OnlineRoom, game: Game) -> datetime | None:
    """A continuous room's game sells at least ``sales_after_first_seconds`` after its first
    purchase (R90: open to every player, so the others have time to join a game that sold
    nothing until a moment before its window closed): the earliest its sales may close; None
    when the room sets no such time, plays sessions (R93: the close announced is everyone's)
    or nobody has bought yet."""
    if online.mode != RoomMode.CONTINUOUS or not online.sales_after_first_seconds:
        return None
    first = Sale.objects.filter(game=game).aggregate(at=Min("created_at"))["at"]
    return None if first is None else first + timedelta(seconds=online.sales_after_first_seconds)


def online_game_sales_hold(*, game_id: int) -> Game | None:
    """Keep a continuous game selling ``sales_after_first_seconds`` after its first purchase
    (``_first_sale_close``): its ``sales_close_at`` moved on, under the game's lock, so the
    players' countdowns show the close as it will be; None when nothing moved (the game no
    longer sells, or closes late enough already)."""
    with transaction.atomic():
        game = locks.game_lock(game_id=game_id)
        if game.state != GameState.SELLING.value or game.sales_close_at is None:
            return None
        later = _first_sale_close(game.session.room.online, game)
        if later is None or later <= game.sales_close_at:
            return None
        _sales_close_move(game, later)
    return game


def online_session_draw_next(*, session_id: int) -> Game | None:
    """Start the draw of the session's next game whose sales have closed, one game at a time
    in their order (R60: the one before is in the acta, which ``game_start_draw`` checks), at
    the room's pace (R88); its first ball is queued. Session mode waits ``pause_seconds``
    after the previous game ended."""
    with transaction.atomic():
        session = locks.session_lock(session_id=session_id)
        games = selectors.session_games(session=session)
        if any(g.state in (GameState.DRAWING.value, GameState.SUSPENDED.value) for g in games):
            return None
        game = next((g for g in games if g.state == GameState.SALES_CLOSED.value), None)
        if game is None:
            return None
        if any(g.number < game.number and g.state == GameState.SELLING.value for g in games):
            return None  # an earlier game still sells: the order of the draws is the games' (R60)
        online = session.room.online
        now = timezone.now()
        last_end = max((g.finished_at for g in games if g.finished_at is not None), default=None)
        if (
            online.mode == RoomMode.SESSION
            and last_end is not None
            and now < last_end + timedelta(seconds=online.pause_seconds)
        ):
            return None
        interval = ball_interval_check(game.ball_interval or online.ball_interval)
        system = system_user(hall=session.room.hall)
        game = draw_services.game_start_draw(game=game, user=system, mode=DrawMode.ELECTRONIC)
        game.ball_interval = interval
        game.next_ball_at = (game.drawing_started_at or timezone.now()) + _seconds(interval)
        game.save(update_fields=["ball_interval", "next_ball_at"])
        task_enqueue_on_commit(DRAW_BALL_TASK, game.pk, 1, eta=game.next_ball_at)
    return game


# --- the balls: one task per ball, idempotent on its position -------------------------------


def online_ball_draw(*, game_id: int, position: int) -> Ball | None:
    """Draw ball ``position`` of online game ``game_id`` if it is the next one and due, award
    every prize it completes and pay the winners, then queue the next ball.

    Idempotent on ``position``: a ball already drawn is never drawn again nor changed, a task
    for a later ball does nothing (None), and so does one that comes early: R88, a ball never
    follows the one before by less than the game's interval. A worker killed mid-way leaves
    nothing (one transaction): the reconciler queues the ball again.
    """
    with transaction.atomic():
        # The game first; a prize it completes takes the jackpot, the acta, then the wallets.
        game = locks.game_lock(game_id=game_id)
        if (
            game.state != GameState.DRAWING.value
            or game.draw_mode != DrawMode.ELECTRONIC
            or game.manual_from_ball is not None  # R55: the balls are keyed in from here on
        ):
            return None
        last = Ball.objects.filter(game=game).order_by("-position").first()
        drawn = last.position if last is not None else 0
        if position != drawn + 1:
            return None  # repeated (already out) or out of order
        interval = ball_interval_check(game.ball_interval)
        now = timezone.now()
        due = game.next_ball_at or now
        if last is not None:
            due = max(due, last.drawn_at + _seconds(interval))  # R88, whatever next_ball_at says
        if now < due:
            return None  # early: the task queued for it, or the reconciler, comes at its time
        hall = game.session.room.hall
        system = system_user(hall=hall)
        ball = draw_services.game_draw_ball(game=game, user=system, position=position)
        _award_held(game, system)
        game.refresh_from_db(fields=["state"])
        if game.state == GameState.DRAWING.value:
            game.next_ball_at = ball.drawn_at + _seconds(interval)
            game.save(update_fields=["next_ball_at"])
            task_enqueue_on_commit(DRAW_BALL_TASK, game.pk, position + 1, eta=game.next_ball_at)
        else:
            game.next_ball_at = None
            game.save(update_fields=["next_ball_at"])
    return ball


def _award_held(game: Game, system: User) -> None:
    """Award every prize a sold card holds now: the others first, the bingo last, which ends
    the game (R44); each to all the cards holding it, shared (R46). The bingo's award pays
    every share of the game into the wallets (``draw_services.prize_award``, R97)."""
    rules = detection.game_rules(game)
    awarded = set(game.prizes.values_list("kind", flat=True))
    open_prizes = [p for p in rules.prizes if p.value not in awarded]
    held: list[EnginePrize] = detection.detector_use(game, lambda d: [p for p in open_prizes if d.winners(p)])
    held.sort(key=lambda p: p is EnginePrize.BINGO)
    for prize in held:
        draw_services.prize_award(game=game, user=system, kind=prize.value)


# --- the reconciler ---------------------------------------------------------------------------


def _each(what: str, ids: list[int], step: Callable[[int], object]) -> None:
    for pk in ids:
        try:
            step(pk)
        except Exception:  # one room's trouble must not stop the others
            logger.exception("online reconcile: %s %s failed", what, pk)


def _room(pk: int) -> object:
    return online_room_advance(room_id=pk)


def _sales(pk: int) -> object:
    return online_game_sales_close(game_id=pk)


def _hold(pk: int) -> object:
    return online_game_sales_hold(game_id=pk)


def _session(pk: int) -> object:
    return online_session_draw_next(session_id=pk)


def _fault(pk: int) -> object:
    hall = Game.objects.select_related("session__room__hall").get(pk=pk).session.room.hall
    return fault_services.online_game_fault_find(game_id=pk, user=system_user(hall=hall))


def online_reconcile() -> None:
    """Find the online work due and do it (Celery beat, every second): rooms needing a session
    or their next game, sessions opening, a continuous game's close moved on after its first
    purchase, sales to close (R93), draws to start, and drawing
    games whose next ball is overdue (a worker was killed), whose ball task is queued again.
    A drawing game the system cannot decide (R98: its ball ``ONLINE_FAULT_AFTER`` seconds
    overdue, or the same ball failed ``ONLINE_FAULT_FAILURES`` times) is declared null by the
    system and every card refunded (``bingo.faults.services.online_game_fault_find``) instead.
    Safe to run twice at once: every step is idempotent under its row lock."""
    now = timezone.now()
    _each("room", list(selectors.online_rooms_active().values_list("pk", flat=True)), _room)
    _each("hold", selectors.online_games_sales_short(), _hold)
    _each("sales", selectors.online_games_sales_due(now=now), _sales)
    _each("session", selectors.online_sessions_waiting_to_draw(), _session)
    # One read of the overdue games a tick, up to the later of the two moments, so it holds both
    # the balls to queue again (OVERDUE_GRACE late) and the games late past ONLINE_FAULT_AFTER,
    # which the system declares null instead (R98).
    fault_before = now - fault_services.fault_after()
    requeue_before = now - OVERDUE_GRACE
    overdue = selectors.online_games_drawing_overdue(before=max(fault_before, requeue_before))
    faulty = {o.game_id for o in overdue if o.next_ball_at <= fault_before}
    faulty.update(fault_selectors.online_games_ball_failing(at_least=fault_services.fault_failures()))
    _each("fault", sorted(faulty), _fault)
    for o in overdue:
        if o.next_ball_at <= requeue_before and o.game_id not in faulty:
            task_enqueue_on_commit(DRAW_BALL_TASK, o.game_id, o.position)
