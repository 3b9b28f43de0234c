"""Writes of a hall's ball sets (R20-R26): register them, check every ball at the start and end of
each session (R23), count the games each set draws (R25), replace a ball (R26) or a whole set,
retire a set.

The tables are the halls app's (``BallSet`` and its checks, uses and replacements); the feature
lives here, with the games, because its checks, uses and replacements belong to sessions and games.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common.clock import hall_clock_text
from bingo.models import Game, Session
from halls.models import (
    BALL_SET_MAX_GAMES,
    BALL_SET_SIZES,
    BallReplacement,
    BallSet,
    BallSetCheck,
    BallSetUse,
    Hall,
)

# Lock order (docs/architecture.md), for callers that hold several: the game (the draw service's
# own lock), then ball sets (two of them in id order), then the hall's jackpot.


def _locked_sets(*ball_sets: BallSet) -> list[BallSet]:
    """The given sets re-read under a row lock, taken in id order; returned in the order given."""
    chosen = BallSet.objects.select_for_update(no_key=True).filter(pk__in=[s.pk for s in ball_sets])
    locked = {s.pk: s for s in chosen.order_by("pk")}
    return [locked[s.pk] for s in ball_sets]


def _session_hall_id(session_id: int) -> int:
    hall_id: int = Session.objects.filter(pk=session_id).values_list("room__hall_id", flat=True).get()
    return hall_id


def _require_reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": _("Say why.")})
    return reason


def _check_session_in_hall(*, session: Session | None, ball_set: BallSet) -> None:
    if session is not None and _session_hall_id(session.pk) != ball_set.hall_id:
        raise ValidationError({"session": _("That session is not played in the hall of this ball set.")})


def _retire(ball_set: BallSet, *, reason: str, user: User | None) -> None:
    ball_set.state = BallSet.State.RETIRED
    ball_set.retired_at = timezone.now()
    ball_set.retired_by = user
    ball_set.retired_reason = reason


def ball_set_create(
    *,
    hall: Hall,
    serial_number: str,
    size: int,
    games_played: int = 0,
    notes: str = "",
    user: User | None = None,
) -> BallSet:
    """Register a serialized ball set of ``hall`` (R22), with the games it already played (R25)."""
    errors: dict[str, str] = {}
    serial_number = serial_number.strip()
    if size not in BALL_SET_SIZES:
        errors["size"] = _("A ball set has 90, 80, 75 or 30 balls.")
    if not 0 <= games_played < BALL_SET_MAX_GAMES:
        # R25: a set that already drew 2 000 games may not be brought into use.
        errors["games_played"] = _("A ball set in use has played from 0 to 1 999 games (R25).")
    if errors:
        raise ValidationError(errors)
    ball_set = BallSet(
        hall=hall,
        serial_number=serial_number,
        size=size,
        games_played=games_played,
        notes=notes.strip(),
        created_by=user,
    )
    ball_set.full_clean(exclude=["created_by", "retired_by"], validate_constraints=False)
    taken = ValidationError(
        {
            "serial_number": _("There is already a ball set %(serial)s in this hall.")
            % {"serial": serial_number}
        }
    )
    if BallSet.objects.filter(hall=hall, serial_number=serial_number).exists():
        raise taken
    try:
        with transaction.atomic():
            ball_set.save()
    except IntegrityError:  # another manager registered the same serial number just now
        raise taken from None
    return ball_set


def ball_set_check_record(
    *,
    ball_set: BallSet,
    session: Session,
    phase: str,
    faulty_balls: Iterable[int] = (),
    notes: str = "",
    user: User | None = None,
) -> BallSetCheck:
    """Record each ball of ``ball_set`` run through the mechanism at the start or end of ``session`` (R23)."""
    if phase not in BallSetCheck.Phase.values:
        raise ValidationError({"phase": _("A check is made at the start or at the end of a session (R23).")})
    balls = sorted(set(faulty_balls))
    if any(not 1 <= ball <= ball_set.size for ball in balls):
        raise ValidationError(
            {"faulty_balls": _("The balls of this set are numbered 1 to %(size)d.") % {"size": ball_set.size}}
        )
    _check_session_in_hall(session=session, ball_set=ball_set)
    with transaction.atomic():
        (locked,) = _locked_sets(ball_set)
        if phase == BallSetCheck.Phase.START and locked.state == BallSet.State.RETIRED:
            raise ValidationError(
                _("Ball set %(serial)s is retired (R25).") % {"serial": locked.serial_number}
            )
        done = BallSetCheck.objects.filter(ball_set=locked, session=session)
        if done.filter(phase=phase).exists():
            already = (
                _("The start-of-session check of ball set %(serial)s is already recorded.")
                if phase == BallSetCheck.Phase.START
                else _("The end-of-session check of ball set %(serial)s is already recorded.")
            )
            raise ValidationError(already % {"serial": locked.serial_number})
        if phase == BallSetCheck.Phase.END and not done.filter(phase=BallSetCheck.Phase.START).exists():
            raise ValidationError(
                _("Ball set %(serial)s had no check at the start of this session (R23).")
                % {"serial": locked.serial_number}
            )
        return BallSetCheck.objects.create(
            ball_set=locked,
            session=session,
            phase=phase,
            result=BallSetCheck.Result.FAULTY if balls else BallSetCheck.Result.OK,
            faulty_balls=balls,
            notes=notes.strip(),
            checked_by=user,
        )


def _start_check_refusal(ball_set: BallSet, session_id: int) -> str | None:
    """Why ``ball_set`` may not draw in session ``session_id`` for want of a good start check (R23).

    The rule: the set needs this session's start-of-session check. A check that found faulty
    balls still lets it draw once every one of those balls was replaced (R26) after the check;
    otherwise the hall uses another set, with its own start check.
    """
    check = BallSetCheck.objects.filter(
        ball_set=ball_set, session_id=session_id, phase=BallSetCheck.Phase.START
    ).first()
    if check is None:
        return _(
            "Ball set %(serial)s has no check at the start of this session: every ball must run "
            "through the mechanism first (R23)."
        ) % {"serial": ball_set.serial_number}
    if check.result == BallSetCheck.Result.OK:
        return None
    replaced = set(
        BallReplacement.objects.filter(
            ball_set=ball_set, ball_number__in=check.faulty_balls, replaced_at__gte=check.checked_at
        ).values_list("ball_number", flat=True)
    )
    missing = [ball for ball in check.faulty_balls if ball not in replaced]
    if not missing:
        return None
    return _(
        "The start-of-session check of ball set %(serial)s found faulty balls not replaced since: "
        "%(balls)s (R23, R26)."
    ) % {"serial": ball_set.serial_number, "balls": ", ".join(str(ball) for ball in missing)}


def ball_set_use_for_game(*, ball_set: BallSet, game: Game) -> BallSet:
    """Count ``game`` as drawn with ``ball_set`` (R25) unless the set may not draw it; returns the set.

    Call it inside the draw's own transaction, after locking the game. The set must be of the
    game's hall and variant, active, under 2 000 games (R25) and checked at the start of the
    game's session (R23, see ``_start_check_refusal``). The 2 000th game retires it. Calling it
    again for the same game and set changes nothing.
    """
    session_id = game.session_id
    with transaction.atomic():
        (locked,) = _locked_sets(ball_set)
        if locked.hall_id != _session_hall_id(session_id):
            raise ValidationError(
                _("Ball set %(serial)s belongs to another hall.") % {"serial": locked.serial_number}
            )
        previous = BallSetUse.objects.filter(game_id=game.pk).select_related("ball_set").first()
        if previous is not None:
            if previous.ball_set_id == locked.pk:
                return locked
            raise ValidationError(
                _("This game is already drawn with ball set %(serial)s.")
                % {"serial": previous.ball_set.serial_number}
            )
        if locked.games_played >= BALL_SET_MAX_GAMES:
            raise ValidationError(
                _("Ball set %(serial)s has already drawn 2 000 games, the most a set may draw (R25).")
                % {"serial": locked.serial_number}
            )
        if locked.state == BallSet.State.RETIRED:
            raise ValidationError(
                _("Ball set %(serial)s is retired and may not be used again (R25).")
                % {"serial": locked.serial_number}
            )
        if str(locked.size) != game.variant:
            raise ValidationError(
                _("Ball set %(serial)s has %(size)d balls; this game is played with %(variant)s.")
                % {"serial": locked.serial_number, "size": locked.size, "variant": game.variant}
            )
        refusal = _start_check_refusal(locked, session_id)
        if refusal is not None:
            raise ValidationError(refusal)
        locked.games_played += 1
        if locked.games_played == BALL_SET_MAX_GAMES:
            _retire(locked, reason=_("Reached 2 000 games (R25)."), user=None)
        locked.save(update_fields=["games_played", "state", "retired_at", "retired_by", "retired_reason"])
        BallSetUse.objects.create(ball_set=locked, game_id=game.pk, number=locked.games_played)
    return locked


def ball_set_retire(*, ball_set: BallSet, reason: str, user: User | None = None) -> BallSet:
    """Take ``ball_set`` out of use for good, e.g. worn out (R25); returns it retired."""
    reason = _require_reason(reason)
    with transaction.atomic():
        (locked,) = _locked_sets(ball_set)
        if locked.state == BallSet.State.RETIRED:
            raise ValidationError(
                _("Ball set %(serial)s is already retired.") % {"serial": locked.serial_number}
            )
        _retire(locked, reason=reason, user=user)
        locked.save(update_fields=["state", "retired_at", "retired_by", "retired_reason"])
    return locked


def ball_set_replace(
    *,
    ball_set: BallSet,
    replacement: BallSet,
    reason: str,
    session: Session | None = None,
    user: User | None = None,
) -> BallReplacement:
    """Record ``ball_set`` replaced as a whole by ``replacement`` (R25), retiring it if still active."""
    reason = _require_reason(reason)
    if replacement.pk == ball_set.pk:
        raise ValidationError({"replacement": _("A ball set is replaced by another set.")})
    _check_session_in_hall(session=session, ball_set=ball_set)
    with transaction.atomic():
        old, new = _locked_sets(ball_set, replacement)
        if new.hall_id != old.hall_id:
            raise ValidationError({"replacement": _("The replacement set belongs to another hall.")})
        if new.size != old.size:
            raise ValidationError(
                {
                    "replacement": _("The replacement set has %(new)d balls, not %(old)d.")
                    % {"new": new.size, "old": old.size}
                }
            )
        if new.state == BallSet.State.RETIRED:
            raise ValidationError({"replacement": _("The replacement set is retired (R25).")})
        if BallReplacement.objects.filter(ball_set=old, replacement_set__isnull=False).exists():
            raise ValidationError(
                _("Ball set %(serial)s was already replaced.") % {"serial": old.serial_number}
            )
        if old.state == BallSet.State.ACTIVE:
            _retire(old, reason=reason, user=user)
            old.save(update_fields=["state", "retired_at", "retired_by", "retired_reason"])
        return BallReplacement.objects.create(
            ball_set=old, replacement_set=new, session=session, reason=reason, replaced_by=user
        )


def ball_replace(
    *,
    ball_set: BallSet,
    ball_number: int,
    reason: str,
    session: Session | None = None,
    user: User | None = None,
    repeat_reason: str = "",
) -> BallReplacement:
    """Record one damaged ball of ``ball_set`` replaced by a new one with the same number (R26);
    the same ball again in the same session needs ``repeat_reason`` and is flagged for the acta."""
    reason = _require_reason(reason)
    repeat_reason = repeat_reason.strip()
    if not 1 <= ball_number <= ball_set.size:
        raise ValidationError(
            {"ball_number": _("The balls of this set are numbered 1 to %(size)d.") % {"size": ball_set.size}}
        )
    _check_session_in_hall(session=session, ball_set=ball_set)
    with transaction.atomic():
        (locked,) = _locked_sets(ball_set)
        if locked.state == BallSet.State.RETIRED:
            # R26: single balls are replaced while the set is in use, not once it is replaced.
            raise ValidationError(
                _("Ball set %(serial)s is retired (R25).") % {"serial": locked.serial_number}
            )
        # R26: recording goes on, but a ball replaced again in one session is unusual enough to
        # say why, and the acta flags it. The set's row lock orders two replacements of a ball.
        earlier = (
            BallReplacement.objects.filter(ball_set=locked, ball_number=ball_number, session=session)
            .order_by("-pk")
            .first()
            if session is not None
            else None
        )
        if earlier is not None and not repeat_reason:
            assert session is not None
            raise ValidationError(
                {
                    "repeat_reason": _(
                        "Ball %(ball)d of this set was already replaced in this session, at %(time)s: "
                        "say why it is replaced again."
                    )
                    % {
                        "ball": ball_number,
                        "time": hall_clock_text(earlier.replaced_at, session.room.hall, "%H:%M"),
                    }
                }
            )
        return BallReplacement.objects.create(
            ball_set=locked,
            ball_number=ball_number,
            session=session,
            reason=reason,
            replaced_by=user,
            repeat_of=earlier,
            repeat_reason=repeat_reason if earlier is not None else "",
        )
