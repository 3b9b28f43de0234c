"""R101's arithmetic (bingo/engine/limits.py): periods on the hall's clock, tightening at once and
loosening after 24 hours, a newer request superseding a pending one, what is left of a limit.
Pure: no database; Hypothesis checks the rules against a step-by-step reference."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import limits
from bingo.engine.limits import LOOSEN_DELAY, LimitRequest, LimitState, Period

ZONES = [
    ZoneInfo(z) for z in ("Atlantic/Cape_Verde", "Europe/Lisbon", "UTC", "America/New_York", "Asia/Kolkata")
]
T0 = datetime(2026, 3, 11, 13, 0, tzinfo=UTC)

moments = st.datetimes(
    min_value=datetime(2020, 1, 1),  # noqa: DTZ001 - Hypothesis bounds are naive; the zone comes next
    max_value=datetime(2035, 12, 31),  # noqa: DTZ001
    timezones=st.just(UTC),
)
amounts = st.one_of(st.none(), st.integers(1, 500).map(lambda n: Decimal(n)))


# --- periods -----------------------------------------------------------------------------------


@given(moment=moments, zone=st.sampled_from(ZONES), period=st.sampled_from(list(Period)))
def test_the_period_holds_the_moment_and_starts_at_the_halls_midnight(moment, zone, period) -> None:
    start, end = limits.period_bounds(period, moment, zone)
    assert start <= moment < end
    local = start.astimezone(zone)
    assert local.time() == time(0)  # none of these zones skips midnight
    if period is Period.WEEK:
        assert local.weekday() == 0  # ISO week: Monday
    if period is Period.MONTH:
        assert local.day == 1
    # Periods follow one another with no gap.
    assert limits.period_bounds(period, end, zone)[0] == end


def test_the_hall_day_is_not_utcs() -> None:
    zone = ZoneInfo("Atlantic/Cape_Verde")  # UTC-1
    start, end = limits.period_bounds("day", datetime(2026, 3, 12, 0, 30, tzinfo=UTC), zone)
    assert (start, end) == (datetime(2026, 3, 11, 1, 0, tzinfo=UTC), datetime(2026, 3, 12, 1, 0, tzinfo=UTC))
    start, _ = limits.period_bounds("week", datetime(2026, 3, 16, 0, 59, tzinfo=UTC), zone)
    assert start == datetime(2026, 3, 9, 1, 0, tzinfo=UTC)
    start, end = limits.period_bounds("month", datetime(2026, 12, 31, 23, 0, tzinfo=UTC), zone)
    assert (start.month, end.year, end.month) == (12, 2027, 1)


def test_a_naive_moment_is_refused() -> None:
    with pytest.raises(ValueError):
        limits.period_bounds("day", datetime(2026, 1, 1), ZoneInfo("UTC"))  # noqa: DTZ001 - on purpose


@given(moment=moments, zone=st.sampled_from(ZONES), months=st.integers(0, 120))
def test_add_months_keeps_the_time_and_the_day_when_it_can(moment, zone, months) -> None:
    later = limits.add_months(moment, months, zone).astimezone(zone)
    local = moment.astimezone(zone)
    assert (later.year * 12 + later.month) - (local.year * 12 + local.month) == months
    assert later.day == local.day or (later.day < local.day and (later + timedelta(days=1)).day == 1)
    assert later.time().replace(fold=0) == local.time().replace(fold=0)


# --- tightening, loosening, superseding --------------------------------------------------------


def test_tighter_and_looser() -> None:
    d = Decimal
    assert limits.is_tighter(d(10), None)
    assert limits.is_tighter(d(10), d(20))
    assert not limits.is_tighter(None, d(10))
    assert not limits.is_tighter(d(20), d(20))
    assert limits.is_looser(None, d(10))
    assert limits.is_looser(d(30), d(20))
    assert not limits.is_looser(None, None)
    assert not limits.is_looser(d(20), d(20))


def test_r101_a_session_time_limit_in_minutes_follows_the_same_rule() -> None:
    """The play session's time limit (bingo/playtime) is whole minutes, not money: tighter
    (shorter, or a limit where there was none) or the same at once, looser (longer, or none)
    24 hours after it was asked for."""
    at = limits.limit_effective_at
    assert at(new=30, in_force=60, requested_at=T0) == T0
    assert at(new=200, in_force=None, requested_at=T0) == T0
    assert at(new=60, in_force=60, requested_at=T0) == T0
    assert at(new=None, in_force=None, requested_at=T0) == T0
    assert at(new=120, in_force=60, requested_at=T0) == T0 + LOOSEN_DELAY
    assert at(new=None, in_force=60, requested_at=T0) == T0 + LOOSEN_DELAY
    assert limits.is_tighter(10, 1440)
    assert not limits.is_tighter(1440, 10)
    assert limits.is_looser(None, 10)


@given(
    new=st.one_of(st.none(), st.integers(10, 1440)),
    in_force=st.one_of(st.none(), st.integers(10, 1440)),
)
def test_r101_minutes_and_money_loosen_alike(new, in_force) -> None:
    """The rule does not depend on what a limit bounds: minutes give the moment the same
    amounts of money would."""
    money = {
        "new": None if new is None else Decimal(new),
        "in_force": None if in_force is None else Decimal(in_force),
    }
    minutes = limits.limit_effective_at(new=new, in_force=in_force, requested_at=T0)
    assert minutes == limits.limit_effective_at(**money, requested_at=T0)
    assert (minutes == T0 + LOOSEN_DELAY) == (in_force is not None and (new is None or new > in_force))


def reference(requests: list[tuple[Decimal | None, datetime]], now: datetime) -> LimitState:
    """The rule told step by step, as a player lives it: each request cancels a pending one; a
    looser one waits 24 hours; the pending one takes effect when its time comes."""
    in_force: Decimal | None = None
    pending: LimitRequest | None = None
    for amount, at in requests:
        if at > now:
            break
        if pending is not None and pending.effective_at <= at:
            in_force, pending = pending.amount, None
        pending = None  # superseded
        if limits.is_looser(amount, in_force):
            pending = LimitRequest(amount, at, at + LOOSEN_DELAY)
        else:
            in_force = amount
    if pending is not None and pending.effective_at <= now:
        in_force, pending = pending.amount, None
    return LimitState(in_force, pending)


@given(
    steps=st.lists(st.tuples(st.integers(0, 60 * 3600), amounts), max_size=12),
    probes=st.lists(st.integers(0, 800 * 3600), min_size=1, max_size=8),
)
def test_limit_state_follows_the_rule_step_by_step(steps, probes) -> None:
    """Requests stored as the service stores them (effective_at from the limit in force when
    asked) give, at any moment, the reference's limit in force and pending change."""
    stored: list[LimitRequest] = []
    told: list[tuple[Decimal | None, datetime]] = []
    at = T0
    for gap, amount in steps:
        at += timedelta(seconds=gap)
        current = limits.limit_state(stored, at).in_force
        stored.append(
            LimitRequest(amount, at, limits.limit_effective_at(new=amount, in_force=current, requested_at=at))
        )
        told.append((amount, at))
    for probe in probes:
        now = T0 + timedelta(seconds=probe)
        assert limits.limit_state(stored, now) == reference(told, now)


