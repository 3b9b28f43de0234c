"""Reads of the players' play sessions (PT-803 g): the open session, its figures, the player's
time limit in force (R101), the inactivity count and stage (PT-806/70-71), and the state the
pages and the API show (``playtime_state``).

Inactivity, exactly (docs/playtime.md): the idle games are the games of the room the player
follows (the room of the last game page opened) whose sales closed during the session, after
the player's last purchase, in which the player bought nothing. At ``INVITE_AFTER`` (5) idle
games the player is invited to end the session (PT-806/70 b); when they go on («Continuar»),
or at the 6th idle game if they answer nothing, they are warned that the session ends if they
buy nothing in the next game (PT-806/71); one more game without a purchase ends it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce, Greatest
from django.urls import reverse
from django.utils import timezone

from bingo.common import rows
from bingo.models import Game, GameState, Player, PlayLimit, PlaySession, Sale, WalletEntry
from halls.models import Hall

#: PT-806/70 b): games in a row without a purchase before the invitation to end the session.
INVITE_AFTER = 5
#: How often a request moves ``last_seen_at`` on (seconds): at most one write a minute.
TOUCH_EVERY = 60


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def play_session_open_get(*, player: Player) -> PlaySession | None:
    """The player's open play session, or None."""
    return PlaySession.objects.filter(player=player, ended_at__isnull=True).first()


def play_session_list(*, player: Player) -> QuerySet[PlaySession]:
    """The player's ended play sessions with their summaries, newest first (PT-806/67)."""
    return PlaySession.objects.filter(player=player, ended_at__isnull=False).order_by("-started_at", "-pk")


def play_session_get(*, session_id: int) -> PlaySession:
    return PlaySession.objects.select_related("player__hall").get(pk=session_id)


# --- the time limit (R101) -------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """The player's time limit in force now, the reminder interval, and a looser limit waiting
    for its 24 hours (``pending``: True when one waits; ``next_minutes`` None means no limit)."""

    session_minutes: int | None
    reminder_minutes: int | None
    pending: bool = False
    next_minutes: int | None = None
    next_from: datetime | None = None


def play_limits(*, player: Player, now: datetime | None = None) -> Limits:
    """R101: the session time limit in force at ``now`` (a looser one asked counts once its 24
    hours have passed) and the reminder interval."""
    return _limits_of(PlayLimit.objects.filter(player=player).first(), now)


def _limits_of(limit: PlayLimit | None, now: datetime | None) -> Limits:
    """``play_limits`` from the player's ``PlayLimit`` row (None: they never set one)."""
    if limit is None:
        return Limits(None, None)
    if limit.next_from is not None:
        if _now(now) >= limit.next_from:
            return Limits(limit.next_session_minutes, limit.reminder_minutes)
        return Limits(
            limit.session_minutes, limit.reminder_minutes, True, limit.next_session_minutes, limit.next_from
        )
    return Limits(limit.session_minutes, limit.reminder_minutes)


def time_limit_at(*, session: PlaySession, limits: Limits) -> datetime | None:
    """When ``session`` reaches the player's time limit (R101); None without a limit."""
    if limits.session_minutes is None:
        return None
    return session.started_at + timedelta(minutes=limits.session_minutes)


def play_cooloff_until(*, player: Player, now: datetime | None = None) -> datetime | None:
    """R101, the operator's mandatory break (``Hall.play_cooloff_minutes``): until when ``player``
    may not log in nor buy, their last play session having ended at their time limit less than
    that long ago; None when no break holds them at ``now`` (or the hall asks for none)."""
    # Read afresh: the manager may have changed it since ``player.hall`` was loaded.
    minutes = Hall.objects.filter(pk=player.hall_id).values_list("play_cooloff_minutes", flat=True).first()
    if not minutes:
        return None
    ended: datetime | None = PlaySession.objects.filter(
        player=player, end_reason=PlaySession.EndReason.TIME_LIMIT
    ).aggregate(last=Max("ended_at"))["last"]
    if ended is None:
        return None
    until = ended + timedelta(minutes=minutes)
    return until if until > _now(now) else None


