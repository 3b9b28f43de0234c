"""Queueing a Celery task by its registered name, once the transaction commits.

Tasks are thin adapters that import the one service they call (STYLE rule 3), so a service
that schedules a task must not import the task module back: the two would import each other.
The service names the task instead, the way Celery's ``send_task`` lets a producer do, and this
helper looks the name up in the Celery application's registry. Every process registers the
tasks at start-up (each app's ``AppConfig.ready`` imports its tasks modules), so the lookup
finds the task object itself and ``delay`` does what it did when services imported the task:
it runs the task in the process under ``CELERY_TASK_ALWAYS_EAGER`` and sends it to the broker
otherwise. (``send_task`` itself would always go to the broker, eager or not.) A name nobody
registered fails at once, inside the service's transaction, rather than after the commit.
"""

from __future__ import annotations

from datetime import datetime

from celery import current_app
from django.db import transaction


def task_enqueue_on_commit(name: str, *args: object, eta: datetime | None = None) -> None:
    """Queue the task registered as ``name`` with ``args`` once the current transaction commits
    (STYLE rule 4); outside a transaction, at once. With ``eta`` (timezone-aware), a worker runs
    it no earlier than that moment (the online draw's next ball, R88); eager mode runs it at once."""
    task = current_app.tasks[name]  # celery.exceptions.NotRegistered (a KeyError) if unknown
    if eta is None:
        transaction.on_commit(lambda: task.delay(*args))
    else:
        transaction.on_commit(lambda: task.apply_async(args, eta=eta))
