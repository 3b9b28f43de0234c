"""Celery task of play sessions: thin and idempotent (bingo/playtime/services.py). Beat runs it
every minute (settings.CELERY_BEAT_SCHEDULE)."""

from celery import shared_task

from bingo.playtime import services


@shared_task(name="playtime.end_due")  # type: ignore[untyped-decorator]
def end_due_task() -> int:
    """End the play sessions idle too long, past their time limit (R101) or inactive
    (PT-806/71), their summaries kept even if the player never comes back (PT-806/67).
    Returns how many ended."""
    return len(services.play_session_end_due())
