"""The production topology (docs/deploy.md): two ASGI worker processes and one Celery worker (with
beat) on PostgreSQL and Redis run an online game; players connected to either ASGI worker receive
every ball, in order, once.

Everything is real: two uvicorn processes on ports of their own (as two ``bingo-web@`` units
behind the proxy), a Celery worker that draws each ball in a task of its own (bingo/autodraw),
the Redis channel layer between them, and websocket clients logged in as players. The processes
log in to PostgreSQL as the app's role, as production's do (docs/deploy.md «The database's
roles»): no superuser and no owner of the tables behind the game. The processes
get a channel-layer prefix and a Celery queue of their own, so other tests sharing the Redis
cannot be heard. Skipped without PostgreSQL and Redis: other processes cannot share SQLite's
in-memory test database.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db import connection
from websockets.sync.client import connect

from bingo.autodraw import services
from bingo.common.roles import Role, user_roles_set
from bingo.models import Ball, Game
from tests.autodraw.helpers import OnlineHall, online_buy
from tests.autodraw.test_worker_kill import Worker
from tests.db_roles import app_role
from tests.live.test_consumers import _session_cookie
from tests.processes import HOST, ROOT, free_port, stop, uvicorn, wait_until_serving
from tests.test_production_smoke import _database_url, get, production_env

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def real_services(transactional_db: None) -> None:
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("several worker processes need PostgreSQL and Redis (set DATABASE_URL and REDIS_URL)")


@pytest.fixture
def isolated_env(real_services: None, tmp_path: Path) -> dict[str, str]:
    """The environment every process of this test shares: the test database as the app's role,
    Redis, a channel prefix and a Celery queue of their own."""
    role = app_role()
    assert role is not None
    assert urlsplit(_database_url()).username == role.name
    return production_env(
        tmp_path,
        DJANGO_DEBUG="true",
        DJANGO_SECRET_KEY=settings.SECRET_KEY,  # the sessions this test signs are read there
        DATABASE_URL=_database_url(),
        REDIS_URL=settings.REDIS_URL,
        CHANNEL_LAYER_PREFIX=f"topology-{uuid.uuid4().hex[:12]}",
        CELERY_TASK_DEFAULT_QUEUE=f"topology-{uuid.uuid4().hex}",
    )


@pytest.fixture
def asgi_workers(isolated_env: dict[str, str], tmp_path: Path) -> Iterator[list[str]]:
    """Two uvicorn processes, one worker each, on two ports: yields their host:port."""
    processes: list[subprocess.Popen[bytes]] = []
    addresses = []
    try:
        for n in range(2):
            port = free_port()
            command = uvicorn(port, "--workers", "1", "--ws-per-message-deflate", "false")
            with (tmp_path / f"asgi-{n}.log").open("w") as log:
                processes.append(
                    subprocess.Popen(
                        command, cwd=ROOT, env=isolated_env, stdout=log, stderr=subprocess.STDOUT
                    )
                )
            addresses.append(f"{HOST}:{port}")
        for process, address in zip(processes, addresses, strict=True):
            wait_until_serving(
                process,
                partial(get, address, "/entrar/"),
                lambda: "\n".join(p.read_text() for p in tmp_path.glob("asgi-*.log")),
                timeout=30,
            )
        yield addresses
    finally:
        for process in processes:
            stop(process)


class Screen(threading.Thread):
    """One player's game screen: a websocket to one ASGI worker, every message kept."""

    def __init__(self, address: str, game_id: int, cookie: bytes) -> None:
        super().__init__(daemon=True)
        self.socket = connect(
            f"ws://{address}/ws/online/game/{game_id}/",
            origin=f"http://{address}",
            additional_headers={"Cookie": cookie.decode()},
            proxy=None,
            open_timeout=10,
        )
        self.messages: list[dict[str, Any]] = []
        self.start()

    def run(self) -> None:
        try:
            while True:
                self.messages.append(json.loads(self.socket.recv()))
        except Exception:  # closed by the test
            return

    def close(self) -> None:
        self.socket.close()
        self.join(5)


def test_players_on_either_asgi_worker_receive_every_ball_in_order_once(
    isolated_env: dict[str, str], asgi_workers: list[str], tmp_path: Path
) -> None:
    # A 30-ball game ends in some twenty balls: at R88's 1 s a ball, well under a minute.
    lobby = OnlineHall("Sala Topologia", variant="30", sales_seconds=8, pause_seconds=3600)
    lobby.series(1)
    game = services.online_room_advance(room_id=lobby.room.pk)
    assert game is not None
    assert game.state == Game.State.SELLING
    players = [lobby.player(f"topo{n}", deposit="10000.00") for n in range(4)]
    for player in players:
        user_roles_set(user=player.user, roles=[Role.PLAYER])
        online_buy(game, player, 5)

    # Two players on each ASGI worker, connected before the first ball.
    screens = [
        Screen(asgi_workers[n % 2], game.pk, _session_cookie(player.user)) for n, player in enumerate(players)
    ]
    worker = Worker(tmp_path)
    worker.env = isolated_env
    worker.start()
    try:
        deadline = time.monotonic() + 120
        while not Game.objects.filter(pk=game.pk, state=Game.State.FINISHED).exists():
            if time.monotonic() > deadline:
                pytest.fail(f"the game did not finish\n{worker.logs()}")
            time.sleep(0.3)
        balls = list(Ball.objects.filter(game=game).order_by("position").values_list("number", flat=True))
        deadline = time.monotonic() + 10
        while any(_last_balls(s.messages) != balls for s in screens) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        worker.stop()
        for screen in screens:
            screen.close()

    assert len(balls) >= 5
    for n, screen in enumerate(screens):
        where = f"player {n} on {asgi_workers[n % 2]}"
        news_messages = [m for m in screen.messages if m["type"] != "live.heartbeat"]
        states = [m["game"] for m in news_messages if m["type"] == "game.state"]
        assert all(m["type"] == "game.state" for m in news_messages), f"{where}: a missed message"
        assert all(s["id"] == game.pk for s in states)
        counts = [len(s["balls"]) for s in states]
        # Every ball, in order, once: each new ball comes in one message, never two at a time,
        # never back; other messages (a prize, the end) repeat the balls already shown.
        news = [b for a, b in zip([0, *counts], counts, strict=False) if b != a]
        assert news == list(range(1, len(balls) + 1)), f"{where}: balls arrived as {counts}"
        for state in states:
            assert state["balls"] == balls[: len(state["balls"])], f"{where}: a ball out of order"
        assert states[-1]["state"] == Game.State.FINISHED


def _last_balls(messages: list[dict[str, Any]]) -> list[int] | None:
    states = [m["game"] for m in messages if m.get("type") == "game.state"]
    return states[-1]["balls"] if states else None
