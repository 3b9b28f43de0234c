"""The online loop's injected clock and queue of ball tasks, as fixtures for every test that plays
online games (registered for the whole suite by ``pytest_plugins`` in tests/conftest.py)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from bingo.autodraw.tasks import draw_ball_task
from tests.autodraw.helpers import Clock, Tasks


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """``timezone.now``, moving only when the test says."""
    now = Clock()
    monkeypatch.setattr(timezone, "now", now)
    return now


@pytest.fixture
def tasks(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> Tasks:
    """The ball tasks the loop queues after commit, kept for the test to run at their time."""
    queue = Tasks(clock)
    monkeypatch.setattr(
        draw_ball_task, "apply_async", lambda args, eta=None, **kw: queue.take(tuple(args), eta)
    )
    monkeypatch.setattr(draw_ball_task, "delay", lambda *args: queue.take(args))
    return queue
