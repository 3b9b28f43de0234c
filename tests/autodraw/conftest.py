"""Fixtures of the online loop's tests (the clock and the ball tasks: tests/autodraw/fixtures.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from tests.autodraw.helpers import Clock, OnlineHall


@pytest.fixture(autouse=True)
def english() -> Any:
    with translation.override("en"):
        yield


@pytest.fixture
def lobby(db: None, clock: Clock) -> OnlineHall:
    return OnlineHall()
