"""Queueing a task by name after commit (bingo.common.tasks): what services use instead of
importing the tasks modules that import them."""

from __future__ import annotations

from typing import Any

import pytest
from celery import current_app
from celery.exceptions import NotRegistered

from bingo.common.tasks import task_enqueue_on_commit

pytestmark = pytest.mark.django_db

ran: list[tuple[object, ...]] = []


@current_app.task(name="tests.common.record")
def record(*args: object) -> None:
    ran.append(args)


@pytest.fixture(autouse=True)
def _nothing_ran() -> None:
    ran.clear()


def test_the_task_is_queued_only_once_the_transaction_commits(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    queued: list[tuple[object, ...]] = []
    monkeypatch.setattr(record, "delay", lambda *args: queued.append(args))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        task_enqueue_on_commit("tests.common.record", 7, "x")
        assert queued == []  # nothing is sent while the transaction may still roll back
    assert len(callbacks) == 1
    callbacks[0]()
    assert queued == [(7, "x")]
    assert ran == []


def test_eager_mode_runs_the_task_in_the_process(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    monkeypatch.setitem(current_app.conf, "task_always_eager", True)
    with django_capture_on_commit_callbacks(execute=True):
        task_enqueue_on_commit("tests.common.record", 3)
    assert ran == [(3,)]


def test_an_unknown_name_fails_at_once_and_queues_nothing(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks, pytest.raises(NotRegistered):
        task_enqueue_on_commit("tests.common.no_such_task", 1)
    assert callbacks == []
