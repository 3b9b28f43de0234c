"""Fixtures of the online loop's tests: the injected clock and the queue of ball tasks."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone, translation

from bingo.autodraw.tasks import draw_ball_task
from tests.autodraw.helpers import Clock, OnlineHall, Tasks


@pytest.fixture(autouse=True)
def english() -> Any:
    with translation.override("en"):
        yield


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    now = Clock()
    monkeypatch.setattr(timezone, "now", now)
    return now


@pytest.fixture
def tasks(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> Tasks:
    queue = Tasks(clock)
    monkeypatch.setattr(
        draw_ball_task, "apply_async", lambda args, eta=None, **kw: queue.take(tuple(args), eta)
    )
    monkeypatch.setattr(draw_ball_task, "delay", lambda *args: queue.take(args))
    return queue


@pytest.fixture
def lobby(db: None, clock: Clock) -> OnlineHall:
    return OnlineHall()
