"""The database's roles (docs/deploy.md, «The database's roles»): the tables' owner migrates, the
app connects as a role that owns nothing and may do only what the app does.

On PostgreSQL a superuser can switch every trigger off (``session_replication_role = replica``)
and a table's owner can disable its triggers or drop it: connected as either, a bug or an
intruder in the app could rewrite the ledgers the triggers protect. So the processes that serve
(web, Celery) connect with ``DATABASE_URL`` as the app's role, and ``manage.py migrate`` and
``manage.py db_grant`` connect with ``DATABASE_OWNER_URL`` as the tables' owner:

* the app's role reads and writes every table, but may not UPDATE, DELETE or TRUNCATE an
  insert-only ledger: its privileges refuse before the triggers are asked (the two ledgers whose
  rows it locks, ``LOCKED_LEDGERS``, let it UPDATE their key, which their triggers refuse; a
  drawer's close-out, ``CLOSED_ONCE``, the columns its close writes, once);
* it owns nothing, so it can neither disable a trigger nor alter or drop a table, and it is no
  superuser, so it cannot switch the triggers off.

The insert-only ledgers are read from the schema itself: the tables with a trigger refusing
TRUNCATE (bingo/migrations/0020, halls/migrations/0007, actas/migrations/0007). A new ledger's
migration gives it that trigger beside the one refusing UPDATE and DELETE, and ``db_grant``
takes its privileges away with no list to keep.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import environ
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg import sql

# The tables of the schema with a trigger fired BEFORE a TRUNCATE (pg_trigger.tgtype's bits,
# PostgreSQL's catalog/pg_trigger.h: 2 BEFORE, 32 TRUNCATE).
INSERT_ONLY_TABLES_SQL = """
    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind = 'r'
       AND EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal
                   AND t.tgtype & 34 = 34)
     ORDER BY c.relname
"""

# What the app does to every table, and what it may not do to a ledger.
APP_TABLE_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE")
LEDGER_REFUSED_PRIVILEGES = ("UPDATE", "DELETE", "TRUNCATE")
# The ledgers whose rows the app locks, and the one column it may so UPDATE: PostgreSQL takes a
# row lock (SELECT ... FOR UPDATE) only with UPDATE on a column of the table. The acta is locked
# while its chain grows (actas/services.py ``_locked_acta``), a prize's winners while they are
# paid once (bingo/draw/services.py). Their triggers refuse any UPDATE of that column all the same.
LOCKED_LEDGERS = {"actas_acta": "id", "bingo_prizewinner": "id"}
# The ledgers whose rows are written open and closed once, and the columns the close writes: the
# app may UPDATE those (and lock the row), which their trigger lets through only while the row is
# open. A drawer's close-out (bingo/models/drawers.py reads its ``CLOSE_COLUMNS`` here,
# bingo/migrations/0024).
CLOSED_ONCE = {
    "bingo_drawershift": (
        "closed_by_id",
        "closed_at",
        "note",
        "cash_received",
        "change_given",
        "net_sales",
        "prizes_gross",
        "tax_withheld",
        "prizes_net",
        "deposits",
        "withdrawals",
        "refunds",
        "expected_cash",
        "counted_cash",
        "over_short",
    )
}


class DatabaseRoleError(Exception):
    """The app's role cannot be set up as asked (a superuser, the owner itself, ...)."""


@dataclass(frozen=True)
class Grant:
    """What ``app_role_grant`` did: whether it created the role, and the ledgers it kept from it."""

    role: str
    created: bool
    insert_only: list[str]


def insert_only_tables(connection: BaseDatabaseWrapper) -> list[str]:
    """The insert-only ledgers of the connection's schema: the tables whose trigger refuses
    TRUNCATE (their row triggers refuse UPDATE and DELETE)."""
    with connection.cursor() as cursor:
        cursor.execute(INSERT_ONLY_TABLES_SQL)
        return [name for (name,) in cursor.fetchall()]


