"""The database's roles (bingo/common/db_roles.py, docs/deploy.md «The database's roles»).

The app connects as a role that owns nothing: it may not UPDATE, DELETE or TRUNCATE an
insert-only ledger, switch the triggers off, disable one, drop or create a table, or become the
owner; it does what the app does (a deposit, a sale at the desk, an online purchase) logged in as
itself. The ledgers refuse TRUNCATE even to their owner. ``manage.py db_grant`` is idempotent,
``manage.py migrate`` runs as the owner, and ``check --deploy`` warns of an app connected with
more power than it needs. PostgreSQL only: SQLite has no roles.
"""

from __future__ import annotations

import io
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import IntegrityError, ProgrammingError, connection, transaction
from psycopg import errors

from bingo.autodraw import services as autodraw_services
from bingo.checks import database_role_check
from bingo.common.db_roles import (
    CLOSED_ONCE,
    LOCKED_LEDGERS,
    DatabaseRoleError,
    app_role_grant,
    insert_only_tables,
    owner_connection,
)
from bingo.models import Game, Sale, WalletEntry
from bingo.players import services as player_services
from tests.actas.test_services import ActaHall
from tests.autodraw.helpers import OnlineHall, online_buy
from tests.db_roles import app_database_url, app_role, as_table_owner
from tests.sales.test_views import Desk

pytestmark = pytest.mark.postgres

# Every table whose rows are never changed or deleted once written (their triggers: bingo 0003,
# 0005, 0011, 0013, 0017; halls 0004; actas 0002, 0004, 0009; TRUNCATE: bingo 0020, halls 0007,
# actas 0007, 0009), and the drawers, never deleted nor changed once closed (bingo 0024).
INSERT_ONLY = [
    "actas_acta",
    "actas_actaentry",
    "actas_actanote",
    "actas_actareceipt",
    "actas_auditevent",
    "bingo_ball",
    "bingo_claim",
    "bingo_democreditentry",
    "bingo_drawershift",
    "bingo_playerexclusion",
    "bingo_playerexclusionlift",
    "bingo_playerlimit",
    "bingo_prize",
    "bingo_prizepayment",
    "bingo_prizewinner",
    "bingo_refund",
    "bingo_sale",
    "bingo_walletentry",
    "halls_ballreplacement",
    "halls_ballsetcheck",
    "halls_ballsetuse",
    "halls_jackpotmovement",
]


# The message each ledger's trigger refuses a TRUNCATE with: the one of its row trigger.
REFUSAL = {
    **{table: f"{table} rows are never changed or deleted" for table in INSERT_ONLY},
    "actas_acta": "an acta is never changed or deleted (R58)",
    "actas_actaentry": "a game recorded in the acta is never changed or deleted (R59-R61)",
    "actas_actanote": "a note recorded in the acta is never changed or deleted (R61)",
    "actas_actareceipt": "a receipt of the acta is never changed or deleted",
    "bingo_sale": "sales are never changed or cancelled (R41)",
    "bingo_drawershift": "a drawer's close-out is never deleted, nor changed once closed",
    "halls_ballsetcheck": "ball checks are never changed or deleted (R23)",
    "halls_ballreplacement": "ball replacements are never changed or deleted (R25-R26)",
    "halls_ballsetuse": "the games a ball set drew are never changed or deleted (R25)",
    "halls_jackpotmovement": "jackpot movements are never changed or deleted (R10-R11)",
}


def _pg_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("roles, privileges and triggers exist on PostgreSQL only")


@pytest.fixture
def app(db: None) -> Iterator[psycopg.Connection]:
    """A connection logged in as the app logs in (DATABASE_URL: the app's role), in autocommit."""
    _pg_only()
    with psycopg.connect(app_database_url(), autocommit=True) as login:
        yield login


def _refused(app: psycopg.Connection, statement: str) -> None:
    with pytest.raises(errors.InsufficientPrivilege):
        app.execute(statement)


# --- the ledgers ------------------------------------------------------------------------------


def test_the_insert_only_tables_refuse_update_delete_and_truncate_by_trigger(db: None) -> None:
    _pg_only()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT tgrelid::regclass::text FROM pg_trigger WHERE NOT tgisinternal "
            "AND tgtype & 27 = 27"  # FOR EACH ROW, BEFORE, UPDATE and DELETE
        )
        refusing_update_and_delete = sorted(name for (name,) in cursor.fetchall())

    # A new ledger gets a TRUNCATE trigger beside its UPDATE and DELETE one (bingo 0020).
    assert refusing_update_and_delete == INSERT_ONLY
    assert insert_only_tables(connection) == INSERT_ONLY


