"""Managers manage only their halls: a manager of one hall finds nothing of another hall on any
screen or endpoint (404, and nothing changes), lists and form choices hold only their halls,
a superuser holding the manager role manages every hall, and creating a hall makes its
creator its manager."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bingo.common.roles import Role, user_roles_set
from bingo.games import services as game_services
from bingo.models import Game, GameState, Session
from cards.models import PrintJob, Series
from halls import services as hall_services
from halls.models import CashDesk, Hall, Room, StaffMembership
from halls.selectors import hall_list_for, hall_roles_for
from tests.cards.factories import card_set_make, series_make
from tests.factories import UserFactory, two_halls

pytestmark = pytest.mark.django_db

#: force_login needs no password: an unusable one skips the slow hashing.
UNUSABLE = "!"


class Staffed:
    """A hall with a room, a desk, a cashier, a session with a planned and a selling game, three
    series and a print job, and a manager (holding the manager role group and a membership)."""

    def __init__(self, name: str) -> None:
        self.hall = hall_services.hall_create(name=name)
        self.room = hall_services.room_create(hall=self.hall, name="Salão 1")
        self.desk = hall_services.cash_desk_create(hall=self.hall, name="Caixa 1")
        self.manager = UserFactory(username=f"gerente-{name}", roles=[Role.MANAGER], password=UNUSABLE)
        hall_services.staff_assign(hall=self.hall, user=self.manager, role=Role.MANAGER)
        self.cashier = UserFactory(username=f"caixa-{name}", password=UNUSABLE)
        self.cashier_membership = hall_services.staff_assign(
            hall=self.hall, user=self.cashier, role=Role.CASHIER
        )
        start = timezone.now()
        self.session = game_services.session_open(
            room=self.room, starts_at=start, scheduled_end=start + timedelta(hours=4), user=None
        )
        card_set = card_set_make(variant="90", size=90)
        self.series = series_make(hall=self.hall, card_set=card_set, order_number=1)
        self.spare = series_make(hall=self.hall, card_set=card_set, order_number=2)
        self.retirable = series_make(hall=self.hall, card_set=card_set, order_number=3)
        self.planned = game_services.game_create(session=self.session, variant="90")
        self.selling = game_services.game_open_sales(
            game=game_services.game_create(session=self.session, variant="90"), series=[self.series]
        )
        self.job = PrintJob(series=self.spare, first=1, last=2, status=PrintJob.Status.DONE)
        self.job.pdf.save("job.pdf", ContentFile(b"%PDF-1.4 two cards"), save=False)
        self.job.save()


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = tmp_path


praia, mindelo = two_halls(Staffed)


def logged_in(user: User) -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    client.force_login(user)
    return client


def snapshot() -> tuple[Any, ...]:
    """Everything a manager's request could change."""
    return (
        list(Hall.objects.order_by("pk").values_list("name", "currency", "time_zone")),
        Room.objects.count(),
        CashDesk.objects.count(),
        list(StaffMembership.objects.order_by("pk").values_list("pk", flat=True)),
        Session.objects.count(),
        list(Game.objects.order_by("pk").values_list("state", flat=True)),
        list(Series.objects.order_by("pk").values_list("status", flat=True)),
        PrintJob.objects.count(),
    )


def _hall_form(name: str) -> dict[str, str]:
    return {
        "name": name,
        "currency": "CVE",
        "time_zone": "Atlantic/Cape_Verde",
        "tax_rate": "0",
        "tax_threshold": "0",
    }


def other_halls_screens(other: Staffed) -> list[tuple[str, str, dict[str, Any]]]:
    """Every manager screen about one object of ``other``: (method, path, POST data)."""
    hall = other.hall.pk
    return [
        ("get", reverse("halls:hall_detail", args=[hall]), {}),
        ("get", reverse("halls:hall_edit", args=[hall]), {}),
        ("post", reverse("halls:hall_edit", args=[hall]), _hall_form("Taken over")),
        ("post", reverse("halls:room_create", args=[hall]), {"room-name": "Salão 9"}),
        ("post", reverse("halls:cash_desk_create", args=[hall]), {"desk-name": "Caixa 9"}),
        (
            "post",
            reverse("halls:staff_assign", args=[hall]),
            {"staff-user": other.cashier.pk, "staff-role": "caller"},
        ),
        ("post", reverse("halls:staff_remove", args=[hall, other.cashier_membership.pk]), {}),
        ("get", reverse("games:session_detail", args=[other.session.pk]), {}),
        ("get", reverse("games:game_create", args=[other.session.pk]), {}),
        ("post", reverse("games:game_create", args=[other.session.pk]), {"variant": "90", "plan": "default"}),
        ("get", reverse("games:game_detail", args=[other.planned.pk]), {}),
        ("post", reverse("games:game_open_sales", args=[other.planned.pk]), {"first": other.spare.pk}),
        ("post", reverse("games:game_close_sales", args=[other.selling.pk]), {"confirmado": "1"}),
        ("get", reverse("cards:series_detail", args=[other.series.pk]), {}),
        ("post", reverse("cards:series_print", args=[other.series.pk]), {"first": 1, "last": 6}),
        ("get", reverse("cards:series_retire", args=[other.retirable.pk]), {}),
        ("post", reverse("cards:series_retire", args=[other.retirable.pk]), {}),
        ("get", reverse("cards:print_job_status", args=[other.job.pk]), {}),
        ("get", reverse("cards:print_job_download", args=[other.job.pk]), {}),
    ]


