"""Celery task of online play: a room's standing orders filled in a game whose sales opened
(bingo/online/services.py ``online_orders_fill``, R93). Thin and idempotent.

Nothing imports this module but BingoConfig.ready, which registers it in every process; the
online loop queues it by name (``services.ORDERS_FILL_TASK``) after a game's sales open.
"""

from celery import shared_task
from django.conf import settings
from django.utils import translation

from bingo.online import services

#: A fill a database error stopped is tried again this many times, this many seconds apart (the
#: orders filled already count once; a game whose sales closed meanwhile is skipped, saying so).
FILL_RETRIES = 3
FILL_RETRY_SECONDS = 2


@shared_task(
    name=services.ORDERS_FILL_TASK,
    autoretry_for=(services.OrdersFillIncompleteError,),
    max_retries=FILL_RETRIES,
    default_retry_delay=FILL_RETRY_SECONDS,
)  # type: ignore[untyped-decorator]
def orders_fill_task(game_id: int) -> int:
    """Fill the standing orders of game ``game_id``'s room in it (and the games of its session
    opened with it), each through the one purchase path; run twice, it buys once. Returns how
    many orders it filled, skipped or ended; a database error on some of them is logged and the
    task runs again for them."""
    # A refusal's reason is kept as said: in the site's language (the lobby shows it).
    with translation.override(settings.LANGUAGE_CODE):
        return len(services.online_orders_fill(game_id=game_id))
