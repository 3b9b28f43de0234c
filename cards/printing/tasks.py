"""Celery tasks of printing: thin, idempotent, by id.

Services queue them by name (bingo/common/tasks.py), so this module imports the services and
nothing imports it but CardsConfig.ready, which registers it in every process.
"""

from celery import shared_task

from cards.printing import services


@shared_task(name=services.PRINT_JOB_RUN_TASK)  # type: ignore[untyped-decorator]
def print_job_run_task(print_job_id: int) -> None:
    """Print a large print job's PDF in the background (safe to run twice)."""
    services.print_job_run(print_job_id=print_job_id)