# --- screens ------------------------------------------------------------------------------------


def test_a_manager_finds_nothing_of_another_hall_on_the_screens(praia: Staffed, mindelo: Staffed) -> None:
    client = logged_in(praia.manager)
    before = snapshot()

    for method, path, data in other_halls_screens(mindelo):
        response = getattr(client, method)(path, data)
        assert response.status_code == 404, (method, path, response.status_code)

    assert snapshot() == before


def test_the_same_screens_work_for_the_other_halls_own_manager(praia: Staffed, mindelo: Staffed) -> None:
    # The 404s above come from the hall, not from the request: the hall's own manager gets through.
    client = logged_in(mindelo.manager)
    for method, path, data in other_halls_screens(mindelo):
        response = getattr(client, method)(path, data)
        assert response.status_code in (200, 302), (method, path, response.status_code)


def test_a_manager_lists_only_their_halls_objects(praia: Staffed, mindelo: Staffed) -> None:
    client = logged_in(praia.manager)

    halls = client.get(reverse("halls:hall_list"))
    sessions = client.get(reverse("games:session_list"))
    series = client.get(reverse("cards:series_list"))

    assert [hall.name for hall in halls.context["halls"]] == ["Sala Praia"]
    assert "Sala Mindelo" not in halls.content.decode()
    assert [s.pk for s in sessions.context["sessions"]] == [praia.session.pk]
    assert reverse("games:session_detail", args=[mindelo.session.pk]) not in sessions.content.decode()
    assert {s.hall_id for s in series.context["series_list"]} == {praia.hall.pk}
    assert reverse("cards:series_detail", args=[mindelo.series.pk]) not in series.content.decode()


def test_a_manager_is_offered_only_their_halls_rooms_and_series(praia: Staffed, mindelo: Staffed) -> None:
    client = logged_in(praia.manager)

    session_form = client.get(reverse("games:session_create")).context["form"]
    series_form = client.get(reverse("cards:series_create")).context["form"]
    open_form = client.get(reverse("games:game_detail", args=[praia.planned.pk])).context["open_form"]

    assert list(session_form.fields["room"].queryset) == [praia.room]
    assert list(series_form.fields["hall"].queryset) == [praia.hall]
    assert {s.hall_id for s in open_form.fields["first"].queryset} == {praia.hall.pk}


def test_a_manager_cannot_open_a_session_or_a_series_in_another_hall(
    praia: Staffed, mindelo: Staffed
) -> None:
    client = logged_in(praia.manager)
    before = snapshot()

    session = client.post(
        reverse("games:session_create"),
        {"room": mindelo.room.pk, "starts_at": "2026-11-23T20:00", "scheduled_end": "2026-11-23T23:00"},
    )
    series = client.post(
        reverse("cards:series_create"),
        {
            "hall": mindelo.hall.pk,
            "order_number": 4,
            "source": "existing",
            "card_set": mindelo.series.card_set_id,
            "price": "50.00",
            "back_colour": "#1e88e5",
            "face_colour": "#fdd835",
        },
    )

    assert session.status_code == series.status_code == 200
    assert session.context["form"].errors["room"]
    assert series.context["form"].errors["hall"]
    assert snapshot() == before


def test_a_manager_who_is_a_caller_elsewhere_may_look_there_but_not_manage(
    praia: Staffed, mindelo: Staffed
) -> None:
    hall_services.staff_assign(hall=mindelo.hall, user=praia.manager, role=Role.CALLER)
    client = logged_in(praia.manager)

    listing = client.get(reverse("games:session_list"))
    detail = client.get(reverse("games:session_detail", args=[mindelo.session.pk]))
    game = client.get(reverse("games:game_detail", args=[mindelo.planned.pk]))
    add_game = client.post(reverse("games:game_create", args=[mindelo.session.pk]), {"variant": "90"})
    close = client.post(reverse("games:game_close_sales", args=[mindelo.selling.pk]), {"confirmado": "1"})

    assert {s.pk for s in listing.context["sessions"]} == {praia.session.pk, mindelo.session.pk}
    assert detail.status_code == game.status_code == 200
    assert detail.context["can_manage"] is False
    assert reverse("games:game_create", args=[mindelo.session.pk]) not in detail.content.decode()
    assert game.context["open_form"] is None
    assert add_game.status_code == close.status_code == 404
    mindelo.selling.refresh_from_db()
    assert mindelo.selling.state == GameState.SELLING
    assert mindelo.session.games.count() == 2


