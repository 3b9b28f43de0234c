"""Reads of the login lockouts (django-axes): who is refused at login now, and until when.

Axes keeps one ``AccessAttempt`` row per (username, address, browser) with the failures counted
since its first and the time of its last. A login is refused while the recent failures of its
account, or those from its address, add up to ``settings.AXES_FAILURE_LIMIT``: two separate
counts (``settings.AXES_LOCKOUT_PARAMETERS``). A row stops counting ``AXES_COOLOFF_TIME`` after
its last failure, so a lock ends when enough of its rows have aged out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db.models import QuerySet
from django.utils import timezone

from bingo.common.roles import Role
from halls.selectors import hall_list_for

#: What axes counts a login against, each on its own (see settings.AXES_LOCKOUT_PARAMETERS).
_COUNTED_BY = ("username", "ip_address")


@dataclass(frozen=True)
class LoginLockout:
    """An account (``username``) or an address (``ip_address``) refused at login until ``ends_at``."""

    failures: int
    ends_at: datetime
    username: str = ""
    ip_address: str = ""
    person: str = ""  # the account holder's full name, for accounts


def login_cool_off() -> timedelta:
    """How long after its failures a lock lifts by itself."""
    cool_off: timedelta | None = get_cool_off()
    if cool_off is None:  # settings.AXES_COOLOFF_TIME is set; without it locks would never lift
        raise ValueError("settings.AXES_COOLOFF_TIME must be set")
    return cool_off


def _recent_attempts(now: datetime) -> QuerySet[AccessAttempt]:
    recent: QuerySet[AccessAttempt] = AccessAttempt.objects.filter(attempt_time__gte=now - login_cool_off())
    return recent


def _lock_end(rows: Iterable[tuple[datetime, int]]) -> datetime | None:
    """When the failures in ``rows`` (last failure, count) stop adding up to the limit; None
    when they do not add up to it now."""
    total = 0
    for last_failure, failures in sorted(rows, reverse=True):
        total += failures
        if total >= settings.AXES_FAILURE_LIMIT:
            # The newest rows up to this one reach the limit; when this one ages out, the
            # newer ones alone no longer do.
            return last_failure + login_cool_off()
    return None


def _locked(field: str, attempts: QuerySet[AccessAttempt]) -> dict[str, tuple[int, datetime]]:
    """The values of ``field`` (username or ip_address) locked now: their failures and lock's end."""
    rows: dict[str, list[tuple[datetime, int]]] = defaultdict(list)
    for value, last_failure, failures in attempts.exclude(**{f"{field}__isnull": True}).values_list(
        field, "attempt_time", "failures_since_start"
    ):
        rows[value].append((last_failure, failures))
    locked = {}
    for value, value_rows in rows.items():
        ends_at = _lock_end(value_rows)
        if ends_at is not None:
            locked[value] = (sum(failures for _, failures in value_rows), ends_at)
    return locked


def login_lockout_ends_at(
    *, username: str | None, ip_address: str | None, now: datetime | None = None
) -> datetime | None:
    """When logging in as ``username`` from ``ip_address`` stops being refused; None if it is not."""
    recent = _recent_attempts(now or timezone.now())
    ends = []
    for field, value in zip(_COUNTED_BY, (username, ip_address), strict=True):
        if value:
            ends.append(
                _lock_end(recent.filter(**{field: value}).values_list("attempt_time", "failures_since_start"))
            )
    return max((end for end in ends if end is not None), default=None)


def staff_user_list_for(user: AbstractBaseUser | AnonymousUser) -> QuerySet[User]:
    """The people holding a staff role in a hall ``user`` manages, by username."""
    return (
        User.objects.filter(hall_roles__hall__in=hall_list_for(user, Role.MANAGER))
        .distinct()
        .order_by("username")
    )


def account_lockout_list_for(user: AbstractBaseUser | AnonymousUser) -> list[LoginLockout]:
    """The staff of the halls ``user`` manages who are refused at login now, by username."""
    recent = _recent_attempts(timezone.now()).filter(
        username__in=staff_user_list_for(user).values("username")
    )
    locked = _locked("username", recent)
    names = {person.username: person.get_full_name() for person in User.objects.filter(username__in=locked)}
    return [
        LoginLockout(failures=failures, ends_at=ends_at, username=username, person=names.get(username, ""))
        for username, (failures, ends_at) in sorted(locked.items())
    ]


def address_lockout_list() -> list[LoginLockout]:
    """The addresses refused at login now, by address."""
    locked = _locked("ip_address", _recent_attempts(timezone.now()))
    return [
        LoginLockout(failures=failures, ends_at=ends_at, ip_address=address)
        for address, (failures, ends_at) in sorted(locked.items())
    ]
