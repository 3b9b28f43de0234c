"""Celery tasks of the cards app: thin, idempotent, by id."""

from celery import shared_task

from cards import services


@shared_task(name="cards.card_set_generate")  # type: ignore[untyped-decorator]
def card_set_generate_task(card_set_id: int) -> None:
    """Generate a large card set in the background (safe to run twice)."""
    services.card_set_generate(card_set_id=card_set_id)
