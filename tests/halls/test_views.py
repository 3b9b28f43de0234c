"""The halls screens: who may open them, and creating halls, rooms, cash desks and staff."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from bingo.common.roles import Role, user_roles
from halls import services
from halls.models import CashDesk, Hall, Room, StaffMembership

pytestmark = pytest.mark.django_db

ClientAs = Callable[..., Client]
REFUSED = (Role.CASHIER, Role.CALLER, Role.INSPECTOR, Role.PLAYER)


@pytest.fixture
def hall() -> Hall:
    return services.hall_create(name="Sala Praia")


def _hall_form(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Sala Plateau",
        "currency": "CVE",
        "time_zone": "Atlantic/Cape_Verde",
        "card_limit_per_player": "12",
        "tax_rate": "10",
        "tax_threshold": "5000",
        "jackpot_active": "on",
    }
    data.update(overrides)
    return data


def _write_requests(hall: Hall, membership: StaffMembership) -> list[tuple[str, dict[str, Any]]]:
    return [
        (reverse("halls:hall_create"), _hall_form()),
        (reverse("halls:hall_edit", args=[hall.pk]), _hall_form(name="Outra")),
        (reverse("halls:room_create", args=[hall.pk]), {"room-name": "Salão 2"}),
        (reverse("halls:cash_desk_create", args=[hall.pk]), {"desk-name": "Caixa 9"}),
        (
            reverse("halls:staff_assign", args=[hall.pk]),
            {"staff-user": membership.user.pk, "staff-role": "caller"},
        ),
        (reverse("halls:staff_remove", args=[hall.pk, membership.pk]), {}),
    ]


@pytest.fixture
def membership(hall: Hall, make_user: Callable[..., User]) -> StaffMembership:
    return services.staff_assign(hall=hall, user=make_user(username="ana"), role=Role.CASHIER)


@pytest.fixture
def manager(client: Client, hall: Hall, make_user: Callable[..., User]) -> Client:
    """The test client, logged in as a manager of ``hall`` (a manager sees only their halls)."""
    user = make_user(Role.MANAGER, username="gerente")
    services.staff_assign(hall=hall, user=user, role=Role.MANAGER)
    client.force_login(user)
    return client


# --- access -----------------------------------------------------------------------------------


@pytest.mark.parametrize("role", REFUSED)
def test_other_roles_are_refused_every_halls_page_and_write(
    client_as: ClientAs, role: Role, hall: Hall, membership: StaffMembership
) -> None:
    client = client_as(role)
    for path in (reverse("halls:hall_list"), reverse("halls:hall_detail", args=[hall.pk])):
        assert client.get(path).status_code == 403, path
    for path, data in _write_requests(hall, membership):
        assert client.post(path, data).status_code == 403, path
    assert Hall.objects.count() == 1
    assert Hall.objects.get().name == "Sala Praia"
    assert not Room.objects.exists()
    assert not CashDesk.objects.exists()
    assert StaffMembership.objects.count() == 1


def test_anonymous_is_sent_to_login(client: Client, hall: Hall, membership: StaffMembership) -> None:
    response = client.get(reverse("halls:hall_list"))
    assert response.status_code == 302
    assert response["Location"] == "/entrar/?next=/salas/"
    for path, data in _write_requests(hall, membership):
        response = client.post(path, data)
        assert response.status_code == 302, path
        assert response["Location"].startswith("/entrar/"), path
    assert Hall.objects.count() == 1


def test_manager_dashboard_links_to_the_halls(client_as: ClientAs) -> None:
    body = client_as(Role.MANAGER).get("/gerente/").content.decode()
    assert 'href="/salas/"' in body
    assert 'href="/sessoes/"' in body


# --- halls ------------------------------------------------------------------------------------


def test_manager_creates_a_hall_with_its_rules(client_as: ClientAs) -> None:
    client = client_as(Role.MANAGER)
    assert client.get(reverse("halls:hall_create")).status_code == 200

    response = client.post(reverse("halls:hall_create"), _hall_form())

    hall = Hall.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("halls:hall_detail", args=[hall.pk])
    assert (hall.name, hall.currency, hall.time_zone) == ("Sala Plateau", "CVE", "Atlantic/Cape_Verde")
    assert hall.card_limit_per_player == 12
    assert (hall.tax_rate, hall.tax_threshold, hall.jackpot_active) == (10, 5000, True)
    listing = client.get(reverse("halls:hall_list")).content.decode()
    assert "Sala Plateau" in listing


def test_a_hall_with_an_unknown_time_zone_or_a_taken_name_is_refused(client_as: ClientAs, hall: Hall) -> None:
    client = client_as(Role.MANAGER)

    response = client.post(reverse("halls:hall_create"), _hall_form(time_zone="Mars/Olympus"))
    assert response.status_code == 200
    assert "Mars/Olympus" in response.context["form"].errors["time_zone"][0]

    response = client.post(reverse("halls:hall_create"), _hall_form(name="Sala Praia"))
    assert response.status_code == 200
    assert response.context["form"].errors["name"]
    assert Hall.objects.count() == 1


def test_a_zero_card_limit_is_refused_and_blank_means_no_limit(manager: Client, hall: Hall) -> None:
    client = manager
    edit = reverse("halls:hall_edit", args=[hall.pk])

    response = client.post(edit, _hall_form(name="Sala Praia", card_limit_per_player="0"))
    assert response.status_code == 200
    assert response.context["form"].errors["card_limit_per_player"]

    response = client.post(edit, _hall_form(name="Sala Praia", card_limit_per_player="", jackpot_active=""))
    assert response.status_code == 302
    hall.refresh_from_db()
    assert hall.card_limit_per_player is None
    assert hall.jackpot_active is False
    assert hall.tax_rate == 10


def test_the_manager_records_the_operator_and_concession_receipts_print(manager: Client, hall: Hall) -> None:
    """R17: the hall runs under a concession; its holder and number go on receipts and slips."""
    edit = reverse("halls:hall_edit", args=[hall.pk])
    licence = {"operator_name": "  Jogos do Atlântico, S.A. ", "licence_number": "CV-BING-07/2017"}

    assert manager.post(edit, _hall_form(name="Sala Praia", **licence)).status_code == 302

    hall.refresh_from_db()
    assert (hall.operator_name, hall.licence_number) == ("Jogos do Atlântico, S.A.", "CV-BING-07/2017")
    page = manager.get(reverse("halls:hall_detail", args=[hall.pk])).content.decode()
    assert "data-hall-operator>Jogos do Atlântico, S.A.<" in page
    assert "data-hall-licence>CV-BING-07/2017<" in page
    # A change of the other settings through the service alone keeps them.
    services.hall_update(
        hall=hall,
        name="Sala Praia",
        currency="CVE",
        time_zone="Atlantic/Cape_Verde",
        card_limit_per_player=None,
        tax_rate=Decimal("0"),
        tax_threshold=Decimal("0"),
        jackpot_active=False,
    )
    hall.refresh_from_db()
    assert hall.licence_number == "CV-BING-07/2017"


def test_hall_services_refuse_bad_rules_without_writing() -> None:
    with pytest.raises(ValidationError) as refused:
        services.hall_create(name="X", currency="escudo", tax_rate=Decimal("101"), card_limit_per_player=0)
    assert set(refused.value.message_dict) == {"currency", "tax_rate", "card_limit_per_player"}
    assert not Hall.objects.exists()


# --- rooms and cash desks -----------------------------------------------------------------------


def test_manager_adds_rooms_and_cash_desks(manager: Client, hall: Hall) -> None:
    client = manager

    assert (
        client.post(reverse("halls:room_create", args=[hall.pk]), {"room-name": "Salão 1"}).status_code == 302
    )
    assert (
        client.post(reverse("halls:cash_desk_create", args=[hall.pk]), {"desk-name": "Caixa 1"}).status_code
        == 302
    )

    assert list(hall.rooms.values_list("name", flat=True)) == ["Salão 1"]
    assert list(hall.cash_desks.values_list("name", flat=True)) == ["Caixa 1"]
    body = client.get(reverse("halls:hall_detail", args=[hall.pk])).content.decode()
    assert "Salão 1" in body
    assert "Caixa 1" in body


def test_a_room_or_desk_name_twice_in_one_hall_is_refused(manager: Client, hall: Hall) -> None:
    client = manager
    services.room_create(hall=hall, name="Salão 1")
    services.cash_desk_create(hall=hall, name="Caixa 1")

    room = client.post(reverse("halls:room_create", args=[hall.pk]), {"room-name": "Salão 1"})
    desk = client.post(reverse("halls:cash_desk_create", args=[hall.pk]), {"desk-name": "Caixa 1"})

    assert room.status_code == desk.status_code == 200
    assert room.context["room_form"].errors
    assert desk.context["desk_form"].errors
    assert hall.rooms.count() == 1
    assert hall.cash_desks.count() == 1


# --- staff ----------------------------------------------------------------------------------------


def test_manager_assigns_and_removes_a_role(
    manager: Client, hall: Hall, make_user: Callable[..., User]
) -> None:
    client = manager
    rui = make_user(username="rui")

    response = client.post(
        reverse("halls:staff_assign", args=[hall.pk]), {"staff-user": rui.pk, "staff-role": "caller"}
    )

    assert response.status_code == 302
    membership = StaffMembership.objects.get(user=rui)
    assert (membership.hall, membership.role) == (hall, "caller")
    rui.refresh_from_db()
    assert user_roles(User.objects.get(pk=rui.pk)) == {Role.CALLER}
    body = client.get(reverse("halls:hall_detail", args=[hall.pk])).content.decode()
    assert "rui" in body
    assert "Locutor" in body

    response = client.post(reverse("halls:staff_remove", args=[hall.pk, membership.pk]))

    assert response.status_code == 302
    assert not StaffMembership.objects.filter(user=rui).exists()
    assert user_roles(User.objects.get(pk=rui.pk)) == frozenset()


def test_the_same_role_twice_or_a_player_role_is_refused(
    manager: Client, hall: Hall, membership: StaffMembership
) -> None:
    client = manager
    url = reverse("halls:staff_assign", args=[hall.pk])

    twice = client.post(url, {"staff-user": membership.user.pk, "staff-role": "cashier"})
    player = client.post(url, {"staff-user": membership.user.pk, "staff-role": "player"})

    assert twice.status_code == player.status_code == 200
    assert twice.context["staff_form"].non_field_errors()
    assert player.context["staff_form"].errors["role"]
    assert StaffMembership.objects.filter(user=membership.user).count() == 1


def test_a_role_held_in_another_hall_keeps_its_group(hall: Hall, membership: StaffMembership) -> None:
    other = services.hall_create(name="Sala Mindelo")
    services.staff_assign(hall=other, user=membership.user, role=Role.CASHIER)

    services.staff_remove(hall=hall, user=membership.user, role=Role.CASHIER)

    assert user_roles(User.objects.get(pk=membership.user.pk)) == {Role.CASHIER}


def test_a_manager_cannot_remove_their_own_manager_role(
    client: Client, hall: Hall, make_user: Callable[..., User]
) -> None:
    manager = make_user(Role.MANAGER)
    own = services.staff_assign(hall=hall, user=manager, role=Role.MANAGER)
    client.force_login(manager)

    response = client.post(reverse("halls:staff_remove", args=[hall.pk, own.pk]), follow=True)

    assert StaffMembership.objects.filter(pk=own.pk).exists()
    assert [str(m) for m in response.context["messages"]]
