"""Celery tasks of the acta: thin, idempotent.

Nothing imports this module but ActasConfig.ready, which registers it in every process; the
beat schedule names the task (settings.CELERY_BEAT_SCHEDULE).
"""

from celery import shared_task

from actas import services


@shared_task(name=services.WINNING_CARDS_DESTROY_DUE_TASK)  # type: ignore[untyped-decorator]
def winning_cards_destroy_due_task() -> int:
    """R52, daily: record destroyed, as the system, the winning cards whose 8 days are over and
    no pending complaint holds (safe to run twice: what is recorded is not recorded again).
    Returns how many games it recorded."""
    return len(services.winning_cards_destroy_due().recorded)
