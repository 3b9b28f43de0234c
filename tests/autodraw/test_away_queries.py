"""R99: the lobby's «While you were away» reads what each ended game left the player with in a
fixed number of queries, however many games ended while they were away (no query per game)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bingo.autodraw import services
from bingo.faults import services as fault_services
from bingo.models import Game, Player
from bingo.online.selectors import player_games_ended_since
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, committed, online_buy

pytestmark = pytest.mark.django_db


def _faulted_games(lobby: OnlineHall, clock: Clock, ana: Player, count: int) -> list[Game]:
    games = []
    for n in range(count):
        game = committed(lambda: services.online_room_advance(room_id=lobby.room.pk))
        assert game is not None
        assert game.state == Game.State.SELLING
        online_buy(game, ana, 1)
        committed(
            lambda g=game, n=n: fault_services.online_game_fault(
                game=g, user=lobby.manager, reason=f"Avaria {n}"
            )
        )
        clock.advance(3600)  # past the room's pause
        games.append(game)
    return games


def _queries(player: Player) -> tuple[int, list[Decimal]]:
    with CaptureQueriesContext(connection) as ctx:
        away = player_games_ended_since(player=player, since=None)
    return len(ctx.captured_queries), [item.refunded for item in away]


def test_r99_the_away_list_reads_in_the_same_queries_for_one_game_or_many(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    lobby.series(1)
    ana = lobby.player("ana")
    _faulted_games(lobby, clock, ana, 1)
    one, refunded = _queries(ana)
    assert refunded == [Decimal("100.00")]
    _faulted_games(lobby, clock, ana, 3)
    four, refunded = _queries(ana)
    assert refunded == [Decimal("100.00")] * 4  # each game's own refund, newest first
    assert four == one