# --- inactivity (PT-806/70-71) -------------------------------------------------------------------


def _last_purchase_at(session: PlaySession) -> datetime | None:
    found: datetime | None = WalletEntry.objects.filter(
        player_id=session.player_id, kind=WalletEntry.Kind.PURCHASE, created_at__gte=session.started_at
    ).aggregate(last=Max("created_at"))["last"]
    return found


def idle_games(*, session: PlaySession, now: datetime | None = None) -> int:
    """PT-806/70 b): the games in a row the player bought nothing in: the games of the room they
    follow whose sales closed during the session, after they began following it and after their
    last purchase, without a card
    of theirs. A purchase starts the count again."""
    if session.room_id is None:
        return 0
    since = max(
        session.started_at,
        session.room_since or session.started_at,  # not the games before the player came
        _last_purchase_at(session) or session.started_at,
    )
    return (
        Game.objects.filter(
            session__room_id=session.room_id,
            sales_close_at__gt=since,
            sales_close_at__lte=_now(now),
        )
        .exclude(state__in=[GameState.PLANNED.value, GameState.SELLING.value])
        .exclude(sales__buyer_id=session.player_id)
        .count()
    )


@dataclass(frozen=True)
class Inactivity:
    """The idle games and the stage: ``none``, ``invite`` (PT-806/70), ``warn`` (PT-806/71) or
    ``end`` (the session ends for inactivity)."""

    games: int
    stage: str


def inactivity(*, session: PlaySession, now: datetime | None = None) -> Inactivity:
    """PT-806/70-71: invited at 5 idle games; warned when the player chose to go on, or at the
    6th if they answered nothing; the session ends at the next idle game after the warning."""
    games = idle_games(session=session, now=now)
    if games < INVITE_AFTER:
        return Inactivity(games, "none")
    return _stage(session, games, _last_purchase_at(session))


def _stage(session: PlaySession, games: int, last_purchase_at: datetime | None) -> Inactivity:
    """``inactivity`` from the idle games and the player's last purchase in the session."""
    if games < INVITE_AFTER:
        return Inactivity(games, "none")
    warned_at = INVITE_AFTER + 1
    if session.idle_warned is not None and session.idle_warned_at is not None:
        last = last_purchase_at
        if last is None or session.idle_warned_at > last:
            warned_at = min(warned_at, session.idle_warned)
    if games < warned_at:
        return Inactivity(games, "invite")
    if games == warned_at:
        return Inactivity(games, "warn")
    return Inactivity(games, "end")


# --- what ends a session ---------------------------------------------------------------------------


def play_session_due(*, session: PlaySession, now: datetime | None = None) -> str | None:
    """Why ``session`` must end now, or None: idle longer than ``PLAYER_IDLE_TIMEOUT``
    (timeout), the player's time limit reached (R101), or inactivity (PT-806/71)."""
    now = _now(now)
    limit_at = time_limit_at(session=session, limits=play_limits(player=session.player, now=now))
    return _due(session=session, now=now, limit_at=limit_at, idle=None)


def play_session_due_get(
    *, session_id: int, player: Player, now: datetime | None = None
) -> tuple[PlaySession, str | None] | None:
    """``player``'s play session ``session_id`` and why it must end at ``now`` (None: it goes on;
    see ``play_session_due``), in one query: the player's time limit (R101) and the session's
    inactivity (PT-806/70-71) are read with it. None when there is no such session. The
    middleware asks it at every request of a player."""
    now = _now(now)
    if connection.vendor == "postgresql":
        found = _play_session_due_sql(session_id, player, now)
    else:
        found = _play_session_due_orm(session_id, player, now)
    if found is None:
        return None
    session, limit, last_purchase_at, games = found
    session.player = player
    if session.ended_at is not None:
        return session, None
    limit_at = time_limit_at(session=session, limits=_limits_of(limit, now))
    idle_now = _stage(session, games, last_purchase_at)
    return session, _due(session=session, now=now, limit_at=limit_at, idle=idle_now)


