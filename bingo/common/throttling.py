"""Rate limits per client address in a sliding window, shared by every worker through the cache
(Redis in production), and still limiting, in each process alone, when the cache is down.

A limit "N/period" (a scope's rate in REST_FRAMEWORK's DEFAULT_THROTTLE_RATES) allows N requests
from an address in any stretch of one period: the period is cut into ``SLICES`` slices, each a
counter in the cache, and a request counts the slices of the last period. The window slides a
slice at a time (a minute for an hour, a second for a minute), with no fixed hour that resets.
A request takes its place by an atomic increment first and gives it back if that went over the
limit, so requests arriving together in several workers never pass the limit between them (a
read-then-write list, as DRF's SimpleRateThrottle keeps, lets a burst through). A refused request
counts nothing, so knocking on while refused does not keep an address out.

Without the cache (Redis unreachable: a connection refused or timed out) a throttle does not
fail the request: each process counts in its own memory for ``RETRY_SECONDS``, logs one warning
for that interval, then tries the cache again. A local count keeps some protection (a process
still refuses a flood), where letting everything through would keep none; the price is that
each worker allows the limit on its own while Redis is down.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar

from django.core.cache import cache as default_cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from redis.exceptions import RedisError
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from bingo.common.clients import client_address

logger = logging.getLogger(__name__)

#: Slices a limit's period is cut into: the window slides by 1/SLICES of the period.
SLICES = 60
#: How long a process counts alone after the shared cache failed, before trying it again.
RETRY_SECONDS = 30.0
#: What a cache that cannot be reached raises (redis-py's errors, a socket's).
CACHE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)
_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

#: This process's counts while the shared cache is down (100 000 slices: thousands of addresses).
_local = LocMemCache("bingo-throttle-local", {"OPTIONS": {"MAX_ENTRIES": 100_000}})
_lock = threading.Lock()
#: Until when (on _monotonic) this process counts alone; 0 while the shared cache answers.
_alone_until = 0.0
#: The clock of that interval (tests move it).
_monotonic: Callable[[], float] = time.monotonic


def _cache_to_use(shared: BaseCache) -> BaseCache:
    return _local if _monotonic() < _alone_until else shared


def _cache_failed(error: BaseException) -> None:
    """Count alone for RETRY_SECONDS, saying so once for the interval."""
    global _alone_until
    with _lock:
        if _monotonic() < _alone_until:
            return  # another thread of this process said it already
        _alone_until = _monotonic() + RETRY_SECONDS
    logger.warning(
        "Rate limits: the shared cache is unreachable (%s); this process counts alone for %d s.",
        error,
        RETRY_SECONDS,
    )


def forget() -> None:
    """Trust the shared cache again and drop this process's own counts (tests)."""
    global _alone_until
    _alone_until = 0.0
    _local.clear()


class SlidingWindowThrottle(BaseThrottle):
    """At most ``rate`` ("N/period", or the scope's in REST_FRAMEWORK's DEFAULT_THROTTLE_RATES)
    requests per client address (bingo/common/clients.py) in any window of one period.

    A DRF throttle (``throttle_classes``) and a page's (``allow``), sharing one count per scope.
    """

    scope: ClassVar[str] = ""
    #: "N/period"; None: the scope's rate in the settings, read when the throttle is made.
    rate: ClassVar[str | None] = None
    #: The shared cache the counts live in (Redis in production; tests put one of their own).
    cache: ClassVar[BaseCache] = default_cache
    #: Wall-clock time, which every worker shares (tests move it).
    timer: ClassVar[Callable[[], float]] = time.time

    def __init__(self) -> None:
        rate = self.rate or str(api_settings.DEFAULT_THROTTLE_RATES[self.scope])
        count, period = rate.split("/")
        self.limit = int(count)
        self.period = _PERIODS[period.strip()[0]]
        self.slice = self.period / SLICES
        self._taken: tuple[BaseCache, str] | None = None
        self._wait: float | None = None

    def get_ident(self, request: Any) -> str:
        return client_address(request)

    def allow_request(self, request: Any, view: Any) -> bool:
        """Count this request from its address; False (counting nothing) once over the limit."""
        now = type(self).timer()
        current = math.floor(now / self.slice)
        prefix = f"throttle:{self.scope}:{self.get_ident(request)}"
        keys = [f"{prefix}:{n}" for n in range(current - SLICES + 1, current + 1)]
        cache = _cache_to_use(type(self).cache)
        try:
            return self._take(cache, keys, current, now)
        except CACHE_ERRORS as error:
            if cache is _local:
                raise
            _cache_failed(error)
            return self._take(_local, keys, current, now)

    def allow(self, request: Any) -> bool:
        """``allow_request`` for a page, which has no DRF view."""
        return self.allow_request(request, None)

    def release(self) -> None:
        """Give back the place this request took (what it was counted for did not happen)."""
        if self._taken is None:
            return
        cache, key = self._taken
        self._taken = None
        # The slice expired, or the cache went away: one count too many at worst.
        with contextlib.suppress(ValueError, *CACHE_ERRORS):
            cache.decr(key)

    def wait(self) -> float | None:
        """Seconds until a refused request's address is allowed again."""
        return self._wait

    def _take(self, cache: BaseCache, keys: list[str], current: int, now: float) -> bool:
        newest = keys[-1]
        timeout = math.ceil(self.period + self.slice)  # as long as the slice can be counted
        cache.add(newest, 0, timeout)
        try:
            mine = cache.incr(newest)
        except ValueError:  # expired between add and incr
            cache.set(newest, 1, timeout)
            mine = 1
        found = cache.get_many(keys[:-1])
        counts = [int(found.get(key, 0)) for key in keys[:-1]]
        if mine + sum(counts) <= self.limit:
            self._taken = (cache, newest)
            return True
        with contextlib.suppress(ValueError):
            cache.decr(newest)
        counts.append(mine - 1)
        self._wait = self._wait_for(counts, current, now)
        return False

    def _wait_for(self, counts: list[int], current: int, now: float) -> float:
        """When enough of the oldest slices have left the window for one more request."""
        excess = sum(counts) - self.limit + 1
        seen = 0
        for age, count in enumerate(counts):
            seen += count
            if seen >= excess:
                first = current - SLICES + 1 + age  # the slice whose leaving is enough
                return max((first + SLICES) * self.slice - now, 0.0)
        return float(self.period)
