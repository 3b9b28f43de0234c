"""Writes of the halls app: halls, their rooms and cash desks, and who works there in which role.

Each service validates everything before it writes and runs in one transaction, so a refused
request leaves nothing half-created. A person's role in a hall is a ``StaffMembership``; the
role's group (bingo.common.roles) is what opens that role's screens, so assigning a role also gives
the group, and removing a person's last membership in a role takes the group away.
"""

from __future__ import annotations

import re
import zoneinfo
from decimal import Decimal
from typing import TypeVar

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from bingo.common import bounds
from bingo.common.clock import hall_zone
from bingo.common.roles import STAFF_ROLES, Role, user_roles, user_roles_set
from halls import signals
from halls.models import CashDesk, Hall, Room, StaffMembership

_CURRENCY = re.compile(r"^[A-Z]{3}$")
_HallPart = TypeVar("_HallPart", Room, CashDesk)


def _check_hall_fields(
    *,
    currency: str,
    time_zone: str,
    card_limit_per_player: int | None,
    tax_rate: Decimal,
    tax_threshold: Decimal,
    play_cooloff_minutes: int | None = None,
) -> None:
    errors: dict[str, str] = {}
    if not _CURRENCY.match(currency):
        errors["currency"] = _("A currency is three capital letters (ISO 4217), such as CVE.")
    try:
        hall_zone(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        errors["time_zone"] = _("Unknown time zone: %(tz)s.") % {"tz": time_zone}
    if card_limit_per_player is not None and not 1 <= card_limit_per_player <= bounds.CARD_LIMIT_MAX:
        # R35: a cap is at least one card; no cap is left blank.
        errors["card_limit_per_player"] = _(
            "The card limit is from 1 to %(max)d, or blank for no limit (R35)."
        ) % {"max": bounds.CARD_LIMIT_MAX}
    if not Decimal("0") <= tax_rate <= Decimal("100"):
        errors["tax_rate"] = _("The tax rate is a percentage from 0 to 100.")
    if tax_threshold < 0:
        errors["tax_threshold"] = _("The tax threshold cannot be negative.")
    elif tax_threshold > bounds.AMOUNT_MAX:
        errors["tax_threshold"] = _("The tax threshold is at most %(max)s.") % {"max": bounds.AMOUNT_MAX}
    if play_cooloff_minutes is not None and (
        isinstance(play_cooloff_minutes, bool)
        or not isinstance(play_cooloff_minutes, int)
        or not 0 <= play_cooloff_minutes <= bounds.PLAY_COOLOFF_MINUTES_MAX
    ):
        # R101: the break after a session's time limit, none (0) to a week.
        errors["play_cooloff_minutes"] = _(
            "The break after the session time limit is from 0 (none) to %(max)d minutes (R101)."
        ) % {"max": bounds.PLAY_COOLOFF_MINUTES_MAX}
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
    operator_name: str = "",
    licence_number: str = "",
    play_cooloff_minutes: int = 0,
    manager: User | None = None,
) -> Hall:
    """Create a hall with its currency, time zone, card limit (R35), prize tax, jackpot (R9),
    the operator and concession its receipts print (R17) and the players' mandatory break after
    their session time limit (R101, minutes, 0 for none);
    ``manager``, when given, manages it from the start (both or neither are saved)."""
    currency = currency.strip().upper()
    _check_hall_fields(
        currency=currency,
        time_zone=time_zone,
        card_limit_per_player=card_limit_per_player,
        tax_rate=tax_rate,
        tax_threshold=tax_threshold,
        play_cooloff_minutes=play_cooloff_minutes,
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
                operator_name=operator_name.strip(),
                licence_number=licence_number.strip(),
                play_cooloff_minutes=play_cooloff_minutes,
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
    operator_name: str | None = None,
    licence_number: str | None = None,
    play_cooloff_minutes: int | None = None,
) -> Hall:
    """Change a hall's settings; games already created keep the jackpot setting they were made with.
    The operator and concession (R17) and the break after a session's time limit (R101) stay as
    they are when not given."""
    currency = currency.strip().upper()
    _check_hall_fields(
        currency=currency,
        time_zone=time_zone,
        card_limit_per_player=card_limit_per_player,
        tax_rate=tax_rate,
        tax_threshold=tax_threshold,
        play_cooloff_minutes=play_cooloff_minutes,
    )
    hall.name = name.strip()
    hall.currency = currency
    hall.time_zone = time_zone
    hall.card_limit_per_player = card_limit_per_player
    hall.tax_rate = tax_rate
    hall.tax_threshold = tax_threshold
    if operator_name is not None:
        hall.operator_name = operator_name.strip()
    if licence_number is not None:
        hall.licence_number = licence_number.strip()
    if play_cooloff_minutes is not None:
        hall.play_cooloff_minutes = play_cooloff_minutes
    jackpot_switched = hall.jackpot_active != jackpot_active
    hall.jackpot_active = jackpot_active
    with transaction.atomic():
        _save_hall(hall)
        if jackpot_switched:
            # The displays show the jackpot only while it runs (R9, R13).
            hall_id = hall.pk
            transaction.on_commit(lambda: signals.hall_jackpot_switched.send(sender=Hall, hall_id=hall_id))
    return hall


def _hall_part_add(model: type[_HallPart], *, hall: Hall, name: str) -> _HallPart:
    """A new room or cash desk of ``hall``, its name trimmed and checked unique in the hall."""
    part = model(hall=hall, name=name.strip())
    part.full_clean()
    with transaction.atomic():
        part.save()
    return part


def room_create(*, hall: Hall, name: str) -> Room:
    """Add a room, named uniquely within ``hall``, where sessions are played."""
    return _hall_part_add(Room, hall=hall, name=name)


def cash_desk_create(*, hall: Hall, name: str) -> CashDesk:
    """Add a cash desk, named uniquely within ``hall``, that sales and payments go through (R39)."""
    return _hall_part_add(CashDesk, hall=hall, name=name)


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
