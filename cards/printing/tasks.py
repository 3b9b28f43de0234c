"""Celery tasks of printing: thin, idempotent, by id."""

from celery import shared_task


@shared_task(name="cards.print_job_run")  # type: ignore[untyped-decorator]
def print_job_run_task(print_job_id: int) -> None:
    """Print a large print job's PDF in the background (safe to run twice)."""
    from cards.printing.services import print_job_run

    print_job_run(print_job_id=print_job_id)
