"""`make up` as an operator runs it (README, docs/deploy.md): the production topology on one
machine plays an online game.

The test runs the Makefile's own target, `make up`, in a process group of its own, with what an
operator sets: ``DATABASE_OWNER_URL`` (the tables' owner, for ``migrate``), ``DATABASE_URL`` (the
app's role, which ``db_grant`` grants), ``REDIS_URL`` and ``PORT``. `make up` migrates, grants,
builds the demo, then starts the Procfile through honcho: two uvicorn workers, a Celery worker
and Celery beat. A fresh database and its two roles are made for the run (the ``installation``
of tests/test_deploy_roles.py); a channel-layer prefix and a Celery queue of its own keep other
tests sharing the Redis apart.

The demo player then plays as a client would: logs in through the login form, reads the lobby
from the API, buys a card with the API, and listens on two websockets of the game's page: the
first ball (drawn by the Celery worker's task after the demo room's 60 s of sales) reaches them.
PostgreSQL and Redis only.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from websockets.sync.client import connect

from tests.processes import ROOT, free_port, log_in_through_form, wait_until_serving
from tests.test_deploy_roles import Installation, installation  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

START_TIMEOUT = 180.0
#: The demo room sells for 60 s after its game opens (R93), then a ball every 4 s (R88).
FIRST_BALL_TIMEOUT = 150.0


class MakeUp:
    """`make up` running in a process group of its own, its output in a file."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("w") as out:
            # -o: the virtual environment is installed (make test runs from it); never reinstall.
            self.process = subprocess.Popen(
                ["make", "-o", ".venv/.installed", "up"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)  # Ctrl-C, as the operator stops it
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


class Player:
    """The demo player's browser, as far as HTTP goes: cookies, the CSRF token, JSON."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def log_in(self, username: str, password: str) -> str:
        with log_in_through_form(self.opener, self.base, username, password) as response:
            return str(response.url)

    def cookie(self, name: str) -> str:
        return next(cookie.value for cookie in self.cookies if cookie.name == name and cookie.value)

    def api(self, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        request = urllib.request.Request(
            f"{self.base}{path}",
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "Accept": "application/json",
                "Content-Type": "application/json",
                "X-CSRFToken": self.cookie("csrftoken"),
                "Referer": f"{self.base}/",
            },
        )
        with self.opener.open(request, timeout=15) as response:
            return response.status, json.loads(response.read())


@pytest.fixture
def make_up(installation: Installation, tmp_path: Path) -> Iterator[tuple[MakeUp, str]]:  # noqa: F811
    if not settings.REDIS_URL:
        pytest.skip("make up needs Redis (set REDIS_URL)")
    if Path(sys.executable).parent.resolve() != (ROOT / ".venv" / "bin").resolve():
        pytest.skip("make up runs the project's .venv: run the suite from it (make test)")
    port = free_port()
    keep = {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR"}
    env = {key: value for key, value in os.environ.items() if key in keep}
    env.update(
        DATABASE_URL=installation.app_url,
        DATABASE_OWNER_URL=installation.owner_url,
        REDIS_URL=settings.REDIS_URL,
        CHANNEL_LAYER_PREFIX=f"make-up-{uuid.uuid4().hex[:12]}",
        CELERY_TASK_DEFAULT_QUEUE=f"make-up-{uuid.uuid4().hex}",
        PORT=str(port),
        PYTHONUNBUFFERED="1",
    )
    running = MakeUp(env, tmp_path / "make-up.log")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(
            running.process,
            lambda: urllib.request.urlopen(f"{base}/entrar/", timeout=5).read(),
            running.output,
            timeout=START_TIMEOUT,
            failure="make up did not serve",
            pause=0.5,
        )
        yield running, base
    finally:
        running.stop()


def test_make_up_plays_an_online_game_through_its_processes(make_up: tuple[MakeUp, str]) -> None:
    running, base = make_up
    player = Player(base)
    assert player.log_in("jogador", "jogador-demo") == f"{base}/jogador/"

    # The beat's loop opens the demo room's first game a moment after the processes start.
    deadline = time.monotonic() + 60
    game: dict[str, Any] | None = None
    while game is None:
        status, lobby = player.api("/api/online/lobby/")
        assert status == 200
        games = [g for room in lobby["rooms"] for g in room["games"] if g["state"] == "selling"]
        game = games[0] if games else None
        if game is None:
            assert time.monotonic() < deadline, f"no game on sale:\n{running.output()}"
            time.sleep(1)

    status, bought = player.api(
        f"/api/online/games/{game['id']}/purchases/", {"quantity": 1, "key": uuid.uuid4().hex}
    )
    assert status == 201, bought
    assert bought["cards"] == 1

    cookie = f"sessionid={player.cookie('sessionid')}"
    first_balls = []
    with ExitStack() as stack:
        sockets = [
            stack.enter_context(
                connect(
                    f"ws://{base.removeprefix('http://')}/ws/online/game/{game['id']}/",
                    origin=base,
                    additional_headers={"Cookie": cookie},
                    proxy=None,
                    open_timeout=10,
                )
            )
            for _ in range(2)
        ]
        for socket in sockets:
            deadline = time.monotonic() + FIRST_BALL_TIMEOUT
            balls: list[int] = []
            while not balls:
                left = deadline - time.monotonic()
                assert left > 0, f"no ball reached the page:\n{running.output()[-5000:]}"
                message = json.loads(socket.recv(timeout=left))
                if message["type"] == "game.state":
                    balls = message["game"]["balls"]
            first_balls.append(balls[0])

    assert first_balls[0] == first_balls[1]  # the same ball on both pages
    status, state = player.api(f"/api/online/games/{game['id']}/state/")
    assert state["balls"][0] == first_balls[0]
    output = running.output()
    # The Procfile's processes, as honcho names them, and the app's role serving them.
    for name in ("web.1", "worker.1", "beat.1"):
        assert f"{name} " in output or f"{name} |" in output, output[-3000:]
    assert "Task autodraw.draw_ball" in output