@pytest.mark.parametrize("table", INSERT_ONLY)
def test_a_ledger_refuses_truncate_even_to_its_owner(db: None, table: str) -> None:
    _pg_only()
    # CASCADE: the tables that refer to it go too, so no foreign key stops the TRUNCATE before
    # the triggers; the named table's fires first.
    with (
        as_table_owner(),
        pytest.raises(IntegrityError, match=re.escape(REFUSAL[table])),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"TRUNCATE {table} CASCADE")


@pytest.mark.parametrize("table", INSERT_ONLY)
def test_the_app_may_not_update_delete_or_truncate_a_ledger(app: psycopg.Connection, table: str) -> None:
    columns = app.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
        [table],
    )
    # Refused by privilege before any row or trigger is looked at: even a statement touching no
    # row. A ledger the app locks lets it UPDATE its key alone (its trigger refuses that: below);
    # a drawer, the columns its close writes (its trigger lets them through while it is open).
    for (column,) in columns.fetchall():
        if LOCKED_LEDGERS.get(table) != column and column not in CLOSED_ONCE.get(table, ()):
            with pytest.raises(errors.InsufficientPrivilege, match=f"permission denied for table {table}"):
                app.execute(f"UPDATE {table} SET {column} = {column} WHERE false")
    for statement in (f"DELETE FROM {table} WHERE false", f"TRUNCATE {table}"):
        with pytest.raises(errors.InsufficientPrivilege, match=f"permission denied for table {table}"):
            app.execute(statement)


@pytest.mark.parametrize(("table", "column"), LOCKED_LEDGERS.items())
def test_the_app_locks_a_ledger_row_it_may_not_change(db: None, table: str, column: str) -> None:
    _pg_only()
    hall = ActaHall()
    hall.finished(cards=4)  # an acta, and a prize's winners
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table} ORDER BY {column} LIMIT 1 FOR UPDATE")
        (key,) = cursor.fetchone()
        with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
            cursor.execute(f"UPDATE {table} SET {column} = {column} WHERE {column} = %s", [key])


def test_the_app_cannot_switch_the_triggers_off(app: psycopg.Connection) -> None:
    _refused(app, "SET session_replication_role = replica")
    for table in ("bingo_walletentry", "actas_actanote", "bingo_playerexclusion"):
        _refused(app, f"ALTER TABLE {table} DISABLE TRIGGER USER")
        _refused(app, f"ALTER TABLE {table} DISABLE TRIGGER ALL")


def test_the_app_owns_nothing_cannot_drop_or_create_a_table_nor_become_the_owner(
    app: psycopg.Connection,
) -> None:
    role = app.execute(
        "SELECT rolname, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles "
        "WHERE rolname = current_user"
    ).fetchone()
    assert role is not None
    name, *powers = role
    assert powers == [False, False, False, False]
    owned = app.execute(
        "SELECT count(*) FROM pg_class WHERE relowner = (SELECT oid FROM pg_roles WHERE rolname = %s)", [name]
    )
    assert owned.fetchone() == (0,)

    _refused(app, "DROP TABLE bingo_walletentry")
    _refused(app, "DROP TABLE bingo_game")  # an ordinary table: owned by the owner alone
    _refused(app, "CREATE TABLE app_probe (id integer)")
    owner = app.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'bingo_walletentry'").fetchone()
    assert owner is not None
    assert owner[0] != name
    _refused(app, f'SET ROLE "{owner[0]}"')


def test_the_suite_itself_runs_as_the_app_role(db: None) -> None:
    _pg_only()
    role = app_role()
    assert role is not None
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone() == (role.name,)
        with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
            cursor.execute("UPDATE bingo_walletentry SET id = id WHERE false")


@dataclass(frozen=True)
class LoggedIn:
    role: str
    owner_url: str  # the test database as its owner, the suite's superuser


@pytest.fixture
def app_logged_in(transactional_db: None) -> Iterator[LoggedIn]:
    """Django's connection logged in as the app's role itself, as a production process is (no
    superuser behind it); the suite's own connection again afterwards, to flush."""
    _pg_only()
    role = app_role()
    assert role is not None
    db = connection.settings_dict
    saved = {"USER": db["USER"], "PASSWORD": db["PASSWORD"]}
    credentials = quote(db["USER"] or "", safe="") + (
        f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else ""
    )
    port = f":{db['PORT']}" if db["PORT"] else ""
    owner_url = f"postgres://{credentials}@{db['HOST'] or 'localhost'}{port}/{db['NAME']}"
    connection.close()
    db.update(USER=role.name, PASSWORD=role.password)
    db["OPTIONS"].pop("assume_role")
    try:
        yield LoggedIn(role=role.name, owner_url=owner_url)
    finally:
        connection.close()
        db.update(saved)
        db["OPTIONS"]["assume_role"] = role.name


