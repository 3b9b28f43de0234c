"""Writes of the halls app: halls, their rooms and cash desks, and who works there in which role.

Each service validates everything before it writes and runs in one transaction, so a refused
request leaves nothing half-created. A person's role in a hall is a ``StaffMembership``; the
role's group (bingo.common.roles) is what opens that role's screens, so assigning a role also gives
the group, and removing a person's last membership in a role takes the group away.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common.roles import Role, user_roles, user_roles_set
from bingo.live import events
from bingo.models import Game, Session
from halls.models import (
    BALL_SET_MAX_GAMES,
    BALL_SET_SIZES,
    BallReplacement,
    BallSet,
    BallSetCheck,
    BallSetUse,
    CashDesk,
    Hall,
    Jackpot,
    JackpotMovement,
    Room,
    StaffMembership,
)

#: The roles a person may hold in a hall (players are not staff).
STAFF_ROLES: tuple[Role, ...] = (Role.MANAGER, Role.CASHIER, Role.CALLER, Role.INSPECTOR)

_CURRENCY = re.compile(r"^[A-Z]{3}$")


def _check_hall_fields(
    *,
    currency: str,
    time_zone: str,
    card_limit_per_player: int | None,
    tax_rate: Decimal,
    tax_threshold: Decimal,
) -> None:
    errors: dict[str, str] = {}
    if not _CURRENCY.match(currency):
        errors["currency"] = _("A currency is three capital letters (ISO 4217), such as CVE.")
    try:
        zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        errors["time_zone"] = _("Unknown time zone: %(tz)s.") % {"tz": time_zone}
    if card_limit_per_player is not None and card_limit_per_player < 1:
        # R35: a cap is at least one card; no cap is left blank.
        errors["card_limit_per_player"] = _("The card limit must be at least 1, or blank for no limit (R35).")
    if not Decimal("0") <= tax_rate <= Decimal("100"):
        errors["tax_rate"] = _("The tax rate is a percentage from 0 to 100.")
    if tax_threshold < 0:
        errors["tax_threshold"] = _("The tax threshold cannot be negative.")
    if errors:
        raise ValidationError(errors)


def _save_hall(hall: Hall) -> Hall:
    # full_clean checks the name's uniqueness and the field lengths with Django's own messages.
    hall.full_clean(exclude=["created_at"])
    with transaction.atomic():
        hall.save()
    return hall


def hall_create(
    *,
    name: str,
    currency: str = "CVE",
    time_zone: str = "Atlantic/Cape_Verde",
    card_limit_per_player: int | None = None,
    tax_rate: Decimal = Decimal("0"),
    tax_threshold: Decimal = Decimal("0"),
    jackpot_active: bool = False,
    manager: User | None = None,
) -> Hall:
    """Create a hall with its currency, time zone, card limit (R35), prize tax and jackpot (R9);
    ``manager``, when given, manages it from the start (both or neither are saved)."""
    currency = currency.strip().upper()
    _check_hall_fields(
        currency=currency,
        time_zone=time_zone,
        card_limit_per_player=card_limit_per_player,
        tax_rate=tax_rate,
        tax_threshold=tax_threshold,
    )
    with transaction.atomic():
        hall = _save_hall(
            Hall(
                name=name.strip(),
                currency=currency,
                time_zone=time_zone,
                card_limit_per_player=card_limit_per_player,
                tax_rate=tax_rate,
                tax_threshold=tax_threshold,
                jackpot_active=jackpot_active,
            )
        )
        if manager is not None:
            # A hall nobody manages would vanish from its creator's screens.
            staff_assign(hall=hall, user=manager, role=Role.MANAGER)
    return hall


def hall_update(
    *,
    hall: Hall,
    name: str,
    currency: str,
    time_zone: str,
    card_limit_per_player: int | None,
    tax_rate: Decimal,
    tax_threshold: Decimal,
    jackpot_active: bool,
) -> Hall:
    """Change a hall's settings; games already created keep the jackpot setting they were made with."""
    currency = currency.strip().upper()
    _check_hall_fields(
        currency=currency,
        time_zone=time_zone,
        card_limit_per_player=card_limit_per_player,
        tax_rate=tax_rate,
        tax_threshold=tax_threshold,
    )
    hall.name = name.strip()
    hall.currency = currency
    hall.time_zone = time_zone
    hall.card_limit_per_player = card_limit_per_player
    hall.tax_rate = tax_rate
    hall.tax_threshold = tax_threshold
    jackpot_switched = hall.jackpot_active != jackpot_active
    hall.jackpot_active = jackpot_active
    with transaction.atomic():
        _save_hall(hall)
        if jackpot_switched:
            # The displays show the jackpot only while it runs (R9, R13).
            hall_id = hall.pk
            transaction.on_commit(lambda: events.hall_jackpot_changed(hall_id))
    return hall


