"""Roles, login/logout, the home router and the role dashboards (bingo/roles.py, bingo/views.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import AnonymousUser, Group
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse

from bingo.common.roles import ROLE_DUTIES, Role, role_required, roles_in_order, user_roles, user_roles_set
from tests.conftest import MakeUser
from tests.factories import DEFAULT_PASSWORD

DASHBOARD_PATHS = {
    Role.MANAGER: "/gerente/",
    Role.CASHIER: "/caixa/",
    Role.CALLER: "/locutor/",
    Role.INSPECTOR: "/inspetor/",
    Role.PLAYER: "/jogador/",
}
PORTUGUESE_HEADINGS = {
    Role.MANAGER: "Painel do gerente",
    Role.CASHIER: "Painel do caixa",
    Role.CALLER: "Painel do locutor",
    Role.INSPECTOR: "Painel do inspetor",
    Role.PLAYER: "Painel do jogador",
}

ClientAs = Callable[..., Client]


# --- the roles themselves ---------------------------------------------------------------------


@pytest.mark.django_db
def test_migration_created_one_group_per_role() -> None:
    names = set(Group.objects.values_list("name", flat=True))
    assert set(Role.values) <= names


def test_dashboards_live_at_portuguese_paths_named_in_english() -> None:
    for role, path in DASHBOARD_PATHS.items():
        assert reverse(f"dashboard-{role.value}") == path


@pytest.mark.django_db
def test_user_roles_reads_group_membership(make_user: MakeUser) -> None:
    user = make_user(Role.CASHIER, Role.CALLER)
    assert user_roles(user) == {Role.CASHIER, Role.CALLER}


def test_anonymous_user_holds_no_role() -> None:
    assert user_roles(AnonymousUser()) == frozenset()


@pytest.mark.django_db
def test_superuser_gets_no_implicit_role(make_user: MakeUser) -> None:
    admin = make_user(is_superuser=True, is_staff=True)
    assert user_roles(admin) == frozenset()


@pytest.mark.django_db
def test_user_roles_set_replaces_roles_and_keeps_other_groups(make_user: MakeUser) -> None:
    user = make_user(Role.MANAGER, Role.PLAYER)
    other = Group.objects.create(name="night shift")
    user.groups.add(other)

    user_roles_set(user=user, roles=[Role.INSPECTOR])

    assert user_roles(user) == {Role.INSPECTOR}
    assert user.groups.filter(pk=other.pk).exists()


def test_roles_in_order_puts_manager_first_and_player_last() -> None:
    assert roles_in_order({Role.PLAYER, Role.CALLER, Role.MANAGER}) == [
        Role.MANAGER,
        Role.CALLER,
        Role.PLAYER,
    ]


def test_role_required_needs_at_least_one_role() -> None:
    with pytest.raises(ValueError, match="At least one role"):
        role_required()


@pytest.mark.django_db
def test_role_required_decorator_admits_the_role_and_refuses_others(make_user: MakeUser) -> None:
    @role_required(Role.CASHIER, Role.MANAGER)
    def view(request: HttpRequest) -> HttpResponse:
        return HttpResponse("sold")

    request = RequestFactory().get("/venda/")
    request.user = make_user(Role.MANAGER)
    assert view(request).content == b"sold"

    request.user = make_user(Role.PLAYER)
    with pytest.raises(PermissionDenied):
        view(request)

    request.user = AnonymousUser()
    response = view(request)
    assert response.status_code == 302
    assert response["Location"] == "/entrar/?next=/venda/"


def test_every_role_lists_its_duties_each_linked() -> None:
    assert set(ROLE_DUTIES) == set(Role)
    for duties in ROLE_DUTIES.values():
        assert duties
        assert all(duty.rules.startswith("R") for duty in duties)
        for duty in duties:
            # Issue 24: every tile opens what it names; none says «Ainda não disponível».
            assert duty.url_name is not None, duty.title
            assert reverse(duty.url_name).startswith("/")


def pending(role: Role) -> int:
    """Duties of ``role`` whose feature is not built yet (shown as not yet available)."""
    return sum(1 for duty in ROLE_DUTIES[role] if duty.url_name is None)


# --- dashboards -------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("role", list(Role))
def test_each_role_reaches_its_own_dashboard(client_as: ClientAs, role: Role) -> None:
    response = client_as(role).get(DASHBOARD_PATHS[role])

    assert response.status_code == 200
    body = response.content.decode()
    assert f"<h1>{PORTUGUESE_HEADINGS[role]}</h1>" in body
    assert body.count("Ainda não disponível") == pending(role)
    for duty in ROLE_DUTIES[role]:
        if duty.url_name is not None:
            assert f'href="{reverse(duty.url_name)}"' in body


@pytest.mark.django_db
@pytest.mark.parametrize("role", list(Role))
def test_each_role_is_refused_every_other_dashboard(client_as: ClientAs, role: Role) -> None:
    client = client_as(role)
    for other, path in DASHBOARD_PATHS.items():
        if other is role:
            continue
        response = client.get(path)
        assert response.status_code == 403, path
        assert "Acesso negado" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("path", DASHBOARD_PATHS.values())
def test_anonymous_is_sent_to_login_from_every_dashboard(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"] == f"/entrar/?next={path}"


@pytest.mark.django_db
def test_superuser_without_role_is_refused_the_dashboards(client: Client, make_user: MakeUser) -> None:
    client.force_login(make_user(is_superuser=True, is_staff=True))
    assert client.get("/gerente/").status_code == 403


@pytest.mark.django_db
def test_user_with_two_roles_reaches_both_dashboards_only(client_as: ClientAs) -> None:
    client = client_as(Role.CASHIER, Role.CALLER)
    assert client.get("/caixa/").status_code == 200
    assert client.get("/locutor/").status_code == 200
    assert client.get("/inspetor/").status_code == 403


# --- the home router --------------------------------------------------------------------------


@pytest.mark.django_db
def test_home_sends_anonymous_to_login(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/entrar/?next=/"


@pytest.mark.django_db
@pytest.mark.parametrize("role", list(Role))
def test_home_sends_a_single_role_straight_to_its_dashboard(client_as: ClientAs, role: Role) -> None:
    response = client_as(role).get("/")
    assert response.status_code == 302
    assert response["Location"] == DASHBOARD_PATHS[role]


@pytest.mark.django_db
def test_home_lists_the_dashboards_of_several_roles(client_as: ClientAs) -> None:
    response = client_as(Role.PLAYER, Role.MANAGER).get("/")

    assert response.status_code == 200
    body = response.content.decode()
    assert "Escolha um painel" in body
    assert 'class="choice" href="/gerente/"' in body
    assert 'class="choice" href="/jogador/"' in body
    assert 'class="choice" href="/caixa/"' not in body
    assert body.index('class="choice" href="/gerente/"') < body.index('class="choice" href="/jogador/"')


@pytest.mark.django_db
def test_home_says_when_no_role_is_assigned(client_as: ClientAs) -> None:
    response = client_as().get("/")

    assert response.status_code == 200
    body = response.content.decode()
    assert "Sem função atribuída" in body
    assert reverse("admin:index") not in body


@pytest.mark.django_db
def test_home_offers_the_administration_to_staff_without_role(client: Client, make_user: MakeUser) -> None:
    client.force_login(make_user(is_superuser=True, is_staff=True))
    body = client.get("/").content.decode()
    assert "Sem função atribuída" in body
    assert f'href="{reverse("admin:index")}"' in body


# --- login and logout -------------------------------------------------------------------------


@pytest.mark.django_db
def test_login_page_is_in_portuguese(client: Client) -> None:
    body = client.get("/entrar/").content.decode()
    assert "<h1>Entrar</h1>" in body
    assert "Nome de utilizador" in body
    assert "Palavra-passe" in body


@pytest.mark.django_db
def test_login_with_the_right_password_goes_to_the_dashboard(client: Client, make_user: MakeUser) -> None:
    make_user(Role.CASHIER, username="ana")

    response = client.post("/entrar/", {"username": "ana", "password": DEFAULT_PASSWORD}, follow=True)

    assert response.redirect_chain == [("/", 302), ("/caixa/", 302)]
    assert response.status_code == 200
    assert response.wsgi_request.user.username == "ana"


@pytest.mark.django_db
def test_login_honours_a_safe_next(client: Client, make_user: MakeUser) -> None:
    make_user(Role.CASHIER, Role.CALLER, username="rui")
    response = client.post(
        "/entrar/?next=/locutor/", {"username": "rui", "password": DEFAULT_PASSWORD, "next": "/locutor/"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/locutor/"


@pytest.mark.django_db
def test_login_with_a_wrong_password_is_refused_in_portuguese(client: Client, make_user: MakeUser) -> None:
    make_user(Role.CASHIER, username="ana")

    response = client.post("/entrar/", {"username": "ana", "password": "wrong-password"})

    assert response.status_code == 200
    assert "_auth_user_id" not in client.session
    body = response.content.decode()
    assert "O nome de utilizador ou a palavra-passe não estão certos." in body


@pytest.mark.django_db
def test_logout_refuses_get_and_keeps_the_user_logged_in(client_as: ClientAs) -> None:
    client = client_as(Role.PLAYER)

    response = client.get("/sair/")

    assert response.status_code == 405
    assert client.get("/jogador/").status_code == 200


@pytest.mark.django_db
def test_logout_by_post_ends_the_session(client_as: ClientAs) -> None:
    client = client_as(Role.PLAYER)

    response = client.post("/sair/")

    assert response.status_code == 302
    assert response["Location"] == "/entrar/"
    assert client.get("/jogador/").status_code == 302


@pytest.mark.django_db
def test_logout_requires_the_csrf_token(make_user: MakeUser) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user(Role.PLAYER))

    assert client.post("/sair/").status_code == 403
    assert client.get("/jogador/").status_code == 200


@pytest.mark.django_db
def test_header_shows_the_user_their_roles_and_a_logout_button(client: Client, make_user: MakeUser) -> None:
    client.force_login(
        make_user(Role.CASHIER, Role.CALLER, username="ana", first_name="Ana", last_name="Lopes")
    )

    body = client.get("/caixa/").content.decode()

    assert "Ana Lopes" in body
    assert '<a class="badge badge-role" href="/caixa/">Caixa</a>' in body
    assert '<a class="badge badge-role" href="/locutor/">Locutor</a>' in body
    assert '<form action="/sair/" method="post">' in body
