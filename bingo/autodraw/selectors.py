"""Reads of the online game loop: which series an online game sells, which rooms and games have
work due (the reconciler's questions). Never writes.

``online_series_pick`` is a minimal private copy until the "online" helper's
``bingo/online/selectors.py`` one is folded in: the lead replaces this one with it.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.db.models import F, QuerySet

from bingo.engine.gamestate import GameState
from bingo.models import Ball, DrawMode, Game, OnlineRoom, Session
from cards.models import CardSet, Series
from halls.models import Hall


def online_series_pick(*, hall: Hall, variant: str, price: Decimal | None = None) -> Series | None:
    """The hall's next online series (R85) of ``variant`` (and ``price``, if given) that a new
    game can put on sale: ready, in stock with cards left, not on sale in another game, not
    double cards; the lowest order number first, so series are used in their order (R36-R38).
    None when there is none."""
    candidates = Series.objects.filter(
        hall=hall,
        online=True,
        double=False,
        card_set__variant=variant,
        card_set__status=CardSet.Status.READY,
        status=Series.Status.IN_STOCK,
        on_sale_in__isnull=True,
        last_sold__lt=F("size"),
    )
    if price is not None:
        candidates = candidates.filter(price=price)
    return candidates.order_by("order_number").first()


def online_rooms_active() -> QuerySet[OnlineRoom]:
    """Every online room open to players, with its room and hall."""
    return OnlineRoom.objects.filter(active=True).select_related("room__hall").order_by("pk")


def room_session_open(*, room_id: int) -> Session | None:
    """The room's latest session not yet ended (None if none)."""
    return (
        Session.objects.filter(room_id=room_id, ended_at__isnull=True).order_by("-starts_at", "-pk").first()
    )


def session_games(*, session: Session) -> list[Game]:
    """The session's games in their order."""
    return list(Game.objects.filter(session=session).order_by("number"))


def online_games_sales_due(*, now: datetime) -> list[int]:
    """Ids of online games still selling whose ``sales_close_at`` has passed (R93)."""
    return list(
        Game.objects.filter(
            state=GameState.SELLING.value,
            sales_close_at__lte=now,
            session__room__online__isnull=False,
        )
        .order_by("session_id", "number")
        .values_list("pk", flat=True)
    )


def online_games_drawing_overdue(*, before: datetime) -> list[tuple[int, int]]:
    """(game id, next ball position) of the online games drawing whose next ball was due
    before ``before``: their ball task was lost (a worker killed) or is late."""
    games = list(
        Game.objects.filter(
            state=GameState.DRAWING.value,
            draw_mode=DrawMode.ELECTRONIC,
            manual_from_ball__isnull=True,  # after R55's switch a person keys the balls in
            next_ball_at__lte=before,
            session__room__online__isnull=False,
        ).values_list("pk", flat=True)
    )
    counts: dict[int, int] = dict.fromkeys(games, 0)
    for game_id in Ball.objects.filter(game_id__in=games).values_list("game_id", flat=True):
        counts[game_id] += 1
    return [(game_id, counts[game_id] + 1) for game_id in games]


def online_sessions_waiting_to_draw() -> list[int]:
    """Ids of the sessions of online rooms with a game whose sales have closed and whose draw
    has not started: the loop starts the first of them when the session's turn comes (R60)."""
    return list(
        Game.objects.filter(state=GameState.SALES_CLOSED.value, session__room__online__isnull=False)
        .values_list("session_id", flat=True)
        .distinct()
    )
