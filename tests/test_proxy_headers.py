"""Who the client is behind the proxy (issue 20 point 7): uvicorn as the Procfile, `make serve`,
the systemd units and `make run` start it leaves the socket's address alone, so the application
alone reads X-Forwarded-For, counting settings.BINGO_TRUSTED_PROXIES from the right
(bingo/common/clients.py). A real server, because the rewrite happened in uvicorn, before Django.

Before: uvicorn ran with ``--proxy-headers --forwarded-allow-ips 127.0.0.1`` and took the
client's address from X-Forwarded-For whenever the connection came from a trusted address: the
first address from the right it did not trust. A client whose own address is trusted (on the
proxy's machine, in a trusted network, or anyone with ``'*'``) chose its address at will, and
every registration with a fresh X-Forwarded-For got a fresh count (12 of 12 passed).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shlex
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bingo.management.commands.runlocal import asgi_server_command
from tests.processes import HOST, ROOT, free_port, stop, uvicorn, wait_until_serving

START_TIMEOUT_SECONDS = 30

pytestmark = pytest.mark.slow


def _proxy_flags(command: str) -> list[str]:
    """uvicorn's flags about proxy headers in ``command``, in order."""
    return re.findall(r"--(?:no-)?proxy-headers|--forwarded-allow-ips[ =]\S+", command)


def _continued(text: str, start: str) -> str:
    """The command that begins with ``start`` in ``text``, its ``\\``-continued lines joined."""
    at = text.index(start)
    lines = []
    for line in text[at:].splitlines():
        lines.append(line.rstrip("\\").strip())
        if not line.endswith("\\"):
            break
    return " ".join(lines)


def procfile_web() -> str:
    line = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:"))
    # ${NAME:-default} -> default: what honcho runs with nothing set.
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", line.removeprefix("web:").strip())


def makefile_serve() -> str:
    text = (ROOT / "Makefile").read_text()
    command = _continued(text, "$(PY) -m bingo.serve")
    defaults = dict(re.findall(r"^(\w+) \?= (.*)$", text, flags=re.MULTILINE))
    return re.sub(r"\$\((\w+)\)", lambda m: defaults.get(m.group(1), m.group(0)), command)


def deploy_unit() -> str:
    return _continued((ROOT / "docs" / "deploy.md").read_text(), "ExecStart=/srv/bingo/.venv/bin/uvicorn")


def readme_serve() -> str:
    return _continued((ROOT / "README.md").read_text(), ".venv/bin/python -m bingo.serve")


def runlocal_server() -> str:
    return shlex.join(asgi_server_command(HOST, 8000))


def test_every_way_to_start_the_web_server_leaves_the_client_address_to_the_application() -> None:
    """The Procfile (`make up`), `make serve`, the systemd unit of docs/deploy.md, the README's
    steps and `make run` all start uvicorn with --no-proxy-headers (its default is to rewrite)."""
    commands = {
        "Procfile": procfile_web(),
        "Makefile": makefile_serve(),
        "docs/deploy.md": deploy_unit(),
        "README.md": readme_serve(),
        "runlocal": runlocal_server(),
    }

    assert {where: _proxy_flags(command) for where, command in commands.items()} == {
        where: ["--no-proxy-headers"] for where in commands
    }


@pytest.fixture
def web(tmp_path: Path) -> Iterator[str]:
    """One uvicorn worker started with the Procfile's flags on a free port, SQLite and the
    in-process cache (the throttle's count lives in the one worker): yields host:port."""
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL", "CELERY_", "BINGO_", "PLAYER_"))
    }
    env.update(
        BINGO_VAR_DIR=str(tmp_path / "var"),
        PLAYER_REGISTER_RATE="3/hour",
        PLAYER_REGISTER_ATTEMPT_RATE="3/hour",
    )
    command = uvicorn(
        port, "--workers", "1", "--lifespan", "off", *shlex.split(" ".join(_proxy_flags(procfile_web())))
    )
    log_path = tmp_path / "uvicorn.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until_serving(
            process,
            lambda: socket.create_connection((HOST, port), timeout=0.5).close(),
            log_path.read_text,
            timeout=START_TIMEOUT_SECONDS,
        )
        yield f"{HOST}:{port}"
    finally:
        stop(process, timeout=10)


def _register(address: str, forwarded_for: str) -> int:
    connection = http.client.HTTPConnection(address, timeout=10)
    try:
        connection.request(
            "POST",
            "/api/players/register/",
            body=json.dumps({}),
            headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for},
        )
        return connection.getresponse().status
    finally:
        connection.close()


def test_a_fresh_forwarded_for_on_every_registration_gets_no_fresh_count(web: str) -> None:
    """From 127.0.0.1 (the proxy's own machine, which uvicorn trusted) with a new X-Forwarded-For
    each time and no trusted proxy set: one count, the socket's. Each try is refused (no CSRF
    token: 403) and counted; the 4th is over the 3 an hour."""
    statuses = [_register(web, f"203.0.113.{n}") for n in range(1, 7)]

    assert statuses == [403, 403, 403, 429, 429, 429]