def test_a_caller_sees_only_the_sessions_of_their_halls(praia: Staffed, mindelo: Staffed) -> None:
    caller = UserFactory(username="locutor", roles=[Role.CALLER], password=UNUSABLE)
    hall_services.staff_assign(hall=praia.hall, user=caller, role=Role.CALLER)
    client = logged_in(caller)

    listing = client.get(reverse("games:session_list"))

    assert [s.pk for s in listing.context["sessions"]] == [praia.session.pk]
    assert client.get(reverse("games:session_detail", args=[mindelo.session.pk])).status_code == 404
    assert client.get(reverse("games:game_detail", args=[mindelo.planned.pk])).status_code == 404


def test_a_manager_role_without_any_hall_manages_nothing(praia: Staffed) -> None:
    client = logged_in(UserFactory(username="sem-sala", roles=[Role.MANAGER], password=UNUSABLE))

    assert list(client.get(reverse("halls:hall_list")).context["halls"]) == []
    assert list(client.get(reverse("games:session_list")).context["sessions"]) == []
    assert list(client.get(reverse("cards:series_list")).context["series_list"]) == []
    assert client.get(reverse("halls:hall_detail", args=[praia.hall.pk])).status_code == 404


def test_a_superuser_with_the_manager_role_manages_every_hall(praia: Staffed, mindelo: Staffed) -> None:
    admin = UserFactory(username="admin", roles=[Role.MANAGER], is_superuser=True, password=UNUSABLE)
    client = logged_in(admin)

    halls = client.get(reverse("halls:hall_list")).context["halls"]
    room = client.post(reverse("halls:room_create", args=[mindelo.hall.pk]), {"room-name": "Salão 2"})
    api_halls = client.get(reverse("api:hall-list")).json()

    assert [hall.name for hall in halls] == ["Sala Mindelo", "Sala Praia"]
    assert room.status_code == 302
    assert mindelo.hall.rooms.filter(name="Salão 2").exists()
    assert api_halls["count"] == 2
    assert all(hall["my_roles"] == ["manager"] for hall in api_halls["results"])
    assert hall_roles_for(admin, hall_id=praia.hall.pk) == {Role.MANAGER}


def test_a_superuser_without_the_manager_role_manages_no_hall(praia: Staffed) -> None:
    # bingo.common.roles: a superuser holds no role unless given one; no hall is opened to them either.
    admin = UserFactory(username="admin", is_superuser=True, is_staff=True, password=UNUSABLE)

    assert not hall_list_for(admin, Role.MANAGER).exists()
    assert logged_in(admin).get(reverse("api:hall-detail", args=[praia.hall.pk])).status_code == 404


def test_creating_a_hall_makes_its_creator_its_manager(praia: Staffed) -> None:
    client = logged_in(praia.manager)

    response = client.post(reverse("halls:hall_create"), _hall_form("Sala Sal"))

    hall = Hall.objects.get(name="Sala Sal")
    assert response["Location"] == reverse("halls:hall_detail", args=[hall.pk])
    assert list(hall.staff.values_list("user", "role")) == [(praia.manager.pk, "manager")]
    listed = [h.name for h in client.get(reverse("halls:hall_list")).context["halls"]]
    assert listed == ["Sala Praia", "Sala Sal"]
    assert client.get(reverse("halls:hall_detail", args=[hall.pk])).status_code == 200


