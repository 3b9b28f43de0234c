"""The hall's clock (bingo.common.clock): a hall's moments, days and texts on its own time zone,
from a hall (anything with a ``time_zone``) or the zone's name. No database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pytest
from django.utils import timezone

from bingo.common.clock import (
    hall_clock_text,
    hall_day_start,
    hall_isoformat,
    hall_local,
    hall_today,
    hall_zone,
)


@dataclass(frozen=True)
class Hall:
    time_zone: str


PRAIA = Hall("Atlantic/Cape_Verde")  # UTC-1, no summer time
LISBON = Hall("Europe/Lisbon")  # UTC+0 in winter, UTC+1 in summer

#: 00:30 UTC on 1 March: still the last day of February in Praia.
MOMENT = datetime(2024, 3, 1, 0, 30, tzinfo=UTC)


def test_the_zone_comes_from_the_hall_or_its_name() -> None:
    assert hall_zone(PRAIA) == ZoneInfo("Atlantic/Cape_Verde")
    assert hall_zone("Europe/Lisbon") == ZoneInfo("Europe/Lisbon")


def test_an_unknown_zone_is_refused() -> None:
    with pytest.raises(ZoneInfoNotFoundError):
        hall_zone("Atlantic/Nowhere")


def test_a_moment_on_the_halls_clock() -> None:
    local = hall_local(MOMENT, PRAIA)
    assert local == MOMENT
    assert (local.date(), local.hour, local.minute) == (date(2024, 2, 29), 23, 30)
    assert local.tzinfo == ZoneInfo("Atlantic/Cape_Verde")


def test_a_naive_moment_is_refused() -> None:
    with pytest.raises(ValueError):
        hall_local(datetime(2024, 3, 1, 0, 30), PRAIA)  # noqa: DTZ001 - naive on purpose


def test_today_is_the_halls_date() -> None:
    assert hall_today(PRAIA, MOMENT) == date(2024, 2, 29)
    assert hall_today(LISBON, MOMENT) == date(2024, 3, 1)
    assert hall_today("Atlantic/Cape_Verde", MOMENT) == date(2024, 2, 29)


def test_today_defaults_to_now() -> None:
    assert hall_today(PRAIA) == timezone.localtime(timezone.now(), ZoneInfo(PRAIA.time_zone)).date()


def test_the_clock_text_pages_and_messages_show() -> None:
    assert hall_clock_text(MOMENT, PRAIA) == "29/02/2024 23:30"
    assert hall_clock_text(MOMENT, LISBON, "%H:%M") == "00:30"


def test_a_day_starts_at_midnight_on_the_halls_clock() -> None:
    assert hall_day_start(PRAIA, date(2024, 3, 1)) == datetime(2024, 3, 1, 1, 0, tzinfo=UTC)
    # Summer time: Lisbon's midnight of 1 July is 23:00 UTC the day before.
    assert hall_day_start(hall=LISBON, day=date(2024, 7, 1)) == datetime(2024, 6, 30, 23, 0, tzinfo=UTC)


def test_the_export_writes_iso_8601_with_the_halls_offset() -> None:
    assert hall_isoformat(MOMENT, PRAIA) == "2024-02-29T23:30:00-01:00"
    assert hall_isoformat(MOMENT, "Europe/Lisbon") == "2024-03-01T00:30:00+00:00"
    assert hall_isoformat(None, PRAIA) is None