def app_role_grant(*, connection: BaseDatabaseWrapper, role: str, password: str | None = None) -> Grant:
    """Give the app's ``role`` what the app needs and no more, on ``connection``'s schema, whose
    user owns the tables: every table's rows to read and write, but no UPDATE, DELETE or TRUNCATE
    of an insert-only ledger (bar the key of those it locks, ``LOCKED_LEDGERS``); the sequences;
    and, by default privileges, the tables the owner's later migrations create. Creates the role
    (LOGIN, no other attribute) when missing, and sets its ``password`` when the owner may.
    Idempotent: run after every ``migrate``. Raises DatabaseRoleError for a role that must not
    serve the app (a superuser, the owner, a member of the owner)."""
    with connection.cursor() as cursor:
        created = _role_ensure(connection, cursor, role=role, password=password)
        cursor.execute("SELECT current_schema()")
        (schema_name,) = cursor.fetchone()
        insert_only = insert_only_tables(connection)
        for statement in _grant_statements(schema_name, role, insert_only):
            _execute(connection, cursor, statement)
    return Grant(role=role, created=created, insert_only=insert_only)


def _role_ensure(connection: BaseDatabaseWrapper, cursor: Any, *, role: str, password: str | None) -> bool:
    """Create ``role`` (LOGIN, no other attribute) when missing, or check that the app may connect
    as it, setting its ``password`` when the owner may; return whether it was created.
    DatabaseRoleError for a role that must not serve the app."""
    quoted = sql.Identifier(role)
    cursor.execute(
        "SELECT rolsuper OR rolcreaterole OR rolbypassrls, rolname = current_user, "
        "pg_has_role(rolname, current_user, 'USAGE') FROM pg_roles WHERE rolname = %s",
        [role],
    )
    found = cursor.fetchone()
    cursor.execute("SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user")
    (may_manage_roles,) = cursor.fetchone()
    if found is None:
        if not may_manage_roles:
            raise DatabaseRoleError(
                f"The role {role} does not exist and the tables' owner may not create it: "
                "create it first (docs/deploy.md)."
            )
        statement = sql.SQL("CREATE ROLE {} LOGIN").format(quoted)
        if password:
            statement = sql.SQL("{} PASSWORD {}").format(statement, sql.Literal(password))
        _execute(connection, cursor, statement)
        return True
    privileged, is_owner, inherits_owner = found
    if privileged:
        raise DatabaseRoleError(
            f"The app's role {role} is a superuser, may create roles or bypasses row "
            f"security: the app must connect as a plain role (ALTER ROLE {role} "
            "NOSUPERUSER NOCREATEROLE NOBYPASSRLS)."
        )
    if is_owner or inherits_owner:
        raise DatabaseRoleError(
            f"The app's role {role} is the tables' owner or inherits its privileges: "
            "DATABASE_URL must name a role of its own (docs/deploy.md)."
        )
    if password and may_manage_roles:
        _execute(
            connection,
            cursor,
            sql.SQL("ALTER ROLE {} PASSWORD {}").format(quoted, sql.Literal(password)),
        )
    return False


def _grant_statements(schema_name: str, role: str, insert_only: list[str]) -> list[sql.Composable]:
    """What ``role`` is granted on the schema: every table's rows and the sequences, now and by
    default later, less UPDATE, DELETE and TRUNCATE on the ``insert_only`` ledgers (bar the key
    of those it locks, and the close columns of those it closes once)."""
    quoted = sql.Identifier(role)
    schema = sql.Identifier(schema_name)
    on_tables = sql.SQL(", ").join(sql.SQL(p) for p in APP_TABLE_PRIVILEGES)
    statements: list[sql.Composable] = [
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(schema, quoted),
        # Revoke first: a privilege granted by hand (TRUNCATE, TRIGGER, REFERENCES) goes too.
        sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA {} FROM {}").format(schema, quoted),
        sql.SQL("GRANT {} ON ALL TABLES IN SCHEMA {} TO {}").format(on_tables, schema, quoted),
        sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM {}").format(schema, quoted),
        sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {} TO {}").format(schema, quoted),
        # The tables and sequences of later migrations: usable before db_grant runs again
        # (which then takes a new ledger's UPDATE and DELETE away; its triggers refuse them).
        sql.SQL("ALTER DEFAULT PRIVILEGES IN SCHEMA {} GRANT {} ON TABLES TO {}").format(
            schema, on_tables, quoted
        ),
        sql.SQL("ALTER DEFAULT PRIVILEGES IN SCHEMA {} GRANT USAGE, SELECT ON SEQUENCES TO {}").format(
            schema, quoted
        ),
    ]
    if insert_only:
        statements.append(
            sql.SQL("REVOKE {} ON {} FROM {}").format(
                sql.SQL(", ").join(sql.SQL(p) for p in LEDGER_REFUSED_PRIVILEGES),
                sql.SQL(", ").join(sql.Identifier(schema_name, table) for table in insert_only),
                quoted,
            )
        )
    statements += [
        sql.SQL("GRANT UPDATE ({}) ON {} TO {}").format(
            sql.Identifier(column), sql.Identifier(schema_name, table), quoted
        )
        for table, column in LOCKED_LEDGERS.items()
        if table in insert_only
    ]
    statements += [
        sql.SQL("GRANT UPDATE ({}) ON {} TO {}").format(
            sql.SQL(", ").join(sql.Identifier(column) for column in columns),
            sql.Identifier(schema_name, table),
            quoted,
        )
        for table, columns in CLOSED_ONCE.items()
        if table in insert_only
    ]
    return statements


