"""The card-stock tests' hall and logged-in client."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from bingo.common.roles import Role
from halls.models import Hall, StaffMembership
from tests.conftest import MakeUser


@pytest.fixture
def hall(db: None) -> Hall:
    return Hall.objects.create(name="Salão da Praia")


@pytest.fixture
def client_as(client: Client, make_user: MakeUser, hall: Hall) -> Callable[..., Client]:
    """``client_as(Role.MANAGER)``: the client logged in with those roles; a manager manages
    ``hall`` (series are per hall: a manager sees only those of the halls they manage)."""

    def login(*roles: Role) -> Client:
        user = make_user(*roles)
        if Role.MANAGER in roles:
            StaffMembership.objects.create(hall=hall, user=user, role=Role.MANAGER.value)
        client.force_login(user)
        return client

    return login
