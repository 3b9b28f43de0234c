"""manage.py demo_setup's demo hall: each demo staff account works there in its own role, so that
`make run` opens on a hall the demo manager manages (access is per hall)."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from bingo.autodraw.services import SYSTEM_USERNAME
from bingo.common.roles import Role, user_roles
from bingo.management.commands.demo_setup import DEMO_HALL
from halls.models import Hall, StaffMembership

pytestmark = pytest.mark.django_db

STAFF = {"gerente": Role.MANAGER, "caixa": Role.CASHIER, "locutor": Role.CALLER, "inspetor": Role.INSPECTOR}


def demo_setup(settings: Any) -> str:
    settings.DEBUG = True
    out = StringIO()
    call_command("demo_setup", stdout=out)
    return out.getvalue()


def memberships() -> set[tuple[str, str, str]]:
    """The staff memberships, but the online rooms' system user's: it calls the online room's
    games and records the demo's simulated players' credit (bingo/autodraw, bingo/demohall)."""
    found = StaffMembership.objects.exclude(user__username=SYSTEM_USERNAME)
    return set(found.values_list("hall__name", "user__username", "role"))


def test_each_demo_staff_account_works_in_the_demo_hall_in_its_role(settings: Any) -> None:
    output = demo_setup(settings)

    hall = Hall.objects.get()
    assert hall.name == DEMO_HALL
    assert memberships() == {(DEMO_HALL, username, role.value) for username, role in STAFF.items()}
    # Two rooms of the hall and one cash desk, plus the demo's online room (bingo.online).
    assert hall.rooms.filter(online__isnull=True).count() == 2
    assert hall.cash_desks.count() == 1
    assert hall.rooms.filter(online__isnull=False).count() == 1
    assert DEMO_HALL in output
    for username, role in STAFF.items():
        assert user_roles(get_user_model().objects.get(username=username)) == {role}


def test_the_demo_manager_lands_on_the_demo_hall(settings: Any, client: Client) -> None:
    demo_setup(settings)
    client.post("/entrar/", {"username": "gerente", "password": "gerente-demo"})

    halls = client.get("/salas/").context["halls"]

    assert [hall.name for hall in halls] == [DEMO_HALL]


def test_running_it_again_gives_back_a_removed_role_and_adds_nothing_else(settings: Any) -> None:
    demo_setup(settings)
    StaffMembership.objects.filter(user__username="gerente").delete()
    before = Hall.objects.get()

    demo_setup(settings)

    assert list(Hall.objects.all()) == [before]
    assert memberships() == {(DEMO_HALL, username, role.value) for username, role in STAFF.items()}
    assert before.rooms.filter(online__isnull=True).count() == 2
    assert before.cash_desks.count() == 1
    assert before.rooms.filter(online__isnull=False).count() == 1