def _execute(connection: BaseDatabaseWrapper, cursor: Any, statement: sql.Composable) -> None:
    # Utility statements take no bound parameters: compose them with quoted names and literals.
    cursor.execute(statement.as_string(connection.connection))


@dataclass(frozen=True)
class ConnectionRole:
    """Who a connection is in PostgreSQL, and what it could do that the app must not."""

    name: str
    superuser: bool
    owns: list[str]  # tables of the schema it owns
    may_create: bool  # it may create tables in the schema
    ledgers_writable: list[str]  # insert-only ledgers it may UPDATE, DELETE or TRUNCATE


def connection_role_get(connection: BaseDatabaseWrapper) -> ConnectionRole:
    """The role ``connection`` acts as (its current user), on its schema."""
    refused = ",".join(LEDGER_REFUSED_PRIVILEGES)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, rolsuper, has_schema_privilege(current_schema(), 'CREATE') "
            "FROM pg_roles WHERE rolname = current_user"
        )
        name, superuser, may_create = cursor.fetchone()
        cursor.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r' "
            "AND pg_has_role(c.relowner, 'USAGE') ORDER BY c.relname"
        )
        owns = [table for (table,) in cursor.fetchall()]
        cursor.execute(INSERT_ONLY_TABLES_SQL)
        writable = [table for (table,) in cursor.fetchall() if _has_table_privilege(cursor, table, refused)]
    return ConnectionRole(
        name=name, superuser=superuser, owns=owns, may_create=may_create, ledgers_writable=writable
    )


def _has_table_privilege(cursor: Any, table: str, privileges: str) -> bool:
    cursor.execute(
        "SELECT has_table_privilege(quote_ident(current_schema()) || '.' || quote_ident(%s), %s)",
        [table, privileges],
    )
    return bool(cursor.fetchone()[0])


@contextmanager
def owner_connection(alias: str = DEFAULT_DB_ALIAS) -> Iterator[dict[str, Any] | None]:
    """Connect ``alias`` as the tables' owner, ``DATABASE_OWNER_URL``, for the block (``migrate``,
    ``db_grant``), then as the app again. Yields the app's own connection settings (whose USER is
    the role to grant), or None when no owner URL is set: then the app connects as the owner
    and nothing changes. The owner's URL must name the app's database."""
    url = settings.DATABASE_OWNER_URL
    if not url or alias != DEFAULT_DB_ALIAS:
        yield None
        return
    connection = connections[alias]
    owner = environ.Env.db_url_config(url)
    app = connection.settings_dict
    if owner["ENGINE"] != app["ENGINE"] or owner["NAME"] != app["NAME"]:
        raise ImproperlyConfigured(
            f"DATABASE_OWNER_URL names the database {owner['NAME']!r} and DATABASE_URL "
            f"{app['NAME']!r}: both must name the same PostgreSQL database (docs/deploy.md)."
        )
    keys = ("USER", "PASSWORD", "HOST", "PORT", "OPTIONS")
    saved = {key: app.get(key) for key in keys}
    connection.close()
    app.update({key: owner.get(key, {} if key == "OPTIONS" else "") for key in keys})
    try:
        yield saved
    finally:
        connection.close()
        app.update(saved)
