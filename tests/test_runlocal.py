"""manage.py runlocal (the body of `make run`), run for real in a subprocess.

Each test starts the command on a free port with the embedded defaults (SQLite and the
filesystem broker in a temporary BINGO_VAR_DIR), talks to it over HTTP, then stops it.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path

import pytest
import redis

from bingo.management.commands.runlocal import redis_server_command
from tests.processes import ROOT, alive, children_of, command_line, free_port, log_in_through_form

START_TIMEOUT = 180.0  # migrate and the demo hall in play (demo_setup), on a loaded CI box

pytestmark = pytest.mark.slow


class RunLocal:
    """A running `manage.py runlocal`, its output collected line by line."""

    def __init__(self, tmp_path: Path, port: int, **extra_env: str) -> None:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"DATABASE_URL", "DATABASE_OWNER_URL", "REDIS_URL"}
        }
        env.update(extra_env)
        env.update({"DJANGO_DEBUG": "true", "BINGO_VAR_DIR": str(tmp_path / "var"), "PYTHONUNBUFFERED": "1"})
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "runlocal", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, pattern: str, timeout: float = START_TIMEOUT) -> str:
        """The first output line matching ``pattern``, already printed or yet to come."""
        for line in self.output:
            if re.search(pattern, line):
                return line
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None and self.lines.empty():
                    break
                continue
            self.output.append(line)
            if re.search(pattern, line):
                return line
        raise AssertionError(f"{pattern!r} never appeared; output:\n{''.join(self.output)}")

    def drain(self) -> str:
        while not self.lines.empty():
            self.output.append(self.lines.get())
        return "".join(self.output)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        for pid in children_of(self.process.pid):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def runlocal(tmp_path: Path) -> Iterator[RunLocal]:
    server = RunLocal(tmp_path, free_port())
    try:
        yield server
    finally:
        server.stop()


def log_in(url: str, username: str, password: str) -> tuple[str, str]:
    """Log in through the form as a browser would; the final URL and page."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
    with log_in_through_form(opener, url, username, password) as response:
        return response.url, response.read().decode()


def test_runlocal_serves_pages_and_css_logs_demo_users_in_and_stops_cleanly_on_sigint(
    runlocal: RunLocal,
) -> None:
    runlocal.wait_for(rf"Servindo em http://127\.0\.0\.1:{runlocal.port}")
    runlocal.wait_for(r"celery@\S+ ready")
    children = children_of(runlocal.process.pid)
    commands = [command_line(pid) for pid in children]
    assert len(children) == 3, commands
    assert any("redis-server 127.0.0.1:" in command for command in commands)
    assert any("celery -A bingo.celery worker --pool=solo" in command for command in commands)
    assert any("uvicorn bingo.asgi:application" in command for command in commands)
    # Its own Redis, on this machine only, asking for a password; the worker uses it.
    port = int(runlocal.wait_for(r"Redis .* 127\.0\.0\.1:(\d+)").rsplit(":", 1)[1].strip(" .\n"))
    runlocal.wait_for(rf"Connected to redis://:\*\*@127\.0\.0\.1:{port}/0")
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(port=port, socket_timeout=5).ping()
    # The password is on no command line (every local user can read those): Redis reads it from
    # its standard input.
    assert "--requirepass" not in redis_server_command("redis-server", port, Path("var"))

    with urllib.request.urlopen(f"{runlocal.url}/entrar/", timeout=10) as response:
        assert "<h1>Entrar</h1>" in response.read().decode()
    with urllib.request.urlopen(f"{runlocal.url}/static/css/app.css", timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/css")
        assert b".site-header" in response.read()
    final_url, page = log_in(runlocal.url, "locutor", "locutor-demo")
    assert final_url == f"{runlocal.url}/locutor/"
    assert "<h1>Painel do locutor</h1>" in page

    runlocal.process.send_signal(signal.SIGINT)

    assert runlocal.process.wait(30) == 0, runlocal.drain()
    assert not [pid for pid in children if alive(pid)]
    assert "Parado." in runlocal.drain()


def test_runlocal_stops_everything_and_fails_when_a_child_dies(runlocal: RunLocal) -> None:
    runlocal.wait_for(rf"Servindo em http://127\.0\.0\.1:{runlocal.port}")
    children = children_of(runlocal.process.pid)
    server = next(pid for pid in children if "uvicorn" in command_line(pid))

    os.kill(server, signal.SIGKILL)

    assert runlocal.process.wait(30) == 1
    assert not [pid for pid in children if alive(pid)]
    assert "uvicorn terminou inesperadamente" in runlocal.drain()


def test_runlocal_refuses_a_port_already_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server = RunLocal(tmp_path, taken.getsockname()[1])
        try:
            server.wait_for(r"já está a ser usada", timeout=60)
            assert server.process.wait(10) == 1
            assert children_of(server.process.pid) == []
        finally:
            server.stop()


def test_runlocal_uses_the_redis_of_redis_url_when_set(tmp_path: Path) -> None:
    """With REDIS_URL set, `make run` starts no Redis of its own: the worker connects to that one."""
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("REDIS_URL not set")
    server = RunLocal(
        tmp_path,
        free_port(),
        REDIS_URL=url,
        CHANNEL_LAYER_PREFIX=f"runlocal-{os.getpid()}",
        CELERY_TASK_DEFAULT_QUEUE=f"runlocal-{os.getpid()}",
    )
    try:
        server.wait_for(rf"Servindo em http://127\.0\.0\.1:{server.port}")
        server.wait_for(r"celery@\S+ ready")
        commands = [command_line(pid) for pid in children_of(server.process.pid)]
        assert len(commands) == 2, commands
        assert not any("redis-server" in command for command in commands)
        where = urllib.parse.urlsplit(url)
        host = re.escape(where.hostname or "")
        server.wait_for(rf"Connected to redis://\S*{host}:{where.port}{where.path}$")
        assert "beat-schedule" not in server.drain()  # beat keeps its schedule under var/
    finally:
        server.stop()
