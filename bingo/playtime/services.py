"""Writes of the players' play sessions (PT-803 g: from login to logout).

* ``play_session_start``: at login, the player's open session (joined when one is open and not
  due to end on another device, else a new one).
* ``play_session_touch`` / ``play_session_room_follow``: a request keeps it alive (at most one write
  a minute); a game page opened sets the room followed for inactivity (PT-806/70 b).
* ``play_session_end``: ends it and keeps its summary (PT-806/67, PT-803/39); at the time limit,
  with the hall's break after it, the player's standing orders end too (R101).
* ``play_session_end_due``: the beat task's sweep: every open session idle too long, past its
  time limit (R101) or inactive (PT-806/71) is ended.
* ``play_session_continue``: the player goes on after the inactivity invitation (PT-806/71).
* ``play_limit_set``: the session time limit and reminders (R101): tighter at once, looser
  after 24 hours.
* ``play_purchase_check``: called by ``online_buy`` inside the purchase's transaction, under the
  player's row lock: refused once the session's time limit is reached (R101), and during the
  hall's mandatory break after a session ended at it (``Hall.play_cooloff_minutes``).
* ``play_login_check``: the login refused during that break (R101).
"""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common import bounds
from bingo.common.clock import hall_clock_text
from bingo.engine.limits import limit_effective_at
from bingo.models import Player, PlayLimit, PlaySession
from bingo.players.signals import player_barred
from bingo.playtime import selectors
from halls.models import Hall, Room

#: The shortest and longest session time limit a player may set (minutes).
LIMIT_MIN, LIMIT_MAX = bounds.PLAY_LIMIT_MINUTES_MIN, bounds.PLAY_LIMIT_MINUTES_MAX
#: The reminder intervals offered (minutes).
REMINDER_CHOICES = bounds.REMINDER_CHOICES


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def play_session_end(*, session: PlaySession, reason: str, now: datetime | None = None) -> PlaySession:
    """End ``session`` for ``reason`` and keep its summary (PT-806/67): staked, won, refunded,
    the net, the games. Ending an ended session changes nothing. A session ended at its time limit
    in a hall that asks for a break after it (R101) ends the player's open standing orders in the
    same transaction, as an exclusion does (``bingo.players.signals.player_barred``)."""
    if reason not in PlaySession.EndReason.values:
        raise ValueError(f"unknown end reason {reason!r}")
    now = _now(now)
    with transaction.atomic():
        # The player's row first (the wallet's lock, docs/architecture.md "Lock order"): a
        # purchase holds it until it commits, so the summary counts every purchase made before
        # the session ended, and none is made in it after.
        Player.objects.select_for_update(no_key=True).filter(pk=session.player_id).values_list("pk").get()
        locked = PlaySession.objects.select_for_update(no_key=True).get(pk=session.pk)
        if locked.ended_at is not None:
            return locked
        figures = selectors.play_session_figures(player=locked.player, start=locked.started_at, end=now)
        locked.ended_at = max(now, locked.started_at)
        locked.end_reason = reason
        locked.staked = figures.staked
        locked.won = figures.won
        locked.refunded = figures.refunded
        locked.net = figures.net
        locked.games = figures.games
        locked.games_in_play = figures.games_in_play
        locked.save()
        if (
            reason == PlaySession.EndReason.TIME_LIMIT
            and selectors.play_cooloff_until(player=locked.player, now=now) is not None
        ):
            # R101: the hall's break begins; nothing is bought for the player in it, nor after it
            # by an order placed before.
            player_barred.send(sender=PlaySession, player=locked.player, now=now)
    return locked


def play_session_start(*, player: Player, now: datetime | None = None) -> PlaySession:
    """The player logs in: their open session (shared by their devices) unless it is due to
    end, which is ended first (its summary kept); else a new one. One open per player."""
    now = _now(now)
    for _attempt in range(2):
        session = selectors.play_session_open_get(player=player)
        if session is not None:
            reason = selectors.play_session_due(session=session, now=now)
            if reason is None:
                PlaySession.objects.filter(pk=session.pk).update(last_seen_at=now)
                session.last_seen_at = now
                return session
            play_session_end(session=session, reason=reason, now=now)
        try:
            with transaction.atomic():
                return PlaySession.objects.create(player=player, started_at=now, last_seen_at=now)
        except IntegrityError:
            continue  # another login opened one at the same moment: join it
    raise RuntimeError("could not open a play session")  # pragma: no cover


