"""What becomes of a game's cards once it ends (R51-R52): plain arithmetic, no clock of its own.

R51: the cards used are collected and destroyed at the end of each game, except those that may
be evidence of an offence, handed to the regulator with the acta. R52: the winning cards are
kept for 8 days and destroyed after them, unless a pending process holds them.

**How the 8 days are counted.** On the hall's calendar, as the Portuguese civil code counts a
period of days (Código Civil, art. 279.º b) and c)): the day the game ended is not counted, and
the period ends at midnight closing its 8th day. A game that ended on the 1st (hall time, at any
hour) keeps its winning cards through the 9th; their destruction falls due at 00:00 of the 10th
in the hall's time zone. That is never less than 8 times 24 hours after the game, and the same
moment whichever server clock or time zone computes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, time, timedelta, tzinfo

#: R52: winning cards are kept this many days after the day their game ended.
DAYS_KEPT = 8

#: A card: (series order number, card number).
Card = tuple[int, int]


def winning_cards_due_at(*, finished_at: datetime, time_zone: tzinfo) -> datetime:
    """R52: the moment the winning cards of a game that ended at ``finished_at`` (aware) may be
    destroyed: midnight after the 8th day following the game's day, on the hall's clock
    (``time_zone``); an aware datetime in that zone."""
    if finished_at.tzinfo is None:
        raise ValueError("finished_at must be aware")
    day = finished_at.astimezone(time_zone).date()
    return datetime.combine(day + timedelta(days=DAYS_KEPT + 1), time.min, tzinfo=time_zone)


def cards_destroyed(
    *, sold: Iterable[tuple[int, int, int]], kept: Iterable[Card]
) -> list[tuple[int, int, int]]:
    """R51: the cards destroyed after a game, as ``(series, first, last)`` ranges in order: every
    card ``sold`` (ranges ``(series, first, last)``, possibly touching or repeated) but the
    ``kept`` ones (winning cards and evidence)."""
    held: dict[int, set[int]] = {}
    for series, number in kept:
        held.setdefault(series, set()).add(number)
    numbers: dict[int, set[int]] = {}
    for series, first, last in sold:
        numbers.setdefault(series, set()).update(range(first, last + 1))
    ranges: list[tuple[int, int, int]] = []
    for series in sorted(numbers):
        start: int | None = None
        previous = 0
        for number in sorted(numbers[series] - held.get(series, set())):
            if start is None or number != previous + 1:
                if start is not None:
                    ranges.append((series, start, previous))
                start = number
            previous = number
        if start is not None:
            ranges.append((series, start, previous))
    return ranges
