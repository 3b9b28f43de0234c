"""A hall whose staff record notes in the acta (R61 j), l), m)): its caller, manager, cashier and
inspector, each holding their role, and a game drawing."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.test import Client

from bingo.common.roles import Role, user_roles_set
from bingo.models import Game
from halls.models import StaffMembership
from tests.draw.test_services import Draw
from tests.factories import UserFactory


class NotesHall(Draw):
    """A ``Draw`` hall with a manager and an inspector too, everyone holding their role, and
    ``game``, drawing."""

    def __init__(self, name: str = "Sala Praia") -> None:
        super().__init__(name=name)
        slug = name.lower().replace(" ", "-")
        self.manager = UserFactory(username=f"gerente-{slug}", password="!")
        self.inspector = UserFactory(username=f"inspetor-{slug}", password="!")
        StaffMembership.objects.create(hall=self.hall, user=self.manager, role=Role.MANAGER.value)
        StaffMembership.objects.create(hall=self.hall, user=self.inspector, role=Role.INSPECTOR.value)
        for user, role in (
            (self.caller, Role.CALLER),
            (self.cashier, Role.CASHIER),
            (self.manager, Role.MANAGER),
            (self.inspector, Role.INSPECTOR),
        ):
            user_roles_set(user=user, roles=[role])
        self.game_drawing: Game = self.drawing(cards=3)

    def staff(self, role: Role) -> Any:
        return {
            Role.CALLER: self.caller,
            Role.MANAGER: self.manager,
            Role.CASHIER: self.cashier,
            Role.INSPECTOR: self.inspector,
        }[role]


def as_user(user: Any, language: str = "en") -> Client:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    client.force_login(user)
    return client
