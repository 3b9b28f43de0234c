"""Celery task of online play: a room's standing orders filled in a game whose sales opened
(bingo/online/services.py ``online_orders_fill``, R93). Thin and idempotent.

Nothing imports this module but BingoConfig.ready, which registers it in every process; the
online loop queues it by name (``services.ORDERS_FILL_TASK``) after a game's sales open.
"""

from celery import shared_task
from django.conf import settings
from django.utils import translation

from bingo.online import services


@shared_task(name=services.ORDERS_FILL_TASK)  # type: ignore[untyped-decorator]
def orders_fill_task(game_id: int) -> int:
    """Fill the standing orders of game ``game_id``'s room in it, oldest first, each through the
    one purchase path; run twice, it buys once. Returns how many orders it filled or ended."""
    # A refusal's reason is kept as said: in the site's language (the lobby shows it).
    with translation.override(settings.LANGUAGE_CODE):
        return len(services.online_orders_fill(game_id=game_id))
