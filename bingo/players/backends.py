"""The authentication backend: Django's ``ModelBackend``, reading a request's user with their
roles and player.

Every logged-in request starts by reading its user from the session's user id
(``django.contrib.auth.get_user``, through the backend that logged them in). On PostgreSQL this
backend reads, in the same statement, the roles the user holds and the player they are, hall
joined (``selectors.user_session_get``): the reads every screen and API view of a player, and
every role check of the staff's, make next. A player's purchase no longer compiles and sends a
query for the user, then another for the roles and the player (issue 23). Logging in, passwords
and permissions are ``ModelBackend``'s; on SQLite, so is the read.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.db import connection

from bingo.players import selectors


class UserBackend(ModelBackend):
    """``ModelBackend`` whose ``get_user`` reads the user with their roles and player."""

    #: The user read is ModelBackend's, with more: a read of many sessions' users at once (the
    #: players' websockets, bingo/live/players.py) may read them as ModelBackend does.
    reads_as_model_backend = True

    def get_user(self, user_id: Any) -> Any:
        if connection.vendor != "postgresql":
            return super().get_user(user_id)
        # As ModelBackend's query would take it (Django read it from the session with the same).
        user = selectors.user_session_get(user_id=User._meta.pk.to_python(user_id))
        return user if user is not None and self.user_can_authenticate(user) else None
