"""Celery task of the demo hall: thin and idempotent (bingo/demohall/services.py). Beat runs it
every few seconds only where ``DEMO_BOTS`` is on (``make run``; settings.CELERY_BEAT_SCHEDULE)."""

from celery import shared_task
from django.conf import settings

from bingo.demohall import services


@shared_task(name="demohall.bots_buy")  # type: ignore[untyped-decorator]
def bots_buy_task() -> int:
    """The demo's simulated players buy cards in every online game on sale; the cards bought.
    Nothing where ``DEMO_BOTS`` is off, even if the task was queued by hand."""
    if not settings.DEMO_BOTS:
        return 0
    return services.demo_bots_buy()
