"""The production start path: collectstatic, then a real uvicorn with debug off, as `make serve`.

The server is a subprocess with production settings (debug off, a random secret key, one allowed
host, the Redis channel layer) on the pytest-django test database, so it sees the rows a test
commits (``transactional_db``). Requests carry ``X-Forwarded-Proto: https`` as the TLS proxy in
front would: the settings trust that header and redirect plain HTTP to HTTPS. Without PostgreSQL
and Redis these tests are skipped.

The start check needs no server: with debug off and no collectstatic, the ASGI and WSGI
applications refuse to start, saying what to run.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.db import connection
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from actas.signing import private_key_file_write
from tests.db_roles import app_database_url
from tests.processes import HOST, ROOT, free_port, serve, stop, wait_until_serving
from tests.sales.test_views import Desk

PROXY = {"X-Forwarded-Proto": "https"}  # what the TLS-terminating proxy adds
START_TIMEOUT_SECONDS = 30


def signing_key_file(folder: Path) -> Path:
    """The operator's key that signs the acta's receipts, in a file of ``folder`` (made once), as
    production keeps it outside the database (ACTA_SIGNING_KEY_FILE, docs/acta.md)."""
    path = folder / "acta-signing-key.pem"
    if not path.exists():
        private_key_file_write(path, Ed25519PrivateKey.generate())
    return path


def production_env(tmp: Path, **extra: str) -> dict[str, str]:
    """This process's environment without our settings, then production's."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_", "REDIS_URL", "CELERY_", "ACTA_SIGNING_KEY"))
    }
    env.update(
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS=HOST,
        BINGO_VAR_DIR=str(tmp / "var"),
        ACTA_SIGNING_KEY_FILE=str(signing_key_file(tmp)),
    )
    env.update(extra)
    return env


