"""docs/deploy.md «The database's roles», step by step as an operator follows it: a superuser
creates the owner's role, the app's role and a database the owner owns; ``manage.py migrate``
runs as the owner (DATABASE_OWNER_URL), ``manage.py db_grant`` grants the app (twice: it is
idempotent), and ``manage.py check --deploy --database default`` then warns of nothing, while
it warns of the app connecting as the owner. Every command is a process of its own with the
environment production has. PostgreSQL only.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from django.db import connection

from tests.test_production_smoke import production_env, run_python

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

CHECK = (
    "manage.py",
    "check",
    "--deploy",
    "--database",
    "default",
    "--tag",
    "database",
    "--fail-level",
    "WARNING",
)


@dataclass(frozen=True)
class Installation:
    database: str
    owner: str
    app: str
    owner_url: str
    app_url: str


def _url(user: str, password: str, database: str) -> str:
    db = connection.settings_dict
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{user}:{quote(password, safe='')}@{db['HOST'] or 'localhost'}{port}/{database}"


def _superuser() -> psycopg.Connection:
    """The suite's superuser (DATABASE_URL's user), on the test database, in autocommit."""
    db = connection.settings_dict
    return psycopg.connect(
        dbname=db["NAME"],
        user=db["USER"],
        password=db["PASSWORD"] or None,
        host=db["HOST"] or None,
        port=db["PORT"] or None,
        autocommit=True,
    )


@pytest.fixture
def installation(django_db_setup: None) -> Iterator[Installation]:
    """What the DBA sets up once: two roles and a database the owner owns (names of this run)."""
    if connection.vendor != "postgresql":
        pytest.skip("roles exist on PostgreSQL only")
    name = f"deploy_{uuid.uuid4().hex[:12]}"
    owner_password, app_password = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    with _superuser() as admin:
        admin.execute(f"CREATE ROLE {name}_owner LOGIN PASSWORD '{owner_password}'")
        admin.execute(f"CREATE ROLE {name}_app LOGIN PASSWORD '{app_password}'")
        admin.execute(f"CREATE DATABASE {name} OWNER {name}_owner")
    try:
        yield Installation(
            database=name,
            owner=f"{name}_owner",
            app=f"{name}_app",
            owner_url=_url(f"{name}_owner", owner_password, name),
            app_url=_url(f"{name}_app", app_password, name),
        )
    finally:
        with _superuser() as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            admin.execute(f"DROP ROLE IF EXISTS {name}_app")
            admin.execute(f"DROP ROLE IF EXISTS {name}_owner")


def test_the_deploy_recipe_leaves_the_app_a_role_that_owns_nothing(
    installation: Installation, tmp_path: Path
) -> None:
    env = production_env(
        tmp_path, DATABASE_URL=installation.app_url, DATABASE_OWNER_URL=installation.owner_url
    )

    migrated = run_python(env, "manage.py", "migrate", "--noinput")
    assert migrated.returncode == 0, migrated.stderr
    assert "A migrar como dono das tabelas" in migrated.stdout
    for _ in range(2):
        granted = run_python(env, "manage.py", "db_grant")
        assert granted.returncode == 0, granted.stderr
    checked = run_python(env, *CHECK)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    with psycopg.connect(installation.owner_url, autocommit=True) as owner:
        owners = owner.execute(
            "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()
        assert owners == [(installation.owner,)]
    with psycopg.connect(installation.app_url, autocommit=True) as app:
        assert app.execute("SELECT count(*) FROM bingo_game").fetchone() == (0,)  # its rows
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("TRUNCATE bingo_walletentry")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("SET session_replication_role = replica")

    # The app connecting as the owner, as before DATABASE_OWNER_URL: the check warns, and fails.
    as_owner = production_env(tmp_path, DATABASE_URL=installation.owner_url)
    warned = run_python(as_owner, *CHECK)
    assert warned.returncode != 0
    assert "bingo.W002" in warned.stdout + warned.stderr
