"""An online hall where Ana played one game to the end (two cards) and Rui bought nothing, built
with the real services: the reconciler opens the game, ``online_buy`` sells, the system draws."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.test import Client

from bingo.common.roles import Role, user_roles_set
from bingo.models import Game, Player
from halls.models import StaffMembership
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, online_buy, play_to_the_end, reconcile
from tests.factories import UserFactory


@dataclass
class Played:
    lobby: OnlineHall
    ana: Player
    rui: Player
    game: Game
    caller: User


def next_game(lobby: OnlineHall, clock: Clock) -> Game:
    """Let the room's pause pass and the reconciler open the next game (R90)."""
    for _ in range(30):
        reconcile()
        selling = Game.objects.filter(session__room=lobby.room, state=Game.State.SELLING).first()
        if selling is not None:
            return selling
        clock.advance(5)
    raise AssertionError("no game opened")


def play(lobby: OnlineHall, clock: Clock, tasks: Tasks, game: Game) -> Game:
    game.refresh_from_db()
    assert game.sales_close_at is not None
    clock.to(game.sales_close_at)
    reconcile()
    game.refresh_from_db()
    list(play_to_the_end(tasks, game))
    game.refresh_from_db()
    return game


def login(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def played(db: None, clock: Clock, tasks: Tasks) -> Played:
    lobby = OnlineHall()
    lobby.series(1, price="100.00")
    ana, rui = lobby.player("ana"), lobby.player("rui")
    for player in (ana, rui):
        user_roles_set(user=player.user, roles=[Role.PLAYER])
    user_roles_set(user=lobby.manager, roles=[Role.MANAGER])
    user_roles_set(user=lobby.cashier, roles=[Role.CASHIER])
    caller = UserFactory(username="caller-online", roles=[Role.CALLER])
    StaffMembership.objects.create(hall=lobby.hall, user=caller, role=Role.CALLER.value)
    game = next_game(lobby, clock)
    online_buy(game, ana, 2)
    game = play(lobby, clock, tasks, game)
    assert game.state == Game.State.FINISHED
    return Played(lobby, ana, rui, game, caller)