@given(
    steps=st.lists(st.tuples(st.integers(0, 60 * 3600), amounts), min_size=1, max_size=12),
    probe=st.integers(0, 800 * 3600),
)
def test_a_limit_never_loosens_sooner_than_24_hours_after_it_was_asked(steps, probe) -> None:
    """Whatever the requests, the limit in force at any moment is no looser than one the
    player asked for at least 24 hours earlier or a tighter one asked since."""
    stored: list[LimitRequest] = []
    at = T0
    for gap, amount in steps:
        at += timedelta(seconds=gap)
        current = limits.limit_state(stored, at).in_force
        stored.append(
            LimitRequest(amount, at, limits.limit_effective_at(new=amount, in_force=current, requested_at=at))
        )
    now = T0 + timedelta(seconds=probe)
    in_force = limits.limit_state(stored, now).in_force
    made = [r for r in stored if r.requested_at <= now]
    if not made:
        assert in_force is None
        return
    # It is the amount of some request: one asked for 24 hours ago or more, or one that tightened.
    assert any(
        r.amount == in_force and (r.effective_at == r.requested_at or r.requested_at <= now - LOOSEN_DELAY)
        for r in made
    )


def test_a_pending_change_is_replaced_by_a_newer_request() -> None:
    d = Decimal
    first = LimitRequest(d(100), T0, T0)
    raise_ = LimitRequest(d(300), T0 + timedelta(hours=1), T0 + timedelta(hours=25))
    smaller_raise = LimitRequest(d(200), T0 + timedelta(hours=2), T0 + timedelta(hours=26))
    rows = [first, raise_, smaller_raise]
    assert limits.limit_state(rows, T0 + timedelta(hours=25, minutes=30)) == LimitState(d(100), smaller_raise)
    assert limits.limit_state(rows, T0 + timedelta(hours=26)) == LimitState(d(200), None)


@given(limit=amounts, used=st.integers(-500, 500).map(Decimal), amount=st.integers(1, 500).map(Decimal))
def test_a_movement_passes_the_limit_exactly_when_it_is_more_than_what_is_left(limit, used, amount) -> None:
    room = limits.limit_room(limit=limit, used=used)
    passed = limits.limit_passed(limit=limit, used=used, amount=amount)
    if limit is None:
        assert room is None
        assert not passed
    else:
        assert room is not None
        assert room >= 0
        assert passed == (used + amount > limit)
        if used >= 0:
            assert passed == (amount > room)