def run_python(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


# --- the start check (no server) --------------------------------------------------------------


@pytest.mark.parametrize("module", ["bingo.asgi", "bingo.wsgi"])
def test_without_collectstatic_the_application_refuses_to_start(tmp_path: Path, module: str) -> None:
    empty = tmp_path / "static"
    env = production_env(tmp_path, DJANGO_STATIC_ROOT=str(empty))

    result = run_python(env, "-c", f"import {module}")

    assert result.returncode != 0
    assert "django.core.exceptions.ImproperlyConfigured" in result.stderr
    assert f"The static files manifest {empty / 'staticfiles.json'} is missing" in result.stderr
    assert "Run `manage.py collectstatic --noinput`" in result.stderr


def test_in_debug_the_application_starts_without_collectstatic(tmp_path: Path) -> None:
    """`make run`: in debug the static files come from the source folders, no manifest needed."""
    env = production_env(tmp_path, DJANGO_DEBUG="true", DJANGO_STATIC_ROOT=str(tmp_path / "static"))

    result = run_python(env, "-c", "import bingo.asgi")

    assert result.returncode == 0, result.stderr


# --- a production server ----------------------------------------------------------------------


def _database_url() -> str:
    """The URL of the test database pytest-django created (its NAME is the test one by now), as
    the app logs in: the app's role on PostgreSQL (tests/db_roles.py)."""
    return app_database_url()


@pytest.fixture(scope="module")
def postgres_and_redis(django_db_setup: None) -> None:
    """Skip unless the test database is PostgreSQL and Redis is set: a server subprocess cannot
    share SQLite's in-memory test database, and production's channel layer is Redis."""
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("a production server needs PostgreSQL and Redis (set DATABASE_URL and REDIS_URL)")


@pytest.fixture(scope="module")
def static_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """STATIC_ROOT as `make serve` leaves it: collectstatic with production's storage."""
    tmp = tmp_path_factory.mktemp("production")
    root = tmp / "static"
    result = run_python(
        production_env(tmp, DJANGO_STATIC_ROOT=str(root)), "manage.py", "collectstatic", "--noinput"
    )
    assert result.returncode == 0, result.stderr
    assert (root / "staticfiles.json").is_file()
    return root


@pytest.fixture(scope="module")
def server(postgres_and_redis: None, static_root: Path) -> Iterator[str]:
    """The workers serving bingo.asgi:application as `make serve` starts them; yields host:port."""
    port = free_port()
    env = production_env(
        static_root.parent,
        DJANGO_STATIC_ROOT=str(static_root),
        DATABASE_URL=_database_url(),
        REDIS_URL=settings.REDIS_URL,
    )
    log_path = static_root.parent / "uvicorn.log"
    # Two workers, as production runs several: each imports the application (and its checks).
    command = serve(port, "--workers", "2", "--no-proxy-headers", "--ws-per-message-deflate", "false")
    with log_path.open("w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until_serving(
            process,
            lambda: get(f"{HOST}:{port}", "/entrar/"),
            log_path.read_text,
            timeout=START_TIMEOUT_SECONDS,
        )
        yield f"{HOST}:{port}"
    finally:
        stop(process)


def get(address: str, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    """One GET, the body read; redirects are not followed."""
    client = http.client.HTTPConnection(address, timeout=10)
    try:
        client.request("GET", path, headers=headers or {})
        response = client.getresponse()
        response.read()
        return response
    finally:
        client.close()


@pytest.mark.postgres
@pytest.mark.redis
def test_the_login_page_answers_with_the_content_security_policy(server: str) -> None:
    response = get(server, "/entrar/", PROXY)

    assert response.status == 200
    policy = response.getheader("Content-Security-Policy", "")
    directives = {name: sources for name, *sources in (part.split() for part in policy.split(";"))}
    assert directives["script-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["connect-src"] == ["'self'", f"wss://{HOST}:*"]
    assert response.getheader("Strict-Transport-Security", "").startswith("max-age=")


@pytest.mark.postgres
@pytest.mark.redis
def test_plain_http_is_sent_to_https(server: str) -> None:
    response = get(server, "/entrar/")

    assert response.status == 301
    assert response.getheader("Location") == f"https://{server}/entrar/"


@pytest.mark.postgres
@pytest.mark.redis
def test_a_static_file_is_served_under_its_hashed_name(server: str, static_root: Path) -> None:
    manifest = json.loads((static_root / "staticfiles.json").read_text())
    hashed = manifest["paths"]["css/app.css"]
    assert hashed != "css/app.css"

    response = get(server, f"/static/{hashed}", PROXY)

    assert response.status == 200
    assert response.getheader("Content-Type", "").startswith("text/css")
    assert "immutable" in response.getheader("Cache-Control", "")  # WhiteNoise: the name is the version


@pytest.mark.postgres
@pytest.mark.redis
def test_the_price_board_websocket_sends_the_figures(server: str, transactional_db: None) -> None:
    praia = Desk()
    praia.sell(praia.selling, 2)  # committed: the server sees it

    with connect(
        f"ws://{server}/ws/quadro/{praia.selling.pk}/",
        origin=f"https://{server}",
        additional_headers=PROXY,
        proxy=None,
        open_timeout=10,
    ) as board:
        figures = json.loads(board.recv(timeout=10))

    assert figures["type"] == "board"
    assert figures["game"] == praia.selling.pk
    assert figures["cards_sold"] == 2
    assert figures["total_display"] == "200 CVE"


@pytest.mark.postgres
@pytest.mark.redis
def test_a_websocket_from_a_foreign_origin_is_refused(server: str, transactional_db: None) -> None:
    praia = Desk()

    with pytest.raises(InvalidStatus) as refused:
        connect(
            f"ws://{server}/ws/quadro/{praia.selling.pk}/",
            origin="https://bingo.evil.example",
            additional_headers=PROXY,
            proxy=None,
            open_timeout=10,
        )

    assert refused.value.response.status_code == 403
