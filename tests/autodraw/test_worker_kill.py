"""The real thing: a Celery worker (with beat) on Redis and the PostgreSQL test database plays an
online game at 1 s a ball; it is killed with SIGKILL mid-game and started again. The balls are
positions 1..n with no gap, none repeated, none changed, never under 1 s apart (R88); the game
ends and its winners are paid into their wallets once (R97). Skipped without PostgreSQL and
Redis: a worker process cannot share SQLite's in-memory test database."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from bingo.autodraw import services
from bingo.models import Ball, Game, PrizePayment, PrizeWinner, Sale, WalletEntry
from bingo.players.selectors import wallet_balance
from tests.autodraw.helpers import OnlineHall, online_buy
from tests.processes import ROOT
from tests.test_production_smoke import _database_url, production_env

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def real_services(transactional_db: None) -> None:
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("a real Celery worker needs PostgreSQL and Redis (set DATABASE_URL and REDIS_URL)")


class Worker:
    """``celery -A bingo.celery worker --beat`` in a process group of its own, on a queue of its
    own (the Redis is shared with other tests), against this test's database."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.env = production_env(
            tmp,
            DJANGO_DEBUG="true",
            DATABASE_URL=_database_url(),
            REDIS_URL=settings.REDIS_URL,
            CELERY_TASK_DEFAULT_QUEUE=f"autodraw-test-{uuid.uuid4().hex}",
        )
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        log = (self.tmp / f"worker-{self.starts}.log").open("w")
        command = [
            *(sys.executable, "-m", "celery", "-A", "bingo.celery", "worker", "--pool=solo"),
            *("--beat", f"--schedule={self.tmp / 'beat-schedule'}", "--loglevel=info"),
        ]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def kill(self) -> None:
        """SIGKILL to the worker's process group (the worker and its beat): no clean shutdown."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def logs(self) -> str:
        return "\n".join(p.read_text()[-3000:] for p in sorted(self.tmp.glob("worker-*.log")))


@pytest.fixture
def worker(real_services: None, tmp_path: Path) -> Iterator[Worker]:
    running = Worker(tmp_path)
    try:
        yield running
    finally:
        running.stop()


def _balls(game: Game) -> list[tuple[int, int]]:
    return list(Ball.objects.filter(game=game).order_by("position").values_list("position", "number"))


def _wait(condition: object, seconds: float, worker: Worker, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.2)
    pytest.fail(f"{what} within {seconds} s\n{worker.logs()}")


def close_sales_now(game: Game) -> None:
    """Bring the game's sales window's end to now, once every card is bought: the window is long
    while the test buys (on a loaded machine 30 purchases outlast a few seconds: «Game 1 is not
    selling cards»), and the worker started next closes the sales at once."""
    Game.objects.filter(pk=game.pk).update(sales_close_at=timezone.now())


def test_a_worker_killed_mid_game_never_skips_repeats_or_changes_a_ball(worker: Worker) -> None:
    # The 30-ball game ends in some twenty balls: at R88's 1 s a ball the test takes under a minute.
    lobby = OnlineHall("Sala Kill", variant="30", tax_rate="10", sales_seconds=300, pause_seconds=3600)
    lobby.series(1)
    game = services.online_room_advance(room_id=lobby.room.pk)
    assert game is not None
    players = [lobby.player(f"jogador{n}", deposit="10000.00") for n in range(3)]
    for n in range(30):
        online_buy(game, players[n % 3], 2)  # 60 cards, three buyers
    close_sales_now(game)

    worker.start()
    _wait(lambda: len(_balls(game)) >= 4, 40, worker, "the worker did not draw 4 balls")
    worker.kill()
    seen = _balls(game)
    time.sleep(4)  # the next ball falls due while no worker runs
    assert _balls(game) == seen, "nothing is drawn while the worker is dead"
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING
    assert game.next_ball_at is not None

    worker.start()  # the reconciler finds the overdue ball and queues it again
    _wait(
        lambda: Game.objects.filter(pk=game.pk, state=Game.State.FINISHED).exists(),
        120,
        worker,
        "the game did not finish after the restart",
    )
    worker.stop()

    balls = _balls(game)
    assert [p for p, _n in balls] == list(range(1, len(balls) + 1))  # no gap
    assert len({n for _p, n in balls}) == len(balls)  # no repeat
    assert balls[: len(seen)] == seen  # no ball changed
    assert len(balls) > len(seen)
    times = list(Ball.objects.filter(game=game).order_by("position").values_list("drawn_at", flat=True))
    assert all(b - a >= timedelta(seconds=1) for a, b in itertools.pairwise(times))  # R88
    # The restart came after the pause: the first ball after it is late, not early.
    assert times[len(seen)] - times[len(seen) - 1] >= timedelta(seconds=4)

    winners = list(PrizeWinner.objects.filter(prize__game=game))
    assert {w.prize.kind for w in winners} >= {"line", "bingo"}
    payments = PrizePayment.objects.filter(winner__prize__game=game)
    assert payments.count() == len(winners)  # each paid once
    assert WalletEntry.objects.filter(kind="prize", prize_payment__in=payments).count() == len(
        [p for p in payments if p.net > 0]
    )
    for player in players:
        spent = sum((s.amount for s in Sale.objects.filter(buyer=player)), Decimal(0))
        won = sum((e.amount for e in WalletEntry.objects.filter(player=player, kind="prize")), Decimal(0))
        assert wallet_balance(player=player) == Decimal("10000.00") - spent + won
