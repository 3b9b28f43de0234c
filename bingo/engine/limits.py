"""Responsible gaming's arithmetic (R101): a player's deposit and loss limits and their periods,
and the same rule for the session time limit a player sets (``bingo/playtime``).

Pure: the standard library only. Amounts are ``Decimal``, a time limit whole minutes (``int``);
``None`` is "no limit". Times are timezone-aware ``datetime``; the hall's time zone is a
parameter.

* A limit's period is the calendar day, the ISO week (from Monday) or the calendar month on the
  hall's clock (``period_bounds``).
* A change that tightens (a lower amount, or a limit where there was none) takes effect at once;
  one that loosens (a higher amount, or no limit) only ``LOOSEN_DELAY`` after it was asked for
  (``limit_effective_at``). A newer request supersedes one still pending (``limit_state``).
* What is left of a limit, and whether a movement passes it (``limit_room``, ``limit_passed``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import TypeVar
from zoneinfo import ZoneInfo

#: R101: a limit loosened (raised or removed) takes effect this long after it was asked for.
LOOSEN_DELAY = timedelta(hours=24)

#: What a limit bounds: an amount of money, or the minutes of a play session.
Bound = TypeVar("Bound", Decimal, int)


class Period(StrEnum):
    """The periods a limit counts over, on the hall's clock."""

    DAY = "day"
    WEEK = "week"
    MONTH = "month"


def _first_day(period: Period, today: date) -> date:
    if period is Period.DAY:
        return today
    if period is Period.WEEK:
        return today - timedelta(days=today.weekday())  # ISO week: from Monday
    return today.replace(day=1)


def _next_first_day(period: Period, first: date) -> date:
    if period is Period.DAY:
        return first + timedelta(days=1)
    if period is Period.WEEK:
        return first + timedelta(days=7)
    return (first.replace(day=28) + timedelta(days=4)).replace(day=1)


def period_bounds(period: Period | str, moment: datetime, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """The period holding ``moment``, as [start, end): the hall's midnight of the day, of the
    week's Monday or of the month's 1st, up to the next one (aware datetimes in ``zone``)."""
    if moment.tzinfo is None:
        raise ValueError("moment must be timezone-aware")
    period = Period(period)
    first = _first_day(period, moment.astimezone(zone).date())
    after = _next_first_day(period, first)
    return (
        datetime.combine(first, time(0), tzinfo=zone),
        datetime.combine(after, time(0), tzinfo=zone),
    )


def is_tighter(new: Bound | None, current: Bound | None) -> bool:
    """Whether the limit ``new`` is stricter than ``current`` (None: no limit)."""
    if new is None:
        return False
    return current is None or new < current


def is_looser(new: Bound | None, current: Bound | None) -> bool:
    """Whether the limit ``new`` lets more through than ``current`` (None: no limit)."""
    return is_tighter(current, new)


def limit_effective_at(*, new: Bound | None, in_force: Bound | None, requested_at: datetime) -> datetime:
    """When a request for the limit ``new`` takes effect, ``in_force`` being the limit then in
    force (R101): a looser one ``LOOSEN_DELAY`` later, any other (tighter, or the same) at once.
    An amount of money or a session's minutes alike."""
    if is_looser(new, in_force):
        return requested_at + LOOSEN_DELAY
    return requested_at


@dataclass(frozen=True)
class LimitRequest:
    """A request to set one limit to ``amount`` (None: no limit), asked for at ``requested_at``
    and taking effect at ``effective_at`` (see ``limit_effective_at``)."""

    amount: Decimal | None
    requested_at: datetime
    effective_at: datetime


@dataclass(frozen=True)
class LimitState:
    """One limit at a moment: the amount in force (None: no limit) and the change still pending
    (None: none)."""

    in_force: Decimal | None
    pending: LimitRequest | None


def limit_state(requests: Iterable[LimitRequest], now: datetime) -> LimitState:
    """The limit in force at ``now`` and the change pending then, from every request made for it.

    A request is superseded, and never takes effect, when a newer one is made before it took
    effect. Requests made after ``now`` are not counted. Of the others, the one in force is the
    last to have taken effect of those not superseded; the pending one is the newest, when it
    has not taken effect yet.
    """
    made = sorted((r for r in requests if r.requested_at <= now), key=lambda r: r.requested_at)
    in_force: Decimal | None = None
    for i, request in enumerate(made):
        superseded = i + 1 < len(made) and made[i + 1].requested_at < request.effective_at
        if not superseded and request.effective_at <= now:
            in_force = request.amount
    pending = made[-1] if made and made[-1].effective_at > now else None
    return LimitState(in_force=in_force, pending=pending)


def limit_room(*, limit: Decimal | None, used: Decimal) -> Decimal | None:
    """What is left of ``limit`` once ``used`` counted (never below zero); None without a limit."""
    if limit is None:
        return None
    return max(limit - used, Decimal("0"))


def limit_passed(*, limit: Decimal | None, used: Decimal, amount: Decimal) -> bool:
    """Whether ``amount`` more on top of ``used`` would pass ``limit`` (reaching it is allowed)."""
    return limit is not None and used + amount > limit


def add_months(moment: datetime, months: int, zone: ZoneInfo) -> datetime:
    """``moment`` plus ``months`` calendar months on the hall's clock (the same time of day; the
    day kept, or the month's last when it has fewer days): a self-exclusion's end."""
    if moment.tzinfo is None:
        raise ValueError("moment must be timezone-aware")
    local = moment.astimezone(zone)
    index = local.year * 12 + (local.month - 1) + months
    year, month = divmod(index, 12)
    first = date(year, month + 1, 1)
    last_day = (_next_first_day(Period.MONTH, first) - timedelta(days=1)).day
    day = min(local.day, last_day)
    return datetime.combine(date(year, month + 1, day), local.time().replace(tzinfo=None), tzinfo=zone)


__all__ = [
    "LOOSEN_DELAY",
    "Bound",
    "LimitRequest",
    "LimitState",
    "Period",
    "add_months",
    "is_looser",
    "is_tighter",
    "limit_effective_at",
    "limit_passed",
    "limit_room",
    "limit_state",
    "period_bounds",
]
