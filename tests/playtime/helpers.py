"""Games played to the end in an online room, for the play session tests: real purchases
(``online_buy``), the system's draw and prizes (bingo/autodraw), an injected clock."""

from __future__ import annotations

import pytest
from django.test import Client

from bingo.common.roles import Role, user_roles_set
from bingo.draw import services as draw_services
from bingo.models import Game, Player
from cards.selectors import card_set_cells
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, next_game, online_buy, play_out
from tests.clients import logged_in


def play_game(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, buyers: list[Player], monkeypatch: pytest.MonkeyPatch
) -> Game:
    """One game of the room: ``buyers`` buy a card each, sales close, the balls are drawn to
    the end and the prizes paid. The balls come in the order of the last buyer's card (its
    numbers first) so the game ends in a few balls: the tests stay fast."""
    game = next_game(lobby, clock)
    sale = None
    for player in buyers:
        sale = online_buy(game, player, 1)
    if sale is not None:
        cells = card_set_cells(lobby.card_set)[sale.first_number - 1]
        first = [int(v) for row in cells for v in row if v]
        order = first + [n for n in range(1, 91) if n not in first]
        monkeypatch.setattr(draw_services, "next_ball", lambda variant, drawn, rng: order[len(list(drawn))])
    game = play_out(clock, tasks, game)
    assert game.state in (Game.State.FINISHED, Game.State.ANNULLED)
    return game


def player(lobby: OnlineHall, name: str) -> Player:
    made = lobby.player(name)
    user_roles_set(user=made.user, roles=[Role.PLAYER])
    return made


def client_for(made: Player) -> Client:
    """The test client logged in as ``made`` (the login signal starts the play session)."""
    return logged_in(made.user, "pt")
