"""Fixtures of the online play tests: the standing orders' fill tasks kept in a queue
(tests/online/helpers.py ``Fills``)."""

from __future__ import annotations

import pytest

from bingo.online.tasks import orders_fill_task
from tests.online.helpers import Fills


@pytest.fixture
def fills(monkeypatch: pytest.MonkeyPatch) -> Fills:
    """The ``online.orders_fill`` tasks queued after commit, for the test to run (or not)."""
    queue = Fills()
    monkeypatch.setattr(orders_fill_task, "delay", queue.take)
    return queue