def test_a_hall_whose_manager_cannot_be_recorded_is_not_created(
    praia: Staffed, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(**kwargs: Any) -> None:
        raise ValidationError("refused")

    monkeypatch.setattr(hall_services, "staff_assign", refuse)
    client = logged_in(praia.manager)

    response = client.post(reverse("halls:hall_create"), _hall_form("Sala Sal"))

    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == ["refused"]
    assert not Hall.objects.filter(name="Sala Sal").exists()


# --- the API ------------------------------------------------------------------------------------


def other_halls_endpoints(other: Staffed) -> list[tuple[str, str, dict[str, Any] | None]]:
    """Every endpoint a manager uses about one object of ``other``: (method, path, body)."""
    return [
        ("get", reverse("api:hall-detail", args=[other.hall.pk]), None),
        ("get", reverse("api:hall-rooms", args=[other.hall.pk]), None),
        ("post", reverse("api:hall-rooms", args=[other.hall.pk]), {"name": "Salão 9"}),
        ("get", reverse("api:room-detail", args=[other.room.pk]), None),
        ("get", reverse("api:hall-cash-desks", args=[other.hall.pk]), None),
        ("post", reverse("api:hall-cash-desks", args=[other.hall.pk]), {"name": "Caixa 9"}),
        ("get", reverse("api:cash-desk-detail", args=[other.desk.pk]), None),
        ("get", reverse("api:session-detail", args=[other.session.pk]), None),
        ("post", reverse("api:session-games", args=[other.session.pk]), {"variant": "90"}),
        ("get", reverse("api:game-detail", args=[other.planned.pk]), None),
        ("post", reverse("api:game-open-sales", args=[other.planned.pk]), {"series": [other.spare.pk]}),
        ("post", reverse("api:game-close-sales", args=[other.selling.pk]), None),
        ("get", reverse("api:game-sales", args=[other.selling.pk]), None),
        ("get", reverse("api:series-detail", args=[other.series.pk]), None),
        ("post", reverse("api:series-retire", args=[other.retirable.pk]), None),
        ("get", reverse("api:series-pdf", args=[other.series.pk]), None),
    ]


def test_a_manager_finds_nothing_of_another_hall_in_the_api(praia: Staffed, mindelo: Staffed) -> None:
    client = logged_in(praia.manager)
    before = snapshot()

    for method, path, body in other_halls_endpoints(mindelo):
        response = getattr(client, method)(path, data=body, content_type="application/json")
        assert response.status_code == 404, (method, path, response.status_code)

    assert snapshot() == before
    own = logged_in(mindelo.manager)
    for method, path, body in other_halls_endpoints(mindelo):
        response = getattr(own, method)(path, data=body, content_type="application/json")
        assert response.status_code in (200, 201), (method, path, response.status_code)


def test_a_manager_lists_only_their_halls_objects_in_the_api(praia: Staffed, mindelo: Staffed) -> None:
    client = logged_in(praia.manager)

    halls = client.get(reverse("api:hall-list")).json()["results"]
    sessions = client.get(reverse("api:session-list")).json()["results"]
    series = client.get(reverse("api:series-list")).json()["results"]
    of_mindelo = client.get(reverse("api:series-list"), {"hall": mindelo.hall.pk}).json()

    assert [hall["id"] for hall in halls] == [praia.hall.pk]
    assert [session["id"] for session in sessions] == [praia.session.pk]
    assert {s["hall"] for s in series} == {praia.hall.pk}
    assert len(series) == 3
    assert of_mindelo["count"] == 0


def test_a_manager_cannot_create_a_series_in_another_hall_through_the_api(
    praia: Staffed, mindelo: Staffed
) -> None:
    body = {
        "hall": mindelo.hall.pk,
        "order_number": 4,
        "card_set": mindelo.series.card_set_id,
        "price": "50.00",
        "back_colour": "#000000",
        "face_colour": "#FFFFFF",
    }

    response = logged_in(praia.manager).post(
        reverse("api:series-list"), body, content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json() == {"hall": [f'Invalid pk "{mindelo.hall.pk}" - object does not exist.']}
    assert Series.objects.filter(hall=mindelo.hall).count() == 3


def test_an_inspector_still_reads_every_halls_series(praia: Staffed, mindelo: Staffed) -> None:
    inspector = logged_in(UserFactory(username="inspetor", roles=[Role.INSPECTOR], password=UNUSABLE))

    listed = inspector.get(reverse("api:series-list")).json()

    assert listed["count"] == 6
    assert inspector.get(reverse("api:series-detail", args=[mindelo.series.pk])).status_code == 200
    assert inspector.post(reverse("api:series-retire", args=[mindelo.retirable.pk])).status_code == 403


def test_a_manager_who_reads_as_inspector_elsewhere_retires_nothing_there(
    praia: Staffed, mindelo: Staffed
) -> None:
    user_roles_set(user=praia.manager, roles=[Role.MANAGER, Role.INSPECTOR])
    client = logged_in(praia.manager)

    seen = client.get(reverse("api:series-detail", args=[mindelo.retirable.pk]))
    retire = client.post(reverse("api:series-retire", args=[mindelo.retirable.pk]))
    pdf = client.get(reverse("api:series-pdf", args=[mindelo.retirable.pk]))

    assert seen.status_code == 200
    assert retire.status_code == pdf.status_code == 403
    mindelo.retirable.refresh_from_db()
    assert mindelo.retirable.status == Series.Status.IN_STOCK
