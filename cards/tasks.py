"""Celery tasks of the cards app: thin, idempotent, by id.

Services queue them by name (bingo/common/tasks.py), so this module imports the services and
nothing imports it but CardsConfig.ready, which registers it in every process.
"""

from celery import shared_task

from cards import services


@shared_task(name=services.CARD_SET_GENERATE_TASK)  # type: ignore[untyped-decorator]
def card_set_generate_task(card_set_id: int) -> None:
    """Generate a large card set in the background (safe to run twice)."""
    services.card_set_generate(card_set_id=card_set_id)
