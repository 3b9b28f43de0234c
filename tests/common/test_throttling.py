"""The rate limits' counter (bingo/common/throttling.py): a sliding window per address in the shared
cache, atomic across workers, and a count in each process, with one warning per interval, while
the cache (Redis) cannot be reached (issue 20 point 3)."""

from __future__ import annotations

import logging
import threading
import uuid

import pytest
from django.conf import settings
from django.core.cache import cache as default_cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from django.test import RequestFactory

from bingo.common import throttling
from bingo.common.throttling import RETRY_SECONDS, SlidingWindowThrottle

T0 = 1_750_000_020.0  # on a minute's boundary
UNREACHABLE_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class FivePerHour(SlidingWindowThrottle):
    scope = "test_five_per_hour"
    rate = "5/hour"


def from_address(address: str = "203.0.113.7") -> object:
    return RequestFactory().post("/", REMOTE_ADDR=address)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock(T0)
    monkeypatch.setattr(SlidingWindowThrottle, "timer", clock)
    return clock


@pytest.fixture
def interval(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The clock of the interval a process counts alone."""
    clock = Clock(1000.0)
    monkeypatch.setattr(throttling, "_monotonic", clock)
    return clock


def tries(count: int, address: str = "203.0.113.7") -> list[bool]:
    return [FivePerHour().allow(from_address(address)) for _ in range(count)]


def test_five_an_hour_then_refused_with_the_wait_until_the_first_leaves(clock: Clock) -> None:
    assert tries(3) == [True] * 3
    clock.now = T0 + 20 * 60
    assert tries(2) == [True] * 2
    throttle = FivePerHour()

    assert not throttle.allow(from_address())
    assert throttle.wait() == 40 * 60  # the three of T0 leave the window at T0 + 60 min
    assert tries(1, address="203.0.113.8") == [True]  # another address has its own count


def test_the_window_slides_a_sixtieth_of_the_period_at_a_time(clock: Clock) -> None:
    assert tries(5) == [True] * 5
    clock.now = T0 + 59 * 60 + 59
    assert tries(1) == [False]
    clock.now = T0 + 60 * 60
    assert tries(6) == [True] * 5 + [False]


def test_a_place_given_back_is_free_again(clock: Clock) -> None:
    taken = [FivePerHour() for _ in range(5)]
    assert all(throttle.allow(from_address()) for throttle in taken)
    taken[0].release()
    taken[0].release()  # once only

    assert tries(2) == [True, False]


def _burst(cache: BaseCache, monkeypatch: pytest.MonkeyPatch, threads: int = 24) -> int:
    """``threads`` requests from one address let go at once: how many were allowed."""
    monkeypatch.setattr(SlidingWindowThrottle, "cache", cache)
    start = threading.Barrier(threads)
    allowed: list[bool] = []

    def one() -> None:
        throttle = FivePerHour()
        start.wait()
        allowed.append(throttle.allow(from_address()))

    workers = [threading.Thread(target=one) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(allowed)


def test_a_burst_at_once_never_passes_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each request takes its place by an atomic increment: a read-then-write count (DRF's
    SimpleRateThrottle) lets requests arriving together all read "none yet"."""
    assert _burst(LocMemCache(f"burst-{uuid.uuid4()}", {}), monkeypatch) == 5


@pytest.mark.redis
def test_on_redis_the_counts_are_shared_and_a_burst_never_passes_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL not set")
    monkeypatch.setattr(FivePerHour, "scope", f"test_{uuid.uuid4().hex}")  # nothing left from a run before

    assert _burst(default_cache, monkeypatch) == 5
    # Another throttle instance, as another worker would, reads the same count from Redis.
    assert tries(1) == [False]


# --- without the shared cache ---------------------------------------------------------------------


@pytest.fixture
def redis_down(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SlidingWindowThrottle, "cache", RedisCache(UNREACHABLE_REDIS, {}))


def _warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "bingo.common.throttling"]


def test_without_redis_the_process_counts_alone_and_warns_once_per_interval(
    clock: Clock, interval: Clock, redis_down: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="bingo.common.throttling"):
        assert tries(7) == [True] * 5 + [False] * 2  # still limited, from this process's count
        assert len(_warnings(caplog)) == 1
        interval.now += RETRY_SECONDS / 2
        assert tries(1) == [False]
        assert len(_warnings(caplog)) == 1  # Redis not tried again within the interval

        interval.now += RETRY_SECONDS
        assert tries(1) == [False]  # tried again, still down: the local count goes on

    assert len(_warnings(caplog)) == 2
    assert "unreachable" in _warnings(caplog)[0].getMessage()
    assert _warnings(caplog)[0].levelno == logging.WARNING


def test_when_redis_answers_again_the_shared_count_is_used(
    clock: Clock, interval: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SlidingWindowThrottle, "cache", RedisCache(UNREACHABLE_REDIS, {}))
    assert tries(5) == [True] * 5  # counted in this process

    shared = LocMemCache(f"shared-{uuid.uuid4()}", {})
    monkeypatch.setattr(SlidingWindowThrottle, "cache", shared)
    assert tries(1) == [False]  # within the interval: still this process's count
    interval.now += RETRY_SECONDS + 1

    assert tries(1) == [True]  # the shared cache again, where nothing was counted
    assert shared.get_many([f"throttle:{FivePerHour.scope}:203.0.113.7:{int(T0 // 60)}"])
