"""factory_boy factories shared by the tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import factory
import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from bingo.ballsets.services import ball_set_check_record, ball_set_create
from bingo.common.roles import Role, user_roles_set
from bingo.games import services as game_services
from bingo.models import Game, Player, Session
from bingo.players.services import wallet_post
from halls.models import BallSet, Hall, Room

DEFAULT_PASSWORD = "correct-horse-battery-staple"


class UserFactory(factory.django.DjangoModelFactory):
    """A user; ``UserFactory(roles=[Role.CASHIER])`` gives them roles. Password: DEFAULT_PASSWORD."""

    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    first_name = factory.Faker("first_name", locale="pt_PT")
    last_name = factory.Faker("last_name", locale="pt_PT")
    password = factory.django.Password(DEFAULT_PASSWORD)

    @factory.post_generation
    def roles(self, create: bool, extracted: Iterable[Role] | None, **kwargs: Any) -> None:
        if create and extracted:
            user_roles_set(user=self, roles=extracted)


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


def adult_player(
    user: Any,
    hall: Hall,
    *,
    deposit: str | None = None,
    cashier: Any = None,
    reference: str = "CC 1",
    verified: bool = True,
) -> Player:
    """``user`` as a player of ``hall``, born in 1990, their age confirmed now, their e-mail
    verified (unless not ``verified``); with ``deposit``, that much paid into their wallet by
    ``cashier`` against the document ``reference``."""
    player = Player.objects.create(
        user=user,
        hall=hall,
        birth_date=date(1990, 1, 1),
        adult_confirmed_at=timezone.now(),
        email_verified_at=timezone.now() if verified else None,
    )
    if deposit is not None:
        wallet_post(
            player=player, kind="deposit", amount=Decimal(deposit), recorded_by=cashier, reference=reference
        )
    return player


def two_halls(make: Callable[[str], Any]) -> tuple[Any, Any]:
    """The fixtures ``praia`` and ``mindelo``: ``make("Sala Praia")`` and ``make("Sala Mindelo")``,
    two halls for the tests of what one hall's people may see and do of the other's. A module
    takes them with ``praia, mindelo = two_halls(AHallClass)``."""

    @pytest.fixture
    def praia(db: None) -> Any:
        return make("Sala Praia")

    @pytest.fixture
    def mindelo(db: None) -> Any:
        return make("Sala Mindelo")

    return praia, mindelo