def room_create(*, hall: Hall, name: str) -> Room:
    """Add a room, named uniquely within ``hall``, where sessions are played."""
    room = Room(hall=hall, name=name.strip())
    room.full_clean()
    with transaction.atomic():
        room.save()
    return room


def cash_desk_create(*, hall: Hall, name: str) -> CashDesk:
    """Add a cash desk, named uniquely within ``hall``, that sales and payments go through (R39)."""
    desk = CashDesk(hall=hall, name=name.strip())
    desk.full_clean()
    with transaction.atomic():
        desk.save()
    return desk


def staff_assign(*, hall: Hall, user: User, role: Role) -> StaffMembership:
    """Give ``user`` ``role`` in ``hall`` (and the role's group, which opens its screens)."""
    if role not in STAFF_ROLES:
        raise ValidationError({"role": _("A player is not a member of the staff.")})
    if not user.is_active:
        raise ValidationError({"user": _("%(user)s cannot log in.") % {"user": user.get_username()}})
    with transaction.atomic():
        if StaffMembership.objects.filter(hall=hall, user=user, role=role.value).exists():
            raise ValidationError(
                _("%(user)s is already %(role)s in %(hall)s.")
                % {"user": user.get_username(), "role": role.label, "hall": hall.name}
            )
        membership = StaffMembership.objects.create(hall=hall, user=user, role=role.value)
        user_roles_set(user=user, roles={*user_roles(user), role})
    return membership


def staff_remove(*, hall: Hall, user: User, role: Role, by: User | None = None) -> None:
    """Take ``role`` in ``hall`` from ``user``; with no such role left anywhere, also its group."""
    if by is not None and by.pk == user.pk and role == Role.MANAGER:
        # Nobody locks themselves out of the screens they are using.
        raise ValidationError(_("You cannot remove your own manager role."))
    with transaction.atomic():
        deleted, _rows = StaffMembership.objects.filter(hall=hall, user=user, role=role.value).delete()
        if not deleted:
            raise ValidationError(
                _("%(user)s is not %(role)s in %(hall)s.")
                % {"user": user.get_username(), "role": role.label, "hall": hall.name}
            )
        if not StaffMembership.objects.filter(user=user, role=role.value).exists():
            user_roles_set(user=user, roles=user_roles(user) - {role})


# --- ball sets (R20-R26) ------------------------------------------------------------------------
#
# Lock order, for callers that hold several: the game (the draw service's own lock), then ball
# sets (two of them in id order), then the hall's jackpot.


def _locked_sets(*ball_sets: BallSet) -> list[BallSet]:
    """The given sets re-read under a row lock, taken in id order; returned in the order given."""
    locked = {s.pk: s for s in BallSet.objects.select_for_update().filter(pk__in=[s.pk for s in ball_sets])}
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


def _hall_time(moment: datetime, hall: Hall) -> str:
    """``moment`` as the hall's clock shows it, hours and minutes."""
    return timezone.localtime(moment, zoneinfo.ZoneInfo(hall.time_zone)).strftime("%H:%M")


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
                    % {"ball": ball_number, "time": _hall_time(earlier.replaced_at, session.room.hall)}
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


