"""Races for the tests on PostgreSQL: real threads, each with its own database connection.

SQLite serializes writers, so a race run on it proves nothing: the tests that race call
``postgresql_only()`` first (or skip in an autouse fixture) and are marked ``postgres``."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import pytest
from django.db import connection, connections

#: Why a race test skips on SQLite, unless it says more precisely.
ROW_LOCKS_ONLY = "row-lock races are meaningful on PostgreSQL only (SQLite serializes writers)"


def postgresql_only(reason: str = ROW_LOCKS_ONLY) -> None:
    """Skips the calling test unless the database is PostgreSQL."""
    if connection.vendor != "postgresql":
        pytest.skip(reason)


def run_threads(
    workers: Sequence[Callable[[], object]], *, timeout: float = 120, together: bool = True
) -> None:
    """Runs each worker in a thread of its own, all let go at once by a barrier (unless
    ``together`` is false: each starts as soon as it can), and waits up to ``timeout`` seconds for
    each. Each thread closes its database connections when it ends. A worker catches the refusals
    its race expects; anything else it raises fails the test here, as does a thread still running
    after its wait (a hang, or a lock never granted)."""
    start = threading.Barrier(len(workers)) if together else None
    errors: list[BaseException] = []

    def run(worker: Callable[[], object]) -> None:
        try:
            if start is not None:
                start.wait()
            worker()
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(worker,)) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread is still waiting"
    assert not errors, errors
