"""The reconciler runs every second (beat): it reads the overdue games once a tick, whatever their
number, and takes from that one read both the balls to queue again (``OVERDUE_GRACE`` late) and
the games late past ``ONLINE_FAULT_AFTER``, which the system declares null (R98)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bingo.autodraw import services
from bingo.autodraw.tasks import draw_ball_task
from bingo.models import Game, OnlineRoom
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, committed, online_buy, reconcile

pytestmark = pytest.mark.django_db

#: How an overdue read of the games filters them: by their next ball's moment.
OVERDUE_READ = '"next_ball_at" <='


def _drawing(*names: str, clock: Clock, tasks: Tasks) -> list[Game]:
    """An online game drawing in a room of each name, its first ball out and the second's task
    lost (a worker killed)."""
    games = []
    for name in names:
        lobby = OnlineHall(name)
        lobby.series(1)
        game = committed(lambda lobby=lobby: services.online_room_advance(room_id=lobby.room.pk))
        assert game is not None
        online_buy(game, lobby.player(f"ana-{name}"), 2)
        game.refresh_from_db()
        clock.to(game.sales_close_at)
        games.append(game)
    reconcile()  # every game's sales close and its draw starts
    for game in games:
        game.refresh_from_db()
        clock.to(game.next_ball_at)
        assert committed(lambda game=game: draw_ball_task(game.pk, 1)) is not None
    tasks.queued.clear()
    for game in games:
        game.refresh_from_db()
        assert game.state == Game.State.DRAWING
    return games


def _tick() -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        reconcile()
    return [q["sql"] for q in ctx.captured_queries]


def test_the_reconciler_reads_the_overdue_games_once_a_tick(clock: Clock, tasks: Tasks) -> None:
    games = _drawing("Sala A", "Sala B", "Sala C", clock=clock, tasks=tasks)
    OnlineRoom.objects.update(active=False)  # no room to advance: the tick is the games' alone
    clock.advance(60)  # every game's ball 2 is overdue, none past ONLINE_FAULT_AFTER

    queries = _tick()
    assert sorted((q.game_id, q.position) for q in tasks.queued) == [(g.pk, 2) for g in games]
    assert sum(OVERDUE_READ in sql for sql in queries) == 1
    # Rooms, the continuous games held after their first purchase, sales due, sessions waiting,
    # the overdue games, the balls failing, and the transaction's savepoint and release: the
    # same however many games are overdue.
    assert len(queries) == 8


def test_one_read_finds_both_the_balls_to_queue_and_the_games_past_the_fault_limit(
    clock: Clock, tasks: Tasks, settings: object
) -> None:
    settings.ONLINE_FAULT_AFTER = 300  # type: ignore[attr-defined]
    down, late = _drawing("Sala Parada", "Sala Atrasada", clock=clock, tasks=tasks)
    OnlineRoom.objects.update(active=False)
    clock.advance(400)
    Game.objects.filter(pk=down.pk).update(next_ball_at=clock.now - timedelta(seconds=301))  # R98
    Game.objects.filter(pk=late.pk).update(next_ball_at=clock.now - timedelta(seconds=10))  # late

    with CaptureQueriesContext(connection) as ctx:
        reconcile()
    assert sum(OVERDUE_READ in q["sql"] for q in ctx.captured_queries) == 1
    down.refresh_from_db()
    late.refresh_from_db()
    assert down.state == Game.State.ANNULLED
    assert "R98" in down.state_reason
    assert late.state == Game.State.DRAWING
    assert [(q.game_id, q.position) for q in tasks.queued] == [(late.pk, 2)]
    assert late.next_ball_at is not None
    assert clock.now - late.next_ball_at < timedelta(seconds=300)
