"""A hall with a cashier and a manager, another hall's cashier, and players made on demand; the
registration form and API body a new player sends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from bingo.common.roles import Role
from bingo.models import Player
from bingo.players import services
from halls.models import Hall, StaffMembership
from tests.factories import DEFAULT_PASSWORD, UserFactory


def registration_form(username: str = "joana", **fields: object) -> dict[str, object]:
    """The registration page's form as an adult, Joana Lopes, fills it in (e-mail
    ``<username>@example.cv``, password DEFAULT_PASSWORD); ``fields`` change any field, and one
    given as None is left out."""
    data: dict[str, object] = {
        "username": username,
        "email": f"{username}@example.cv",
        "first_name": "Joana",
        "last_name": "Lopes",
        "birth_date": "1991-02-03",
        "password1": DEFAULT_PASSWORD,
        "password2": DEFAULT_PASSWORD,
        "adult_confirmed": "on",
    }
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


def registration_body(username: str = "api-ana", **fields: object) -> dict[str, object]:
    """The registration API's body from an adult, Ana Fortes (e-mail ``<username>@example.cv``,
    password DEFAULT_PASSWORD); ``fields`` change any field."""
    body: dict[str, object] = {
        "username": username,
        "email": f"{username}@example.cv",
        "first_name": "Ana",
        "last_name": "Fortes",
        "password": DEFAULT_PASSWORD,
        "birth_date": "1988-10-01",
        "adult_confirmed": True,
    }
    body.update(fields)
    return body


def staff(hall: Hall, role: Role, username: str) -> User:
    user = UserFactory(username=username, roles=[role])
    StaffMembership.objects.create(hall=hall, user=user, role=role.value)
    return user


@dataclass
class Halls:
    praia: Hall
    mindelo: Hall
    cashier: User
    manager: User
    other_cashier: User

    def player(
        self, username: str = "maria", hall: Hall | None = None, *, verified: bool = True, **fields: object
    ) -> Player:
        """A player registered as the page registers one, their e-mail verified (as if they had
        opened the mail's link) unless not ``verified``."""
        data: dict[str, object] = {
            "username": username,
            "email": f"{username}@example.cv",
            "first_name": "Maria",
            "last_name": "Tavares",
            "password": DEFAULT_PASSWORD,
            "birth_date": date(1990, 5, 17),
            "adult_confirmed": True,
            "hall": hall or self.praia,
        }
        data.update(fields)
        player = services.player_register(**data)  # type: ignore[arg-type]
        if verified:
            services.player_email_mark_verified(player=player)
            # Read alone: a refresh would drop the player's cached user (tests count queries).
            player.email_verified_at = (
                Player.objects.filter(pk=player.pk).values_list("email_verified_at", flat=True).get()
            )
        return player

    def deposit(self, player: Player, amount: str, key: str, by: User | None = None) -> object:
        return services.wallet_deposit(
            player=player, amount=Decimal(amount), staff=by or self.cashier, reference="CNI 123", key=key
        )


@pytest.fixture
def halls(db: None) -> Halls:
    praia = Hall.objects.create(name="Sala Praia")
    mindelo = Hall.objects.create(name="Sala Mindelo")
    return Halls(
        praia=praia,
        mindelo=mindelo,
        cashier=staff(praia, Role.CASHIER, "caixa"),
        manager=staff(praia, Role.MANAGER, "gerente"),
        other_cashier=staff(mindelo, Role.CASHIER, "caixa-mindelo"),
    )


Make = Callable[..., Player]
