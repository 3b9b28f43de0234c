"""Password guessing is stopped (issue [A0] 2, django-axes): after 5 failures an account, and an
address, are refused at /entrar/ and /admin/login/, with a Portuguese message saying until when;
a manager unlocks their staff or an address; every lockout is logged."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from bingo.common.roles import Role
from halls.models import Hall, StaffMembership
from tests.factories import DEFAULT_PASSWORD, UserFactory

LOGIN = "/entrar/"
ADMIN_LOGIN = "/admin/login/"
LOCKED = "Demasiadas tentativas falhadas"
LIMIT = 5


def staff(hall: Hall, role: Role, username: str) -> object:
    user = UserFactory(username=username, roles=[role])
    StaffMembership.objects.create(hall=hall, user=user, role=role.value)
    return user


@pytest.fixture
def praia(db: None) -> Hall:
    return Hall.objects.create(name="Sala Praia")


@pytest.fixture
def ana(praia: Hall) -> object:
    return staff(praia, Role.CASHIER, "ana")


@pytest.fixture
def gerente(praia: Hall) -> Client:
    client = Client()
    client.force_login(staff(praia, Role.MANAGER, "gerente"))  # type: ignore[arg-type]
    return client


def log_in(path: str, username: str, password: str, address: str = "203.0.113.7", **extra: str):
    client = Client()
    return client.post(path, {"username": username, "password": password, **extra}, REMOTE_ADDR=address)


def guess(path: str, username: str, times: int, address: str = "203.0.113.7") -> list[int]:
    return [log_in(path, username, f"wrong-{n}", address).status_code for n in range(times)]


def logged_in(response) -> bool:
    return response.status_code == 302 and response.wsgi_request.user.is_authenticated


def test_five_wrong_passwords_lock_the_account_even_for_the_right_one(ana: object) -> None:
    statuses = guess(LOGIN, "ana", LIMIT - 1)
    assert statuses == [200] * (LIMIT - 1)  # the form again, with its error
    assert log_in(LOGIN, "ana", "wrong-last").status_code == 429  # the 5th failure locks

    response = log_in(LOGIN, "ana", DEFAULT_PASSWORD)

    assert response.status_code == 429
    body = response.content.decode()
    assert LOCKED in body
    assert "Um gerente da sua sala, ou um administrador, pode desbloqueá-la antes" in body
    ends = timezone.localtime(AccessAttempt.objects.get(username="ana").attempt_time + timedelta(minutes=30))
    assert f"Desbloqueia-se sozinha às {ends:%H:%M}" in body
    assert not response.wsgi_request.user.is_authenticated


def test_four_wrong_passwords_still_let_the_right_one_in(ana: object) -> None:
    guess(LOGIN, "ana", LIMIT - 1)

    assert logged_in(log_in(LOGIN, "ana", DEFAULT_PASSWORD))


def test_the_account_stays_locked_from_another_address(ana: object) -> None:
    """Counted per account: spreading the guesses over addresses does not help."""
    for n in range(LIMIT):
        log_in(LOGIN, "ana", f"wrong-{n}", address=f"198.51.100.{n + 1}")

    response = log_in(LOGIN, "ana", DEFAULT_PASSWORD, address="192.0.2.200")

    assert response.status_code == 429
    assert LOCKED in response.content.decode()


def test_an_address_guessing_many_accounts_is_locked_for_every_account(praia: Hall, ana: object) -> None:
    """Counted per address: one guess at each of many usernames locks the address."""
    for n in range(LIMIT):
        log_in(LOGIN, f"someone-{n}", "guess", address="203.0.113.66")

    assert log_in(LOGIN, "ana", DEFAULT_PASSWORD, address="203.0.113.66").status_code == 429
    assert logged_in(log_in(LOGIN, "ana", DEFAULT_PASSWORD, address="203.0.113.67"))


def _through_the_proxy(username: str, password: str, forwarded_for: str) -> object:
    """A login sent through a proxy on this machine, which appended the address it saw."""
    client = Client()
    return client.post(
        LOGIN, {"username": username, "password": password}, REMOTE_ADDR="127.0.0.1",
        HTTP_X_FORWARDED_FOR=forwarded_for,
    )  # fmt: skip


@override_settings(BINGO_TRUSTED_PROXIES=1)
def test_behind_one_proxy_the_client_address_is_locked_not_the_proxys(praia: Hall, ana: object) -> None:
    """Issue 20 point 7: the address axes counts is the one the proxy appended (what the client
    wrote before it changes nothing), so a guesser is locked alone, not everyone behind the proxy."""
    for n in range(LIMIT):
        _through_the_proxy(f"someone-{n}", "guess", forwarded_for=f"192.0.2.{n}, 203.0.113.66")

    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.66"}
    assert _through_the_proxy("ana", DEFAULT_PASSWORD, forwarded_for="203.0.113.66").status_code == 429
    assert logged_in(_through_the_proxy("ana", DEFAULT_PASSWORD, forwarded_for="192.0.2.9, 203.0.113.67"))


@override_settings(BINGO_TRUSTED_PROXIES=0)
def test_with_no_trusted_proxy_a_fresh_forwarded_for_does_not_dodge_the_address_lock(
    praia: Hall, ana: object
) -> None:
    for n in range(LIMIT):
        _through_the_proxy(f"someone-{n}", "guess", forwarded_for=f"203.0.113.{n}")

    assert _through_the_proxy("ana", DEFAULT_PASSWORD, forwarded_for="203.0.113.99").status_code == 429


def test_without_redis_logins_and_lockouts_go_on(ana: object) -> None:
    """Issue 20 point 3: axes keeps its counts in the database (its database handler, no cache),
    so a Redis that does not answer changes nothing at the login."""
    unreachable = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
    }
    with override_settings(CACHES={"default": unreachable}):
        assert logged_in(log_in(LOGIN, "ana", DEFAULT_PASSWORD))
        assert guess(LOGIN, "ana", LIMIT) == [200] * (LIMIT - 1) + [429]
        assert log_in(LOGIN, "ana", DEFAULT_PASSWORD).status_code == 429


def test_the_admin_login_is_locked_the_same_way(db: None) -> None:
    UserFactory(username="root", is_staff=True, is_superuser=True)
    guess(ADMIN_LOGIN, "root", LIMIT)

    response = log_in(ADMIN_LOGIN, "root", DEFAULT_PASSWORD, next="/admin/")

    assert response.status_code == 429
    assert LOCKED in response.content.decode()
    assert not response.wsgi_request.user.is_authenticated


def test_failures_at_the_admin_and_at_entrar_count_together(ana: object) -> None:
    guess(ADMIN_LOGIN, "ana", 3)
    guess(LOGIN, "ana", 2)

    assert log_in(LOGIN, "ana", DEFAULT_PASSWORD).status_code == 429


def test_the_lock_lifts_by_itself_after_the_cool_off(ana: object) -> None:
    guess(LOGIN, "ana", LIMIT)
    assert log_in(LOGIN, "ana", DEFAULT_PASSWORD).status_code == 429

    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1)
    )

    assert logged_in(log_in(LOGIN, "ana", DEFAULT_PASSWORD))


def test_a_lockout_is_logged_with_the_account_and_the_address(
    ana: object, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="bingo.accounts.views"):
        guess(LOGIN, "ana", LIMIT, address="203.0.113.9")
        log_in(LOGIN, "ana", DEFAULT_PASSWORD, address="203.0.113.9")

    lines = [r.getMessage() for r in caplog.records if r.name == "bingo.accounts.views"]
    assert lines == [
        "Login locked out after 5 failed attempts: account 'ana' from 203.0.113.9 on /entrar/.",
        "Login refused during a lockout: account 'ana' from 203.0.113.9 on /entrar/.",
    ]


# --- the manager's unlock screen --------------------------------------------------------------------


def test_a_manager_sees_and_unlocks_their_cashier(ana: object, gerente: Client) -> None:
    guess(LOGIN, "ana", LIMIT, address="203.0.113.9")

    page = gerente.get(reverse("login_lockouts")).content.decode()
    assert "(ana)" in page
    assert "203.0.113.9" in page

    response = gerente.post(reverse("login_lockout_reset"), {"username": "ana"}, follow=True)

    assert "ana pode voltar a entrar." in response.content.decode()
    assert not AccessAttempt.objects.filter(username="ana").exists()
    assert logged_in(log_in(LOGIN, "ana", DEFAULT_PASSWORD, address="192.0.2.1"))


def test_a_manager_unlocks_an_address(ana: object, gerente: Client) -> None:
    for n in range(LIMIT):
        log_in(LOGIN, f"someone-{n}", "guess", address="203.0.113.66")

    response = gerente.post(reverse("login_lockout_reset"), {"ip_address": "203.0.113.66"}, follow=True)

    assert "203.0.113.66 pode voltar a entrar." in response.content.decode()
    assert logged_in(log_in(LOGIN, "ana", DEFAULT_PASSWORD, address="203.0.113.66"))


def test_a_manager_cannot_unlock_another_halls_staff(ana: object, db: None) -> None:
    mindelo = Hall.objects.create(name="Sala Mindelo")
    other = Client()
    other.force_login(staff(mindelo, Role.MANAGER, "outro"))  # type: ignore[arg-type]
    guess(LOGIN, "ana", LIMIT)

    assert "(ana)" not in other.get(reverse("login_lockouts")).content.decode()
    assert other.post(reverse("login_lockout_reset"), {"username": "ana"}).status_code == 404
    assert AccessAttempt.objects.filter(username="ana").exists()
    assert log_in(LOGIN, "ana", DEFAULT_PASSWORD).status_code == 429


def test_unlocking_an_address_keeps_the_guesses_at_accounts_beyond_the_managers_halls(
    ana: object, gerente: Client
) -> None:
    UserFactory(username="root", is_staff=True, is_superuser=True)
    guess(LOGIN, "root", LIMIT, address="203.0.113.66")

    response = gerente.post(reverse("login_lockout_reset"), {"ip_address": "203.0.113.66"}, follow=True)

    assert "continua bloqueado" in response.content.decode()
    assert log_in(LOGIN, "root", DEFAULT_PASSWORD, address="192.0.2.1").status_code == 429


@pytest.mark.parametrize("body", [{}, {"username": "ana", "ip_address": "203.0.113.9"}, {"ip_address": "x"}])
def test_an_unlock_needs_exactly_one_account_or_address(ana: object, gerente: Client, body: dict) -> None:
    guess(LOGIN, "ana", LIMIT)

    response = gerente.post(reverse("login_lockout_reset"), body, follow=True)

    assert "Escolha uma conta ou um endereço a desbloquear." in response.content.decode()
    assert AccessAttempt.objects.filter(username="ana").exists()


@pytest.mark.parametrize("role", [Role.CASHIER, Role.CALLER, Role.INSPECTOR])
def test_only_managers_reach_the_lockouts(praia: Hall, ana: object, role: Role) -> None:
    client = Client()
    client.force_login(staff(praia, role, f"{role.value}-x"))  # type: ignore[arg-type]
    guess(LOGIN, "ana", LIMIT)

    assert client.get(reverse("login_lockouts")).status_code == 403
    assert client.post(reverse("login_lockout_reset"), {"username": "ana"}).status_code == 403
    assert AccessAttempt.objects.filter(username="ana").exists()
