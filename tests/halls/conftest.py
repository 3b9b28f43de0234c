"""Halls, sessions and games for the ball-set and jackpot tests."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bingo.games import services as game_services
from bingo.models import Game, Session
from halls.models import BallSet, Hall, Room
from halls.services import ball_set_check_record, ball_set_create


class HallWithSessions:
    """A hall with one room, where sessions and games are opened on demand."""

    def __init__(self, name: str) -> None:
        self.hall = Hall.objects.create(name=name)
        self.room = Room.objects.create(hall=self.hall, name="Salão 1")

    def session(self) -> Session:
        start = timezone.now()
        return game_services.session_open(
            room=self.room, starts_at=start, scheduled_end=start + timedelta(hours=4), user=None
        )

    def game(self, session: Session | None = None, variant: str = "90") -> Game:
        return game_services.game_create(session=session or self.session(), variant=variant)

    def ball_set(self, serial: str = "JB-001", size: int = 90, games_played: int = 0) -> BallSet:
        return ball_set_create(hall=self.hall, serial_number=serial, size=size, games_played=games_played)

    def checked_set(self, session: Session, **kwargs: object) -> BallSet:
        """A ball set whose start-of-session check for ``session`` found every ball fine."""
        ball_set = self.ball_set(**kwargs)  # type: ignore[arg-type]
        ball_set_check_record(ball_set=ball_set, session=session, phase="start")
        return ball_set


# Named apart from test_api.py's own ``praia`` and ``mindelo``, which mean staffed halls there.
@pytest.fixture
def venue(db: None) -> HallWithSessions:
    return HallWithSessions("Sala Plateau")


@pytest.fixture
def other_venue(db: None) -> HallWithSessions:
    return HallWithSessions("Sala Sal Rei")
