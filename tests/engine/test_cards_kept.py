"""R51-R52 arithmetic (bingo.engine.cards_kept): when winning cards fall due, which cards go."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bingo.engine.cards_kept import cards_destroyed, winning_cards_due_at

CAPE_VERDE = ZoneInfo("Atlantic/Cape_Verde")


@pytest.mark.parametrize(
    ("ended", "zone", "due"),
    [
        # 00:30 UTC on 1 March is 23:30 on 29 February in Cape Verde: its 8 days end on 8 March.
        (datetime(2024, 3, 1, 0, 30, tzinfo=UTC), CAPE_VERDE, datetime(2024, 3, 9, tzinfo=CAPE_VERDE)),
        (datetime(2024, 3, 1, 0, 30, tzinfo=UTC), UTC, datetime(2024, 3, 10, tzinfo=UTC)),
        (datetime(2024, 3, 1, 0, 0, tzinfo=UTC), UTC, datetime(2024, 3, 10, tzinfo=UTC)),
    ],
)
def test_winning_cards_fall_due_at_midnight_after_8_days_on_the_hall_s_calendar(
    ended: datetime, zone: ZoneInfo, due: datetime
) -> None:  # R52
    assert winning_cards_due_at(finished_at=ended, time_zone=zone) == due


def test_never_less_than_8_whole_days() -> None:  # R52
    for minutes in range(0, 24 * 60, 7):
        ended = datetime(2024, 10, 20, tzinfo=ZoneInfo("Europe/Lisbon")) + timedelta(minutes=minutes)
        due = winning_cards_due_at(finished_at=ended, time_zone=ZoneInfo("Europe/Lisbon"))
        assert due - ended >= timedelta(days=8)


def test_a_naive_time_is_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        winning_cards_due_at(finished_at=datetime(2024, 3, 1), time_zone=UTC)  # noqa: DTZ001


def test_the_cards_destroyed_are_the_sold_ones_but_those_kept() -> None:  # R51
    sold = [(1, 1, 6), (1, 7, 10), (2, 1, 3)]
    assert cards_destroyed(sold=sold, kept=[(1, 5), (1, 7), (2, 1), (3, 9)]) == [
        (1, 1, 4),
        (1, 6, 6),
        (1, 8, 10),
        (2, 2, 3),
    ]
    assert cards_destroyed(sold=[], kept=[]) == []
    assert cards_destroyed(sold=[(4, 2, 2)], kept=[(4, 2)]) == []