_Found = tuple[PlaySession, PlayLimit | None, datetime | None, int]


def _play_session_due_orm(session_id: int, player: Player, now: datetime) -> _Found | None:
    """``play_session_due_get``'s read as a queryset (SQLite)."""
    last_purchase = WalletEntry.objects.filter(
        player_id=OuterRef("player_id"),
        kind=WalletEntry.Kind.PURCHASE,
        created_at__gte=OuterRef("started_at"),
    ).order_by("-created_at")
    sessions = (
        PlaySession.objects.filter(pk=session_id, player=player)
        .select_related("player__play_limit")
        .annotate(last_purchase_at=Subquery(last_purchase.values("created_at")[:1]))
        .annotate(
            idle_since=Greatest(
                "started_at", Coalesce("room_since", "started_at"), Coalesce("last_purchase_at", "started_at")
            )
        )
    )
    # idle_games, counted in the same query.
    idle = (
        Game.objects.filter(
            session__room_id=OuterRef("room_id"),
            sales_close_at__gt=OuterRef("idle_since"),
            sales_close_at__lte=now,
        )
        .exclude(state__in=[GameState.PLANNED.value, GameState.SELLING.value])
        .filter(
            ~Exists(Sale.objects.filter(game_id=OuterRef("pk"), buyer_id=OuterRef(OuterRef("player_id"))))
        )
        .order_by()
        .values("session__room_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    session = sessions.annotate(idle_games=Coalesce(Subquery(idle), 0)).first()
    if session is None:
        return None
    return session, getattr(session.player, "play_limit", None), session.last_purchase_at, session.idle_games


# PostgreSQL: the same read written out (compiling the queryset cost more than running it): the
# session, the player's time limit, their last purchase in the session and the idle games.
_PLAY_SESSION_DUE = f"""
SELECT {rows.columns(PlaySession, "ps")}, {rows.columns(PlayLimit, "pl")}, last.at, idle.games
  FROM bingo_playsession ps
  LEFT JOIN bingo_playlimit pl ON pl.player_id = ps.player_id
  LEFT JOIN LATERAL (
      SELECT max(w.created_at) AS at FROM bingo_walletentry w
       WHERE w.player_id = ps.player_id AND w.kind = 'purchase' AND w.created_at >= ps.started_at
  ) last ON TRUE
  LEFT JOIN LATERAL (
      SELECT count(*) AS games FROM bingo_game g JOIN bingo_session s ON s.id = g.session_id
       WHERE s.room_id = ps.room_id AND g.sales_close_at <= %(now)s
         AND g.sales_close_at > GREATEST(ps.started_at, ps.room_since, last.at)
         AND g.state NOT IN ('planned', 'selling')
         AND NOT EXISTS (SELECT 1 FROM bingo_sale sa WHERE sa.game_id = g.id AND sa.buyer_id = ps.player_id)
  ) idle ON TRUE
 WHERE ps.id = %(session)s AND ps.player_id = %(player)s
"""  # noqa: S608 - the models' column names, no input


def _play_session_due_sql(session_id: int, player: Player, now: datetime) -> _Found | None:
    with connection.cursor() as cursor:
        cursor.execute(_PLAY_SESSION_DUE, {"session": session_id, "player": player.pk, "now": now})
        row = cursor.fetchone()
    if row is None:
        return None
    width = rows.width(PlaySession)
    session = rows.instance(PlaySession, row[:width])
    assert session is not None
    limit = rows.instance(PlayLimit, row[width : width + rows.width(PlayLimit)])
    return session, limit, row[-2], row[-1]


def _due(
    *, session: PlaySession, now: datetime, limit_at: datetime | None, idle: Inactivity | None
) -> str | None:
    """``play_session_due`` from the time limit's moment and, when the caller has it, the
    inactivity (``idle`` None: read it)."""
    if now - session.last_seen_at > timedelta(seconds=settings.PLAYER_IDLE_TIMEOUT):
        return PlaySession.EndReason.TIMEOUT.value
    if limit_at is not None and now >= limit_at:
        return PlaySession.EndReason.TIME_LIMIT.value
    if (idle if idle is not None else inactivity(session=session, now=now)).stage == "end":
        return PlaySession.EndReason.INACTIVITY.value
    return None


# --- the summary (PT-806/67) ----------------------------------------------------------------------


@dataclass(frozen=True)
class Figures:
    """What a play session staked, won, got refunded, the net, and the games played (those
    still in play at the end apart: their prizes or refunds come later)."""

    staked: Decimal
    won: Decimal
    refunded: Decimal
    games: int
    games_in_play: int

    @property
    def net(self) -> Decimal:
        return self.won + self.refunded - self.staked


def play_session_figures(*, player: Player, start: datetime, end: datetime) -> Figures:
    """PT-806/67, PT-803/39: the wallet's purchases, prizes and refunds between ``start`` and
    ``end``, and the games the player bought cards in meanwhile."""
    entries = WalletEntry.objects.filter(player=player, created_at__gte=start, created_at__lte=end)
    totals = entries.aggregate(
        staked=Sum("amount", filter=Q(kind=WalletEntry.Kind.PURCHASE)),
        won=Sum("amount", filter=Q(kind=WalletEntry.Kind.PRIZE)),
        refunded=Sum("amount", filter=Q(kind=WalletEntry.Kind.REFUND)),
    )
    games = Game.objects.filter(
        pk__in=Sale.objects.filter(buyer=player, created_at__gte=start, created_at__lte=end).values("game_id")
    )
    zero = Decimal("0.00")
    return Figures(
        staked=-(totals["staked"] or zero) + zero,
        won=totals["won"] or zero,
        refunded=totals["refunded"] or zero,
        games=games.count(),
        games_in_play=games.exclude(state__in=[GameState.FINISHED.value, GameState.ANNULLED.value]).count(),
    )


def played_seconds(*, session: PlaySession, now: datetime | None = None) -> int:
    """The time played: to the end, or to the last request for a session ended idle."""
    if session.ended_at is None:
        end = _now(now)
    elif session.end_reason == PlaySession.EndReason.TIMEOUT:
        end = session.last_seen_at
    else:
        end = session.ended_at
    return max(0, int((end - session.started_at).total_seconds()))


# --- the state the pages and the API show ------------------------------------------------------------


def playtime_state(*, player: Player, now: datetime | None = None) -> dict[str, Any]:
    """The open session as JSON for the online pages and the API: when it started, the minutes
    played, the reminder interval and time limit (R101), the idle games and the inactivity stage
    (PT-806/70-71), and whether it must end now (``end``: the page goes to ``end_url``)."""
    now = _now(now)
    session = play_session_open_get(player=player)
    if session is None:
        return {"session": None}
    limits = play_limits(player=player, now=now)
    limit_at = time_limit_at(session=session, limits=limits)
    idle = inactivity(session=session, now=now)
    seconds = played_seconds(session=session, now=now)
    return {
        "session": session.pk,
        "started_at": session.started_at.isoformat(),
        "seconds": seconds,
        "minutes": seconds // 60,
        "reminder_minutes": limits.reminder_minutes,
        "limit_minutes": limits.session_minutes,
        "limit_at": limit_at.isoformat() if limit_at else None,
        "limit_reached": limit_at is not None and now >= limit_at,
        "idle_games": idle.games,
        "inactivity": idle.stage,
        "end": _due(session=session, now=now, limit_at=limit_at, idle=idle) is not None,
        "end_url": reverse("playtime:end"),
    }


__all__ = [
    "INVITE_AFTER",
    "Figures",
    "Inactivity",
    "Limits",
    "idle_games",
    "inactivity",
    "play_limits",
    "play_session_due",
    "play_session_due_get",
    "play_session_figures",
    "play_session_get",
    "play_session_list",
    "play_session_open_get",
    "playtime_state",
]
