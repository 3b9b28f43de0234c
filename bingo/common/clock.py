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
from django.utils.translation import gettext_lazy as _lazy

#: The halls' time zones as a person names them (issue 25): «hora de Cabo Verde», never
#: «Atlantic/Cape_Verde». A zone not listed reads as its city.
ZONE_NAMES = {
    "Atlantic/Cape_Verde": _lazy("Cape Verde time"),
    "Europe/Lisbon": _lazy("Lisbon time"),
    "Atlantic/Azores": _lazy("Azores time"),
    "Atlantic/Madeira": _lazy("Madeira time"),
    "Africa/Luanda": _lazy("Angola time"),
    "Africa/Maputo": _lazy("Mozambique time"),
    "Africa/Bissau": _lazy("Guinea-Bissau time"),
    "Africa/Sao_Tome": _lazy("São Tomé time"),
    "America/Sao_Paulo": _lazy("Brasília time"),
    "Asia/Dili": _lazy("Timor-Leste time"),
    "Asia/Macau": _lazy("Macau time"),
    "UTC": _lazy("Coordinated Universal Time (UTC)"),
}


def zone_name(zone: str) -> str:
    """``zone`` (an IANA name, as a hall keeps it) as a person reads it: «hora de Cabo Verde»."""
    name = ZONE_NAMES.get(zone)
    return str(name) if name is not None else zone.rsplit("/", 1)[-1].replace("_", " ")


#: How a person reads a moment on the hall's clock, everywhere (issue 25: one date format):
#: "28/11/2026 07:49". Machine formats (CSV, the API, the acta's data) keep ISO 8601.
CLOCK_FORMAT = "%d/%m/%Y %H:%M"


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
    """``moment`` as ``hall``'s clock shows it, by default "01/03/2024 21:05"."""
    return hall_local(moment, hall).strftime(fmt)


def hall_day_start(hall: HallOrZone, day: date) -> datetime:
    """The first instant of ``day`` on ``hall``'s clock."""
    return datetime.combine(day, time.min, tzinfo=hall_zone(hall))


def hall_isoformat(moment: datetime | None, hall: HallOrZone) -> str | None:
    """How the session export and the acta write a moment: ISO 8601 on ``hall``'s clock, with its
    offset; None for no moment."""
    return moment.astimezone(hall_zone(hall)).isoformat() if moment else None
