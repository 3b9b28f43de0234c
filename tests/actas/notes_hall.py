"""A hall whose staff record notes in the acta (R61 j), l), m)): its caller, manager, cashier and
inspector, each holding their role, and a game drawing."""

from __future__ import annotations

from typing import Any

from django.test import Client

from bingo.common.roles import Role, user_roles_set
from bingo.models import Game
from tests.clients import logged_in
from tests.draw.test_api import Hall


class NotesHall(Hall):
    """The draw API tests' ``Hall`` (a caller, a cashier, a manager and an inspector), everyone
    holding their role, and ``game_drawing``, drawing."""

    def __init__(self, name: str = "Sala Praia") -> None:
        super().__init__(name=name)
        for user, role in (
            (self.caller, Role.CALLER),
            (self.cashier, Role.CASHIER),
            (self.manager, Role.MANAGER),
            (self.inspector, Role.INSPECTOR),
        ):
            user_roles_set(user=user, roles=[role])
        self.game_drawing: Game = self.drawing(cards=3)


def as_user(user: Any, language: str = "en") -> Client:
    """A client logged in as ``user``, in English unless told."""
    return logged_in(user, language)
