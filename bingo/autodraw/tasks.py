"""Celery tasks of the online game loop: thin and idempotent (bingo/autodraw/services.py; a
ball that fails is counted by bingo/faults/services.py, R98).

Nothing imports this module but BingoConfig.ready, which registers it in every process; the
services queue the ball task by name, the beat schedule names the reconciler
(settings.CELERY_BEAT_SCHEDULE).
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from bingo.autodraw import services
from bingo.faults import services as fault_services


@shared_task(name=services.DRAW_BALL_TASK)  # type: ignore[untyped-decorator]
def draw_ball_task(game_id: int, position: int) -> int | None:
    """Draw ball ``position`` of online game ``game_id`` if it is the next and due (R88), award
    and pay what it completes (R97), queue the next. Run twice, it draws once. Returns the
    ball's number, or None when there was nothing to do."""
    try:
        ball = services.online_ball_draw(game_id=game_id, position=position)
    except (OperationalError, InterfaceError):
        # The database busy or away (a lock wait, a deadlock, a lost connection) is not the ball
        # failing: nothing is counted, the reconciler queues the ball again, and a database away
        # for good makes the game null by ONLINE_FAULT_AFTER instead (R98).
        raise
    except Exception as exc:
        # Nothing drawn (one transaction); counted, so a ball that keeps failing makes the game
        # null (R98) rather than keep it drawing for ever. Raised again for the worker's log.
        fault_services.online_ball_failure_record(game_id=game_id, position=position, error=repr(exc))
        raise
    return ball.number if ball is not None else None


@shared_task(name=services.RECONCILE_TASK)  # type: ignore[untyped-decorator]
def reconcile_task() -> None:
    """Every second (beat): the online work due, and the balls whose task was lost."""
    services.online_reconcile()
