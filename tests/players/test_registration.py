"""Registering an online player (issue point 1): validators, a unique e-mail whatever its case,
of age only (settings.PLAYER_MIN_AGE) and said so explicitly, the player role, logged in after,
and the login at /entrar/ landing on the player's dashboard with the wallet's balance."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from bingo.common.roles import Role, user_roles
from bingo.models import Player
from tests.factories import DEFAULT_PASSWORD
from tests.players.conftest import Halls, registration_form

NOW = datetime(2025, 6, 15, 12, 0, tzinfo=ZoneInfo("Atlantic/Cape_Verde"))


def form(**fields: object) -> dict[str, object]:
    """The page's form from Joana, her e-mail in mixed case."""
    return registration_form(**{"email": "Joana@Example.cv", **fields})


def test_registration_creates_the_user_the_role_and_the_player(halls: Halls) -> None:
    player = halls.player("ana", email="Ana@Example.cv", now=NOW)
    assert player.hall == halls.praia
    assert player.adult_confirmed_at == NOW
    assert player.user.check_password(DEFAULT_PASSWORD)
    assert user_roles(player.user) == {Role.PLAYER}


def test_the_email_is_unique_whatever_its_case(halls: Halls) -> None:
    halls.player("ana", email="ana@example.cv")
    with pytest.raises(ValidationError) as refused:
        halls.player("ana2", email="  ANA@Example.CV ")
    assert "email" in refused.value.message_dict
    assert Player.objects.count() == 1
    assert not User.objects.filter(username="ana2").exists()


def test_the_username_is_unique_whatever_its_case(halls: Halls) -> None:
    halls.player("ana")
    with pytest.raises(ValidationError) as refused:
        halls.player("ANA", email="other@example.cv")
    assert "username" in refused.value.message_dict


@pytest.mark.parametrize("password", ["123", "password", "12345678901", "maria.tavares"])
def test_djangos_password_validators_apply(halls: Halls, password: str) -> None:
    with pytest.raises(ValidationError) as refused:
        halls.player("maria", password=password)
    assert "password" in refused.value.message_dict
    assert not User.objects.filter(username="maria").exists()


def test_under_age_is_refused_by_the_date_of_birth_in_the_halls_date(halls: Halls) -> None:
    # 18 on 16 June 2025: refused on the 15th, even with the box ticked.
    with pytest.raises(ValidationError) as refused:
        halls.player("teen", birth_date=date(2007, 6, 16), now=NOW)
    assert "birth_date" in refused.value.message_dict
    assert halls.player("adult", birth_date=date(2007, 6, 15), now=NOW).birth_date == date(2007, 6, 15)


def test_the_minimum_age_is_a_setting(halls: Halls, settings: object) -> None:
    settings.PLAYER_MIN_AGE = 21  # type: ignore[attr-defined]
    with pytest.raises(ValidationError, match="21"):
        halls.player("young", birth_date=date(2005, 1, 1), now=NOW)


def test_the_adult_confirmation_is_required(halls: Halls) -> None:
    with pytest.raises(ValidationError) as refused:
        halls.player("maria", adult_confirmed=False)
    assert "adult_confirmed" in refused.value.message_dict
    assert not Player.objects.exists()


def test_a_birth_date_in_the_future_is_refused(halls: Halls) -> None:
    with pytest.raises(ValidationError) as refused:
        halls.player("maria", birth_date=date(2030, 1, 1), now=NOW)
    assert "birth_date" in refused.value.message_dict


# --- the page --------------------------------------------------------------------------------


def test_the_page_registers_logs_in_and_lands_on_the_dashboard(halls: Halls, client: Client) -> None:
    response = client.post(reverse("players:register"), form(hall=halls.mindelo.pk), follow=True)
    assert response.redirect_chain[-1][0] == reverse("dashboard-player")
    player = Player.objects.get(user__username="joana")
    assert player.hall == halls.mindelo
    assert response.context["user"] == player.user
    assert 'id="wallet-summary"' in response.content.decode()


def test_the_page_is_portuguese_and_shows_every_field(halls: Halls, client: Client) -> None:
    html = client.get(reverse("players:register")).content.decode()
    for text in ("Registar", "Tenho 18 anos ou mais", "Data de nascimento", "Operador"):
        assert text in html, text


def test_the_page_refuses_an_unconfirmed_adult_and_a_mismatched_password(
    halls: Halls, client: Client
) -> None:
    response = client.post(reverse("players:register"), form(adult_confirmed=None, hall=halls.praia.pk))
    assert response.status_code == 200
    assert response.context["form"].errors["adult_confirmed"]
    response = client.post(
        reverse("players:register"), form(password2="other-horse-battery", hall=halls.praia.pk)
    )
    assert response.context["form"].errors["password2"]
    assert not Player.objects.exists()


def test_with_one_hall_there_is_nothing_to_choose(db: None, client: Client) -> None:
    from halls.models import Hall

    only = Hall.objects.create(name="Sala Única")
    client.post(reverse("players:register"), form())
    assert Player.objects.get().hall == only


def test_with_several_halls_the_player_chooses(halls: Halls, client: Client) -> None:
    response = client.post(reverse("players:register"), form())
    assert response.context["form"].errors["hall"]


def test_the_page_needs_the_csrf_token(halls: Halls) -> None:
    client = Client(enforce_csrf_checks=True)
    assert client.post(reverse("players:register"), form(hall=halls.praia.pk)).status_code == 403
    assert not Player.objects.exists()


def test_registrations_are_limited_per_address(
    halls: Halls, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bingo.players.api import RegistrationAttemptThrottle

    monkeypatch.setattr(RegistrationAttemptThrottle, "rate", "3/hour")
    codes = [
        client.post(reverse("players:register"), form(username=f"p{i}", email="bad")).status_code
        for i in range(3)
    ]
    assert codes == [200, 200, 200]
    response = client.post(reverse("players:register"), form(hall=halls.praia.pk))
    assert response.status_code == 429
    assert "Retry-After" in response
    assert not Player.objects.exists()


def test_a_logged_in_user_is_sent_home(halls: Halls, client: Client) -> None:
    client.force_login(halls.cashier)
    response = client.post(reverse("players:register"), form(hall=halls.praia.pk))
    assert response.status_code == 302
    assert not Player.objects.exists()


def test_a_player_logs_in_at_entrar_and_lands_on_the_dashboard_with_the_balance(halls: Halls) -> None:
    player = halls.player("maria")
    halls.deposit(player, "1500", key="k1")
    client = Client()
    client.cookies["django_language"] = "pt"
    response = client.post(reverse("login"), {"username": "maria", "password": DEFAULT_PASSWORD}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("dashboard-player")
    html = response.content.decode()
    assert "A minha carteira" in html
    assert 'data-balance="1500.00"' in html
    assert reverse("players:wallet") in html
