"""Reads of the system's faults (R98-R99): which online games the system can no longer decide
because one ball's task keeps failing. Never writes. (Which games are overdue is the online
loop's own question, ``bingo.autodraw.selectors.online_games_drawing_overdue``: the reconciler
reads it once a tick and takes from it both the balls to queue again and the games late past
``ONLINE_FAULT_AFTER``.)"""

from __future__ import annotations

from django.db.models import Count

from bingo.engine.gamestate import GameState
from bingo.models import Ball, BallFailure, Game


def online_games_ball_failing(*, at_least: int) -> list[int]:
    """Ids of the online games drawing whose next ball's task has failed ``at_least`` times
    (``BallFailure``): the reconciler's candidates for a system fault (R98) besides the games
    overdue."""
    rows = (
        BallFailure.objects.filter(
            game__state=GameState.DRAWING.value, game__session__room__online__isnull=False
        )
        .values("game_id", "position")
        .annotate(n=Count("pk"))
        .filter(n__gte=at_least)
        .order_by()
    )
    candidates = {(row["game_id"], row["position"]) for row in rows}
    if not candidates:
        return []
    drawn = dict(
        Ball.objects.filter(game_id__in={g for g, _p in candidates})
        .values("game_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("game_id", "n")
    )
    return sorted({g for g, p in candidates if p == drawn.get(g, 0) + 1})


def ball_failures_count(*, game: Game, position: int) -> int:
    """How many times the task of ball ``position`` of ``game`` failed (R98)."""
    return BallFailure.objects.filter(game=game, position=position).count()
