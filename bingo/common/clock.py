"""The hall's clock: every hall keeps the time of its own time zone (``Hall.time_zone``, an IANA
name such as "Atlantic/Cape_Verde"), and whatever a person reads or types (a session's start, a
day's totals, a limit's month, the acta's times) is on that clock, while the database keeps UTC.

Common imports no app, so each helper takes the hall as anything with a ``time_zone`` (a hall, or
the plain data of one) or the zone's name itself."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Protocol
from zoneinfo import ZoneInfo

from django.utils import timezone

#: How the pages and the messages show a moment on the hall's clock: "2024-03-01 21:05".
CLOCK_FORMAT = "%Y-%m-%d %H:%M"


class HasTimeZone(Protocol):
    """A hall, or anything that carries its time zone's name."""

    @property
    def time_zone(self) -> str: ...


HallOrZone = HasTimeZone | str


def hall_zone(hall: HallOrZone) -> ZoneInfo:
    """The time zone of ``hall`` (or of the zone named ``hall``); ZoneInfoNotFoundError (or
    ValueError) for a name that is no time zone."""
    return ZoneInfo(hall if isinstance(hall, str) else hall.time_zone)


def hall_local(moment: datetime, hall: HallOrZone) -> datetime:
    """The aware ``moment`` on ``hall``'s clock."""
    return timezone.localtime(moment, hall_zone(hall))


def hall_today(hall: HallOrZone, now: datetime | None = None) -> date:
    """The date on ``hall``'s clock at ``now`` (default: this moment)."""
    return hall_local(now or timezone.now(), hall).date()


def hall_clock_text(moment: datetime, hall: HallOrZone, fmt: str = CLOCK_FORMAT) -> str:
    """``moment`` as ``hall``'s clock shows it, by default "2024-03-01 21:05"."""
    return hall_local(moment, hall).strftime(fmt)


def hall_day_start(hall: HallOrZone, day: date) -> datetime:
    """The first instant of ``day`` on ``hall``'s clock."""
    return datetime.combine(day, time.min, tzinfo=hall_zone(hall))


def hall_isoformat(moment: datetime | None, hall: HallOrZone) -> str | None:
    """How the session export and the acta write a moment: ISO 8601 on ``hall``'s clock, with its
    offset; None for no moment."""
    return moment.astimezone(hall_zone(hall)).isoformat() if moment else None
