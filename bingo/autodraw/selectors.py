"""Reads of the online game loop: which series an online game sells, which rooms and games have
work due (the reconciler's questions). Never writes.
The series a game puts on sale is picked by ``bingo.online.selectors.online_series_pick``, the
same the manager's scheduling checks with.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, F, Min, QuerySet

from bingo.engine.gamestate import GameState
from bingo.models import DrawMode, Game, OnlineRoom, RoomMode, Session
from cards.models import Series


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


def game_series_can_sell(*, game: Game) -> bool:
    """Whether a series ``game`` sells still has a card to sell: on sale (not retired, not
    exhausted) with cards left."""
    return Series.objects.filter(
        games__game=game, status=Series.Status.ON_SALE, last_sold__lt=F("size")
    ).exists()


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


def online_games_sales_short() -> list[int]:
    """Ids of continuous rooms' games selling, bought into, whose close of sales comes sooner
    after their first purchase than the room's ``sales_after_first_seconds``: one read a tick,
    of at most one game per continuous room."""
    rows = (
        Game.objects.filter(
            state=GameState.SELLING.value,
            sales_close_at__isnull=False,
            session__room__online__mode=RoomMode.CONTINUOUS,
            session__room__online__sales_after_first_seconds__gt=0,
        )
        .annotate(first_sale=Min("sales__created_at"))
        .filter(first_sale__isnull=False)
        .values_list("pk", "sales_close_at", "first_sale", "session__room__online__sales_after_first_seconds")
        .order_by("pk")
    )
    return [pk for pk, close, first, hold in rows if close < first + timedelta(seconds=hold)]


@dataclass(frozen=True)
class Overdue:
    """An online game drawing whose next ball was due at ``next_ball_at`` and is not out: the
    ball at ``position``."""

    game_id: int
    position: int
    next_ball_at: datetime


def online_games_drawing_overdue(*, before: datetime) -> list[Overdue]:
    """The online games drawing (electronically) whose next ball was due before ``before``:
    their ball task was lost (a worker killed) or is late; late enough, the system cannot
    decide them (R98). One query, the balls drawn counted in it: the reconciler asks every
    second."""
    rows = (
        Game.objects.filter(
            state=GameState.DRAWING.value,
            draw_mode=DrawMode.ELECTRONIC,
            manual_from_ball__isnull=True,  # after R55's switch a person keys the balls in
            next_ball_at__lte=before,
            session__room__online__isnull=False,
        )
        .annotate(drawn=Count("balls"))
        .order_by("pk")
        .values_list("pk", "drawn", "next_ball_at")
    )
    return [Overdue(game_id, drawn + 1, due) for game_id, drawn, due in rows if due is not None]


def online_sessions_waiting_to_draw() -> list[int]:
    """Ids of the sessions of online rooms with a game whose sales have closed and whose draw
    has not started: the loop starts the first of them when the session's turn comes (R60)."""
    return list(
        Game.objects.filter(state=GameState.SALES_CLOSED.value, session__room__online__isnull=False)
        .values_list("session_id", flat=True)
        .distinct()
    )
