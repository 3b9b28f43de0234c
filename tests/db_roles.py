"""The suite's PostgreSQL roles: on PostgreSQL the tests run as the app's role, as production
does (docs/deploy.md, «The database's roles»).

pytest-django creates and migrates the test database as DATABASE_URL's user, a superuser, who so
owns every table, as the owner of production does. Then ``app_role_setup`` creates a role for
the app named after the test database, grants it what ``manage.py db_grant`` grants in
production (``app_role_grant``), and every connection of the suite takes it on at once (Django's
``assume_role``: SET ROLE after connecting). The code under test reads and writes with the app's
privileges only: a missing grant, or a write the app may not do, fails here first. The server
and worker processes that tests start log in as that role (``app_database_url``).

Two things in the suite need more than the app's role, and take it back for a moment (SET ROLE
NONE: the session's user is the superuser; production's app has no such user behind it):

* the flush after each transactional test empties every table with one TRUNCATE, which the app
  may not do to a ledger and the ledgers' triggers refuse to anyone: ``execute_sql_flush_as_owner``
  runs it with ``session_replication_role = replica`` for its transaction, a setting only a
  superuser may change (tests/common/test_db_roles.py shows the app's role may not);
* the tests of the triggers themselves (``as_table_owner``): the app's UPDATE of a ledger is
  refused by its privileges before any trigger is asked.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.db import connection, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.postgresql.operations import DatabaseOperations

from bingo.common.db_roles import app_role_grant


@dataclass(frozen=True)
class AppRole:
    name: str
    password: str


_app_role: AppRole | None = None


def app_role() -> AppRole | None:
    """The role the suite runs as on PostgreSQL; None on SQLite."""
    return _app_role


def app_role_setup(db: BaseDatabaseWrapper) -> AppRole:
    """Create and grant the app's role on the migrated test database, and make every connection
    of the suite take it on."""
    global _app_role
    with db.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        (superuser,) = cursor.fetchone()
    if not superuser:
        raise RuntimeError(
            "On PostgreSQL the suite needs DATABASE_URL's user to be a superuser: it creates the "
            "app's role and empties the ledgers between tests past their triggers (tests/db_roles.py)."
        )
    role = AppRole(name=f"{db.settings_dict['NAME']}_app", password=secrets.token_urlsafe(24))
    with transaction.atomic(using=db.alias):
        app_role_grant(connection=db, role=role.name, password=role.password)
    for settings_dict in {id(d): d for d in (db.settings_dict, settings.DATABASES[db.alias])}.values():
        settings_dict["OPTIONS"]["assume_role"] = role.name
    db.close()
    _app_role = role
    return role


def app_role_teardown(db: BaseDatabaseWrapper, role: AppRole) -> None:
    """Connect as the superuser again and drop the app's role (before the test database goes)."""
    global _app_role
    for settings_dict in {id(d): d for d in (db.settings_dict, settings.DATABASES[db.alias])}.values():
        settings_dict["OPTIONS"].pop("assume_role", None)
    db.close()
    name = db.ops.quote_name(role.name)
    with db.cursor() as cursor:
        cursor.execute(f"DROP OWNED BY {name}")
        cursor.execute(f"DROP ROLE {name}")
    db.close()
    _app_role = None


def app_database_url() -> str:
    """The test database's URL as the app logs in: the app's role on PostgreSQL."""
    db = connection.settings_dict
    role = _app_role
    user, password = (role.name, role.password) if role else (db["USER"] or "", db["PASSWORD"] or "")
    user, password = quote(user, safe=""), quote(password, safe="")
    credentials = f"{user}:{password}@" if password else f"{user}@" if user else ""
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{credentials}{db['HOST'] or 'localhost'}{port}/{quote(db['NAME'], safe='')}"


def execute_sql_flush_as_owner(self: DatabaseOperations, sql_list: list[str]) -> None:
    """Django's ``execute_sql_flush`` as the session's superuser, the triggers off for its
    transaction: the flush between transactional tests TRUNCATEs the ledgers too."""
    with (
        transaction.atomic(using=self.connection.alias, savepoint=self.connection.features.can_rollback_ddl),
        self.connection.cursor() as cursor,
    ):
        cursor.execute("SET LOCAL ROLE NONE")
        cursor.execute("SET LOCAL session_replication_role = replica")
        for sql in sql_list:
            cursor.execute(sql)


@contextmanager
def flush_as_owner() -> Iterator[None]:
    """For the block, the suite's flushes empty the tables as ``execute_sql_flush_as_owner``."""
    original: Any = DatabaseOperations.execute_sql_flush
    DatabaseOperations.execute_sql_flush = execute_sql_flush_as_owner  # type: ignore[method-assign]
    try:
        yield
    finally:
        DatabaseOperations.execute_sql_flush = original  # type: ignore[method-assign]


@contextmanager
def as_table_owner() -> Iterator[None]:
    """The test's connection acts as the tables' owner for the block: for the tests of the
    triggers, which stop the owner (the app's role is refused by its privileges before). On
    SQLite, nothing changes."""
    role = _app_role
    if connection.vendor != "postgresql" or role is None:
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SET ROLE NONE")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            # Composed here: a utility statement takes no bound parameter (server-side binding).
            cursor.execute(connection.ops.compose_sql("SET ROLE %s", [role.name]))
