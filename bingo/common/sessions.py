"""The session engine (``SESSION_ENGINE``): Django's database sessions, each request's load a
written-out statement on PostgreSQL.

Every request loads its session; compiling ``Session.objects.get(...)`` cost more than running it
(issue 23). Same table, same rows, same expiry: sessions made before keep working, and on SQLite
the load is Django's own.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone


class SessionStore(db.SessionStore):
    """``django.contrib.sessions.backends.db``'s store, loading with one statement."""

    def _get_session_from_db(self) -> Any:
        using = router.db_for_read(self.model)
        if connections[using].vendor != "postgresql":
            return super()._get_session_from_db()  # type: ignore[misc]  # untyped in the stubs
        with connections[using].cursor() as cursor:
            cursor.execute(
                f"SELECT session_data, expire_date FROM {self.model._meta.db_table}"  # noqa: S608 - the model's table
                " WHERE session_key = %s AND expire_date > %s",
                [self.session_key, timezone.now()],
            )
            row = cursor.fetchone()
        if row is None or self.session_key is None:
            self._session_key = None
            return None
        return self.model(session_key=self.session_key, session_data=row[0], expire_date=row[1])