def play_session_touch(*, session: PlaySession, now: datetime | None = None) -> bool:
    """A request of the player: ``last_seen_at`` moves on, at most once a minute (True if it
    was written)."""
    now = _now(now)
    if (now - session.last_seen_at).total_seconds() < selectors.TOUCH_EVERY:
        return False
    PlaySession.objects.filter(pk=session.pk, ended_at__isnull=True).update(last_seen_at=now)
    session.last_seen_at = now
    return True


def play_session_room_follow(*, player: Player, room: Room, now: datetime | None = None) -> None:
    """The player opened a game page of ``room``: the room their inactivity is counted in from
    now (PT-806/70 b): games played there before they came do not count. Nothing without an
    open session."""
    PlaySession.objects.filter(player=player, ended_at__isnull=True).exclude(room=room).update(
        room=room, room_since=_now(now)
    )


def play_session_continue(*, session: PlaySession, now: datetime | None = None) -> PlaySession:
    """PT-806/71: the player invited to end the session goes on: from now they are warned that
    the session ends if they buy nothing in the next game. Refused when not invited."""
    now = _now(now)
    with transaction.atomic():
        locked = PlaySession.objects.select_for_update(no_key=True).get(pk=session.pk)
        idle = selectors.inactivity(session=locked, now=now)
        if locked.ended_at is not None or idle.stage == "none":
            raise ValidationError(_("There is no invitation to end the session to answer."))
        if idle.stage == "invite":
            locked.idle_warned = idle.games
            locked.idle_warned_at = now
            locked.save(update_fields=["idle_warned", "idle_warned_at"])
    return locked


def play_session_end_due(*, now: datetime | None = None) -> list[PlaySession]:
    """Every open session that must end (idle too long, time limit R101, inactivity PT-806/71)
    is ended, its summary kept; returns those ended. Run every minute by beat."""
    now = _now(now)
    ended = []
    for session in PlaySession.objects.filter(ended_at__isnull=True).select_related("player"):
        reason = selectors.play_session_due(session=session, now=now)
        if reason is not None:
            ended.append(play_session_end(session=session, reason=reason, now=now))
    return ended


#: R101 in the purchase's one-statement debit (``bingo.players.services.wallet_purchase_debit``):
#: nothing is left to judge when the player never set a session time limit, in force or to come,
#: and no session of theirs ended at its time limit within their hall's mandatory break;
#: otherwise the debit is not taken there and ``play_purchase_check`` judges.
PURCHASE_UNLIMITED_SQL = """
    NOT EXISTS (SELECT 1 FROM bingo_playlimit WHERE player_id = %(player)s
                   AND (session_minutes IS NOT NULL OR next_session_minutes IS NOT NULL))
    AND NOT EXISTS (SELECT 1 FROM bingo_playsession s
                      JOIN bingo_player p ON p.user_id = s.player_id
                      JOIN halls_hall h ON h.id = p.hall_id
                     WHERE s.player_id = %(player)s AND s.end_reason = 'time_limit'
                       AND h.play_cooloff_minutes > 0
                       AND s.ended_at + make_interval(mins => h.play_cooloff_minutes) > %(now)s)
"""


def _cooloff_text(player: Player, until: datetime) -> str:
    hall = Hall.objects.get(pk=player.hall_id)
    return _(
        "Your last play session ended at the time limit you set, and the hall asks for a break of "
        "%(minutes)d minutes after it (R101): you can log in and buy cards again at %(until)s."
    ) % {"minutes": hall.play_cooloff_minutes, "until": hall_clock_text(until, hall)}


