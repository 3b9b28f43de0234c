"""Fixtures of the system faults' tests (R98-R99): the online loop's own (tests/autodraw: the
English UI, an online hall on the injected clock; the clock and the ball tasks come from
tests/autodraw/fixtures.py for the whole suite)."""

from tests.autodraw.conftest import english, lobby

__all__ = ["english", "lobby"]