# --- the progressive jackpot (R9-R13) -----------------------------------------------------------
#
# Every movement locks the jackpot row, appends to the ledger, then saves the new balance, so the
# balance is always the sum of the movements (PostgreSQL checks both, see migration 0004). Once
# it commits, the displays of the hall's rooms show the new balance (R13; STYLE rule 4).


@dataclass(frozen=True)
class JackpotState:
    """What displays and the board show of a hall's jackpot (R13, R29)."""

    hall_id: int
    active: bool
    balance: Decimal
    base_value: Decimal
    currency: str
    valid_until: date | None


def _check_amount(amount: Decimal, *, field: str = "amount") -> Decimal:
    if not isinstance(amount, Decimal) or not amount.is_finite():
        raise ValidationError({field: _("Give the amount as a number.")})
    if amount != amount.quantize(Decimal("0.01")):
        # Never rounded here: a fraction of a cent would be lost from the ledger.
        raise ValidationError({field: _("Amounts are in whole cents.")})
    return amount


def _locked_jackpot(hall: Hall) -> Jackpot:
    # get_or_create re-reads after losing a creation race; then the row lock serializes writers.
    Jackpot.objects.get_or_create(hall=hall)
    return Jackpot.objects.select_for_update().get(hall=hall)


def _game_of_hall(*, hall: Hall, game_id: int) -> None:
    if not Game.objects.filter(pk=game_id, session__room__hall_id=hall.pk).exists():
        raise ValidationError(
            {"game": _("Game %(id)d is not a game of %(hall)s.") % {"id": game_id, "hall": hall.name}}
        )


def _announce(hall_id: int) -> None:
    # Registered inside the movement's transaction: a movement rolled back announces nothing.
    transaction.on_commit(lambda: events.hall_jackpot_changed(hall_id))


def _move(
    jackpot: Jackpot,
    *,
    kind: str,
    amount: Decimal,
    game_id: int | None = None,
    note: str = "",
    user: User | None = None,
) -> JackpotMovement:
    balance = jackpot.balance + amount
    if balance < 0:
        raise ValidationError({"amount": _("The jackpot cannot go below zero.")})
    movement = JackpotMovement.objects.create(
        jackpot=jackpot,
        kind=kind,
        amount=amount,
        balance_after=balance,
        game_id=game_id,
        note=note,
        created_by=user,
    )
    jackpot.balance = balance
    jackpot.save(update_fields=["balance", "updated_at"])
    _announce(jackpot.hall_id)
    return movement


def jackpot_configure(
    *,
    hall: Hall,
    base_value: Decimal,
    authorization_reference: str = "",
    conditions: str = "",
    valid_until: date | None = None,
) -> Jackpot:
    """Set ``hall``'s jackpot base value (R11) and its authorization, conditions and time limit (R12)."""
    base_value = _check_amount(base_value, field="base_value")
    if base_value < 0:
        raise ValidationError({"base_value": _("The base value cannot be negative.")})
    with transaction.atomic():
        jackpot = _locked_jackpot(hall)
        jackpot.base_value = base_value
        jackpot.authorization_reference = authorization_reference.strip()
        jackpot.conditions = conditions.strip()
        jackpot.valid_until = valid_until
        jackpot.full_clean(exclude=["hall"])
        jackpot.save()
        _announce(hall.pk)  # the time limit decides whether the displays show it running (R12)
    return jackpot


def jackpot_seed(*, hall: Hall, amount: Decimal, note: str = "", user: User | None = None) -> JackpotMovement:
    """Add the operator's ``amount`` to ``hall``'s jackpot (R11: usually its base value, once)."""
    amount = _check_amount(amount)
    if amount <= 0:
        raise ValidationError({"amount": _("A seed adds a positive amount.")})
    with transaction.atomic():
        return _move(
            _locked_jackpot(hall), kind=JackpotMovement.Kind.SEED, amount=amount, note=note.strip(), user=user
        )


