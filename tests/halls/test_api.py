"""The halls API: staff see only the halls they work in; managers add rooms and cash desks."""

from __future__ import annotations

import pytest
from django.urls import reverse

from bingo.common.roles import Role
from halls.models import CashDesk, Hall, Room, StaffMembership
from tests.clients import api
from tests.common.access import CALLERS, STAFF, refused_status, staff_of_each_role
from tests.factories import UserFactory, two_halls

#: The tests log in with force_login: an unusable password skips the slow hashing.
UNUSABLE = "!"


class Staffed:
    """A hall with a room, a desk and one person in each staff role."""

    def __init__(self, name: str) -> None:
        self.hall = Hall.objects.create(name=name)
        self.room = Room.objects.create(hall=self.hall, name="Sala 1")
        self.desk = CashDesk.objects.create(hall=self.hall, name="Caixa 1")
        self.staff = staff_of_each_role(self.hall, name)


praia, mindelo = two_halls(Staffed)


READ = set(STAFF)
MANAGER = {Role.MANAGER}

# (name, method, url name, object the url is about, body, roles of the hall allowed, status)
ENDPOINTS = [
    ("hall", "get", "hall-detail", "hall", None, READ, 200),
    ("rooms", "get", "hall-rooms", "hall", None, READ, 200),
    ("room create", "post", "hall-rooms", "hall", {"name": "Sala 2"}, MANAGER, 201),
    ("room", "get", "room-detail", "room", None, READ, 200),
    ("desks", "get", "hall-cash-desks", "hall", None, READ, 200),
    ("desk create", "post", "hall-cash-desks", "hall", {"name": "Caixa 2"}, MANAGER, 201),
    ("desk", "get", "cash-desk-detail", "desk", None, READ, 200),
]


@pytest.mark.parametrize(("where", "role"), CALLERS, ids=lambda v: v.value if isinstance(v, Role) else v)
@pytest.mark.parametrize(("name", "method", "url_name", "about", "body", "allowed", "ok"), ENDPOINTS)
def test_role_and_hall_matrix(praia, mindelo, where, role, name, method, url_name, about, body, allowed, ok):
    target = {"hall": praia.hall, "room": praia.room, "desk": praia.desk}[about]
    user = {
        "own": praia.staff.get(role),
        "other": mindelo.staff.get(role),
        # Holds every role group, but works in no hall.
        "nobody": UserFactory(username="nobody", roles=list(STAFF), password=UNUSABLE),
        "anon": None,
    }[where]
    counts = Room.objects.count(), CashDesk.objects.count()

    response = getattr(api(user), method)(
        reverse(f"api:{url_name}", args=[target.pk]), data=body, content_type="application/json"
    )

    if where == "own" and role in allowed:
        assert response.status_code == ok, response.content[:300]
        return
    if where == "own":
        assert response.status_code == 403
        assert response.json()["detail"] == "Your role does not allow this."
    else:  # 404: as if the hall did not exist
        assert response.status_code == refused_status(where=where, role=role, allowed=allowed, method=method)
    assert (Room.objects.count(), CashDesk.objects.count()) == counts


def test_a_user_lists_only_the_halls_they_work_in(praia, mindelo):
    cashier = praia.staff[Role.CASHIER]
    StaffMembership.objects.create(hall=praia.hall, user=cashier, role=Role.CALLER.value)
    body = api(cashier).get(reverse("api:hall-list")).json()
    assert body["count"] == 1
    (hall,) = body["results"]
    assert (hall["id"], hall["name"], hall["currency"]) == (praia.hall.pk, "Sala Praia", "CVE")
    assert hall["my_roles"] == ["cashier", "caller"]
    assert hall["tax_threshold"] == "0.00"

    nobody = UserFactory(username="nobody", roles=list(STAFF), password=UNUSABLE)
    assert api(nobody).get(reverse("api:hall-list")).json()["count"] == 0


def test_a_manager_adds_a_room_and_a_desk(praia):
    manager = api(praia.staff[Role.MANAGER])
    response = manager.post(
        reverse("api:hall-rooms", args=[praia.hall.pk]),
        {"name": " Sala VIP "},
        content_type="application/json",
    )
    assert response.status_code == 201
    room = Room.objects.get(name="Sala VIP")
    assert response.json() == {"id": room.pk, "hall": praia.hall.pk, "name": "Sala VIP"}
    assert response["Location"] == reverse("api:room-detail", args=[room.pk])

    response = manager.post(
        reverse("api:hall-cash-desks", args=[praia.hall.pk]),
        {"name": "Caixa 2"},
        content_type="application/json",
    )
    assert response.status_code == 201
    assert response.json()["name"] == "Caixa 2"
    listed = manager.get(reverse("api:hall-cash-desks", args=[praia.hall.pk])).json()
    assert [d["name"] for d in listed["results"]] == ["Caixa 1", "Caixa 2"]


def test_a_duplicate_room_name_is_refused(praia):
    response = api(praia.staff[Role.MANAGER]).post(
        reverse("api:hall-rooms", args=[praia.hall.pk]), {"name": "Sala 1"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert Room.objects.filter(hall=praia.hall).count() == 1


def test_a_manager_of_one_hall_adds_nothing_to_another(praia, mindelo):
    manager = api(praia.staff[Role.MANAGER])
    response = manager.post(
        reverse("api:hall-rooms", args=[mindelo.hall.pk]), {"name": "Sala 2"}, content_type="application/json"
    )
    assert response.status_code == 404
    assert not Room.objects.filter(name="Sala 2").exists()