def test_the_app_logged_in_as_its_role_takes_deposits_and_sells_at_the_desk_and_online(
    app_logged_in: LoggedIn,
) -> None:
    role = app_logged_in.role
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, session_user")
        assert cursor.fetchone() == (role, role)

    lobby = OnlineHall("Sala Papel")
    lobby.series(1)
    game = autodraw_services.online_room_advance(room_id=lobby.room.pk)
    assert game is not None
    assert game.state == Game.State.SELLING
    player = lobby.player("ana", deposit="500.00")
    player_services.wallet_deposit(
        player=player, amount=Decimal("250.00"), staff=lobby.cashier, reference="CNI 9", key="k1"
    )
    online_buy(game, player, 3)
    desk = Desk()
    desk.sell(desk.selling, 2)

    balances = list(
        WalletEntry.objects.filter(player=player).order_by("seq").values_list("balance_after", flat=True)
    )
    assert balances == [Decimal("500.00"), Decimal("750.00"), Decimal("450.00")]
    assert Sale.objects.filter(buyer=player).count() == 1
    assert Sale.objects.filter(game=desk.selling).count() == 1


# --- db_grant -----------------------------------------------------------------------------------


def _privileges(role: str) -> dict[str, set[str]]:
    """The privileges ``role`` holds on each table, and by default on the owner's next ones."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, a.privilege_type FROM pg_class c, aclexplode(c.relacl) a "
            "JOIN pg_roles r ON r.oid = a.grantee WHERE r.rolname = %s "
            "UNION ALL SELECT '(default ' || d.defaclobjtype::text || ')', a.privilege_type "
            "FROM pg_default_acl d, aclexplode(d.defaclacl) a JOIN pg_roles r ON r.oid = a.grantee "
            "WHERE r.rolname = %s",
            [role, role],
        )
        privileges: dict[str, set[str]] = {}
        for table, privilege in cursor.fetchall():
            privileges.setdefault(table, set()).add(privilege)
    return privileges


def test_db_grant_as_the_owner_is_idempotent(app_logged_in: LoggedIn, settings: Any) -> None:
    settings.DATABASE_OWNER_URL = app_logged_in.owner_url
    out = io.StringIO()

    call_command("db_grant", stdout=out)
    first = _privileges(app_logged_in.role)
    call_command("db_grant", stdout=out)

    assert _privileges(app_logged_in.role) == first
    assert first["bingo_walletentry"] == {"SELECT", "INSERT"}
    assert first["bingo_prizewinner"] == {"SELECT", "INSERT"}  # and UPDATE of its key (a column's)
    assert first["actas_actanote"] == {"SELECT", "INSERT"}
    assert first["bingo_game"] == {"SELECT", "INSERT", "UPDATE", "DELETE"}
    assert first["(default r)"] == {"SELECT", "INSERT", "UPDATE", "DELETE"}  # the next tables
    assert all(not privileges & {"TRUNCATE", "TRIGGER", "REFERENCES"} for privileges in first.values())
    assert first["bingo_drawershift"] == {"SELECT", "INSERT"}  # and UPDATE of the close's columns
    assert f"as {len(INSERT_ONLY)} só de inserção" in out.getvalue()
    with connection.cursor() as cursor, pytest.raises(ProgrammingError, match="permission denied"):
        cursor.execute("DELETE FROM bingo_walletentry WHERE false")


def test_db_grant_takes_back_a_privilege_granted_by_hand(app_logged_in: LoggedIn, settings: Any) -> None:
    settings.DATABASE_OWNER_URL = app_logged_in.owner_url
    with owner_connection(), connection.cursor() as cursor:
        cursor.execute(f'GRANT ALL ON bingo_walletentry TO "{app_logged_in.role}"')
    assert "TRUNCATE" in _privileges(app_logged_in.role)["bingo_walletentry"]

    call_command("db_grant", stdout=io.StringIO())

    assert _privileges(app_logged_in.role)["bingo_walletentry"] == {"SELECT", "INSERT"}


def test_db_grant_without_an_owner_url_grants_nothing_and_says_so(db: None, settings: Any) -> None:
    _pg_only()
    settings.DATABASE_OWNER_URL = ""
    err = io.StringIO()

    call_command("db_grant", stdout=io.StringIO(), stderr=err)

    assert "DATABASE_OWNER_URL não está definido" in err.getvalue()


def test_a_missing_role_is_created_able_to_log_in_and_nothing_more(db: None) -> None:
    _pg_only()
    name = f"app_probe_{uuid.uuid4().hex[:12]}"  # created in the test's transaction, rolled back
    with as_table_owner():
        grant = app_role_grant(connection=connection, role=name, password="s3cret")
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, rolinherit, "
                "rolpassword IS NOT NULL FROM pg_authid WHERE rolname = %s",
                [name],
            )
            assert cursor.fetchone() == (True, False, False, False, True, True)
    assert grant.created
    assert grant.insert_only == INSERT_ONLY


def test_a_superuser_the_owner_or_a_member_of_the_owner_is_refused_as_the_app_role(db: None) -> None:
    _pg_only()
    superuser, owner, member = (
        f"{kind}_probe_{uuid.uuid4().hex[:12]}" for kind in ("super", "owner", "member")
    )
    with as_table_owner(), connection.cursor() as cursor:
        # Made in the test's transaction, rolled back.
        cursor.execute(f'CREATE ROLE "{superuser}" SUPERUSER')
        cursor.execute(f'CREATE ROLE "{owner}"')
        cursor.execute(f'CREATE ROLE "{member}" IN ROLE "{owner}"')
        with pytest.raises(DatabaseRoleError, match="superuser"):
            app_role_grant(connection=connection, role=superuser)
        cursor.execute(f'SET LOCAL ROLE "{owner}"')  # the owner grants
        with pytest.raises(DatabaseRoleError, match="the tables' owner or inherits"):
            app_role_grant(connection=connection, role=owner)
        with pytest.raises(DatabaseRoleError, match="the tables' owner or inherits"):
            app_role_grant(connection=connection, role=member)


# --- migrate ------------------------------------------------------------------------------------


def test_migrate_runs_as_the_owner_though_the_app_may_not_alter_a_table(
    app_logged_in: LoggedIn, settings: Any
) -> None:
    settings.DATABASE_OWNER_URL = app_logged_in.owner_url
    out = io.StringIO()
    try:
        # Taking bingo 0020 back drops the ledgers' TRUNCATE triggers: only their owner may.
        call_command("migrate", "bingo", "0019", stdout=out)
        assert "bingo_walletentry" not in insert_only_tables(connection)
    finally:
        call_command("migrate", "bingo", stdout=out)

    assert "A migrar como dono das tabelas" in out.getvalue()
    assert insert_only_tables(connection) == INSERT_ONLY
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone() == (app_logged_in.role,)  # the app's connection again


def test_an_owner_url_naming_another_database_is_refused(db: None, settings: Any) -> None:
    _pg_only()
    settings.DATABASE_OWNER_URL = "postgres://owner@127.0.0.1:5432/some_other_database"

    with pytest.raises(ImproperlyConfigured, match="same PostgreSQL database"), owner_connection():
        pass


# --- check --deploy -------------------------------------------------------------------------------


def _check_ids() -> list[str]:
    return [message.id for message in database_role_check(databases=["default"]) if message.id]


def test_the_deploy_check_is_quiet_for_the_app_role(db: None) -> None:
    _pg_only()
    assert _check_ids() == []
    assert database_role_check(databases=None) == []  # database checks only when asked


def test_the_deploy_check_warns_of_a_superuser(db: None) -> None:
    _pg_only()
    with as_table_owner():
        assert _check_ids() == ["bingo.W001"]


def test_the_deploy_check_warns_of_a_role_owning_a_table(db: None) -> None:
    _pg_only()
    name = f"owner_probe_{uuid.uuid4().hex[:12]}"
    with as_table_owner(), connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{name}"')
        cursor.execute("CREATE TABLE owner_probe (id integer)")
        cursor.execute(f'ALTER TABLE owner_probe OWNER TO "{name}"')
        cursor.execute(f'SET LOCAL ROLE "{name}"')
        assert _check_ids() == ["bingo.W002"]


def test_the_deploy_check_warns_of_an_app_role_that_may_change_a_ledger(db: None) -> None:
    _pg_only()
    role = app_role()
    assert role is not None
    with as_table_owner(), connection.cursor() as cursor:
        cursor.execute(f'GRANT DELETE ON bingo_walletentry TO "{role.name}"')
    messages = database_role_check(databases=["default"])

    assert [m.id for m in messages] == ["bingo.W003"]
    assert "bingo_walletentry" in messages[0].msg