def jackpot_contribute(*, hall: Hall, game_id: int, amount: Decimal) -> JackpotMovement:
    """Add game ``game_id``'s share of its prize money to ``hall``'s jackpot (R10), once per game.

    The caller computes the 3% (R10) in whole cents; a game with no prize money contributes 0.
    """
    amount = _check_amount(amount)
    if amount < 0:
        raise ValidationError({"amount": _("A contribution cannot be negative (R10).")})
    _game_of_hall(hall=hall, game_id=game_id)
    with transaction.atomic():
        jackpot = _locked_jackpot(hall)
        if jackpot.movements.filter(game_id=game_id, kind=JackpotMovement.Kind.CONTRIBUTION).exists():
            raise ValidationError(
                _("Game %(id)d already contributed to the jackpot (R10).") % {"id": game_id}
            )
        return _move(jackpot, kind=JackpotMovement.Kind.CONTRIBUTION, amount=amount, game_id=game_id)


def jackpot_win(*, hall: Hall, game_id: int) -> Decimal:
    """Pay ``hall``'s whole jackpot to game ``game_id``'s bingo and put the base back (R11); return it."""
    _game_of_hall(hall=hall, game_id=game_id)
    with transaction.atomic():
        jackpot = _locked_jackpot(hall)
        if jackpot.movements.filter(game_id=game_id, kind=JackpotMovement.Kind.WIN).exists():
            raise ValidationError(_("The jackpot was already won in game %(id)d.") % {"id": game_id})
        won = jackpot.balance
        _move(jackpot, kind=JackpotMovement.Kind.WIN, amount=-won, game_id=game_id)
        _move(jackpot, kind=JackpotMovement.Kind.RESET, amount=jackpot.base_value, game_id=game_id)
    return won


def jackpot_reverse(*, hall: Hall, game_id: int) -> JackpotMovement | None:
    """Give back an annulled game's contribution (R10, R57: its prize money is refunded), as
    far as the balance allows (a jackpot won since keeps what it paid); None if it gave none."""
    _game_of_hall(hall=hall, game_id=game_id)
    with transaction.atomic():
        jackpot = _locked_jackpot(hall)
        given = jackpot.movements.filter(game_id=game_id, kind=JackpotMovement.Kind.CONTRIBUTION).first()
        if (
            given is None
            or jackpot.movements.filter(game_id=game_id, kind=JackpotMovement.Kind.REVERSAL).exists()
        ):
            return None
        back = min(given.amount, jackpot.balance)
        return _move(jackpot, kind=JackpotMovement.Kind.REVERSAL, amount=-back, game_id=game_id)


def jackpot_adjust(*, hall: Hall, amount: Decimal, note: str, user: User | None = None) -> JackpotMovement:
    """Correct ``hall``'s jackpot by a signed ``amount``, with the reason in ``note``."""
    amount = _check_amount(amount)
    if amount == 0:
        raise ValidationError({"amount": _("An adjustment changes the balance.")})
    note = note.strip()
    if not note:
        raise ValidationError({"note": _("Say why.")})
    with transaction.atomic():
        return _move(
            _locked_jackpot(hall), kind=JackpotMovement.Kind.ADJUSTMENT, amount=amount, note=note, user=user
        )


def jackpot_state(*, hall: Hall) -> JackpotState:
    """``hall``'s jackpot for displays: running (R9, within the R12 time limit), balance and base value."""
    jackpot = Jackpot.objects.filter(hall=hall).first()
    if jackpot is None:
        return JackpotState(
            hall_id=hall.pk,
            active=False,
            balance=Decimal("0.00"),
            base_value=Decimal("0.00"),
            currency=hall.currency,
            valid_until=None,
        )
    today = timezone.localdate(timezone=zoneinfo.ZoneInfo(hall.time_zone))
    in_time = jackpot.valid_until is None or today <= jackpot.valid_until
    return JackpotState(
        hall_id=hall.pk,
        active=hall.jackpot_active and in_time,
        balance=jackpot.balance,
        base_value=jackpot.base_value,
        currency=hall.currency,
        valid_until=jackpot.valid_until,
    )
