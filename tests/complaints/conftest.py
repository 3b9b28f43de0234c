"""An online hall where Ana played one game to the end (two cards) and Rui bought nothing, built
with the real services: the reconciler opens the game, ``online_buy`` sells, the system draws."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User

from bingo.common.roles import Role, user_roles_set
from bingo.models import Game, Player
from halls.models import StaffMembership
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, next_game, online_buy, play_out
from tests.factories import UserFactory


@dataclass
class Played:
    lobby: OnlineHall
    ana: Player
    rui: Player
    game: Game
    caller: User


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
    game = play_out(clock, tasks, game)
    assert game.state == Game.State.FINISHED
    return Played(lobby, ana, rui, game, caller)