def play_login_check(*, player: Player, now: datetime | None = None) -> None:
    """R101: refuse ``player``'s login (ValidationError, saying until when) during their hall's
    mandatory break after a session ended at their time limit. An open session already past its
    time limit is ended first, so its break starts now. The login page asks it (through
    ``bingo.accounts.signals.login_checking``) once the password is right."""
    now = _now(now)
    session = selectors.play_session_open_get(player=player)
    if session is not None and selectors.play_session_due(session=session, now=now) == (
        PlaySession.EndReason.TIME_LIMIT
    ):
        play_session_end(session=session, reason=PlaySession.EndReason.TIME_LIMIT, now=now)
    until = selectors.play_cooloff_until(player=player, now=now)
    if until is not None:
        raise ValidationError(_cooloff_text(player, until))


def play_purchase_check(*, player: Player, now: datetime | None = None) -> None:
    """R101: refuse a purchase once the player's open session reached their time limit, or during
    their hall's mandatory break after a session ended at it (``play_cooloff_until``). Called
    inside the purchase's transaction, which holds the player's row (the wallet's lock,
    ``bingo.players.services.wallet_lock``); ``play_session_end`` takes it too, so a purchase and
    the session's end do not cross."""
    now = _now(now)
    # The hall's break after a session ended at the time limit (R101): no purchase in it, from
    # whatever device or request is still logged in.
    if (until := selectors.play_cooloff_until(player=player, now=now)) is not None:
        raise ValidationError(_cooloff_text(player, until))
    session = selectors.play_session_open_get(player=player)
    if session is None:
        return
    limit_at = selectors.time_limit_at(session=session, limits=selectors.play_limits(player=player, now=now))
    if limit_at is not None and now >= limit_at:
        raise ValidationError(
            _(
                "You reached the time limit you set for a session (R101): nothing was bought."
                " The session ends."
            )
        )


def _minutes(value: int | None, *, field: str, low: int, high: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValidationError(
            {
                field: _("Give a whole number of minutes from %(low)d to %(high)d, or none.")
                % {"low": low, "high": high}
            }
        )
    return value


def play_limit_set(
    *,
    player: Player,
    session_minutes: int | None,
    reminder_minutes: int | None,
    now: datetime | None = None,
) -> PlayLimit:
    """R101: the player's session time limit (None: none) and reminder interval (None: none).
    A tighter limit applies at once; a looser one (longer, or none) 24 hours later, the current
    one holding meanwhile (the engine's rule of every limit, ``limit_effective_at``). The
    reminders change at once."""
    session_minutes = _minutes(session_minutes, field="session_minutes", low=LIMIT_MIN, high=LIMIT_MAX)
    if reminder_minutes is not None and reminder_minutes not in REMINDER_CHOICES:
        raise ValidationError(
            {"reminder_minutes": _("Choose a reminder every 15, 30 or 60 minutes, or none.")}
        )
    now = _now(now)
    with transaction.atomic():
        Player.objects.select_for_update(no_key=True).get(pk=player.pk)
        limit, _created = PlayLimit.objects.get_or_create(player=player)
        in_force = selectors.play_limits(player=player, now=now).session_minutes
        # R101, as for the money limits (bingo/engine/limits.py): tighter (or the same) at once,
        # looser 24 hours later; a newer request supersedes one still waiting.
        effective_at = limit_effective_at(new=session_minutes, in_force=in_force, requested_at=now)
        limit.session_minutes = in_force
        limit.next_session_minutes, limit.next_from = None, None
        if effective_at <= now:
            limit.session_minutes = session_minutes
        else:
            limit.next_session_minutes = session_minutes
            limit.next_from = effective_at
        limit.reminder_minutes = reminder_minutes
        limit.save()
    return limit


__all__ = [
    "LIMIT_MAX",
    "LIMIT_MIN",
    "PURCHASE_UNLIMITED_SQL",
    "REMINDER_CHOICES",
    "play_limit_set",
    "play_login_check",
    "play_purchase_check",
    "play_session_continue",
    "play_session_end",
    "play_session_end_due",
    "play_session_room_follow",
    "play_session_start",
    "play_session_touch",
]
