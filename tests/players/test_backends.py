"""The authentication backend (bingo/players/backends.py): a request's user is read from the
session's user id with their roles and the player they are, in one statement on PostgreSQL;
logging in and the session's checks stay Django's."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bingo.common.roles import Role, user_roles, user_roles_known
from bingo.players.access import request_player
from bingo.players.backends import UserBackend
from tests.factories import DEFAULT_PASSWORD
from tests.players.conftest import Halls


def _postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's read: on SQLite the backend is ModelBackend's")


def test_a_players_user_roles_and_player_come_in_one_statement(halls: Halls) -> None:
    _postgresql()
    player = halls.player("maria")
    with CaptureQueriesContext(connection) as queries:
        user = UserBackend().get_user(player.user.pk)
        assert user is not None
        assert user_roles_known(user)
        assert user_roles(user) == {Role.PLAYER}

        class Request:
            pass

        request = Request()
        request.user = user  # type: ignore[attr-defined]
        found = request_player(request)  # type: ignore[arg-type]
    assert len(queries.captured_queries) == 1, [q["sql"] for q in queries.captured_queries]
    assert found is not None
    assert (found.pk, found.hall_id, found.hall.name) == (player.pk, player.hall_id, player.hall.name)
    assert found.user is user
    assert (user.username, user.password, user.is_active) == ("maria", player.user.password, True)


def test_a_staff_users_roles_come_with_the_user_and_no_player(halls: Halls) -> None:
    _postgresql()
    with CaptureQueriesContext(connection) as queries:
        user = UserBackend().get_user(halls.cashier.pk)
        assert user is not None
        assert user_roles(user) == {Role.CASHIER}
    assert len(queries.captured_queries) == 1


def test_gone_or_inactive_users_read_as_none(halls: Halls) -> None:
    player = halls.player("rui")
    backend = UserBackend()
    assert backend.get_user(999_999) is None
    User.objects.filter(pk=player.user.pk).update(is_active=False)
    assert backend.get_user(player.user.pk) is None


def test_logging_in_records_this_backend_and_a_changed_password_logs_out(halls: Halls) -> None:
    player = halls.player("lena")
    client = Client()
    answer = client.post(reverse("login"), {"username": "lena", "password": DEFAULT_PASSWORD})
    assert answer.status_code == 302, answer.content
    assert client.session["_auth_user_backend"] == "bingo.players.backends.UserBackend"
    assert client.get(reverse("players:wallet")).status_code == 200
    player.user.set_password("another-long-password-9")
    player.user.save()
    # The session's hash of the old password no longer matches: the user is read, then refused.
    answer = client.get(reverse("players:wallet"))
    assert answer.status_code == 302
    assert "/entrar/" in answer["Location"]


def test_a_session_logged_in_before_by_django_s_backend_stays_logged_in(halls: Halls) -> None:
    """Sessions opened before this backend name Django's ModelBackend: they still read their user."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    from bingo.common.sessions import SessionStore

    player = halls.player("ines")
    store = SessionStore()
    store[SESSION_KEY] = str(player.user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = player.user.get_session_auth_hash()
    store.save()
    client = Client()
    client.cookies[settings.SESSION_COOKIE_NAME] = store.session_key
    assert client.get(reverse("players:wallet")).status_code == 200
