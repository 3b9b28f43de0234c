"""Who is a player (bingo/players/access.py, docs/players.md «Who is a player»): every page and
API endpoint of a player's own answers one way to anyone who is not a player — 403, as any role
that may not — and lets a registered player through."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from django.test import Client
from django.urls import reverse

from bingo.common.roles import Role
from bingo.models import Player
from tests.factories import UserFactory
from tests.players.conftest import Halls

NO_ID = 999_999  # no game or room: a player gets 404, anyone else is refused before


class Door(NamedTuple):
    method: str
    url_name: str
    args: tuple[int, ...] = ()

    @property
    def api(self) -> bool:
        return self.url_name.startswith("api:")

    def call(self, client: Client) -> int:
        url = reverse(self.url_name, args=self.args)
        if self.method == "get":
            return client.get(url).status_code
        send = getattr(client, self.method)
        return int(send(url, {}, content_type="application/json").status_code)


#: Every page and API endpoint that needs a player.
PLAYER_DOORS = [
    # The wallet and the history (R100): bingo/players.
    Door("get", "players:wallet"),
    Door("get", "players:history"),
    Door("get", "players:history_csv"),
    Door("get", "players:history_pdf"),
    Door("get", "api:player-wallet"),
    Door("get", "api:player-history"),
    Door("get", "api:player-history-pdf"),
    # Play sessions and the time limit (PT-806/67, R101): bingo/playtime.
    Door("get", "playtime:sessions"),
    Door("get", "playtime:limit"),
    Door("post", "playtime:limit"),
    Door("post", "playtime:continue"),
    Door("get", "api:player-sessions"),
    Door("get", "api:player-playtime"),
    Door("post", "api:player-playtime-continue"),
    Door("get", "api:player-playtime-limit"),
    Door("put", "api:player-playtime-limit"),
    # Responsible gaming (R101): bingo/protection.
    Door("get", "protection:mine"),
    Door("post", "protection:mine"),
    Door("get", "api:player-limits"),
    Door("post", "api:player-limits"),
    Door("get", "api:player-exclusion"),
    Door("post", "api:player-exclusion"),
    # Complaints (R61 j)): bingo/complaints.
    Door("get", "complaints:file", (NO_ID,)),
    Door("post", "complaints:file", (NO_ID,)),
    Door("get", "api:player-complaints"),
    Door("post", "api:player-complaints"),
    # Online play (R94-R99): bingo/online.
    Door("get", "online:lobby"),
    Door("get", "online:game", (NO_ID,)),
    Door("post", "online:buy", (NO_ID,)),
    Door("post", "online:marking"),
    Door("get", "api:online-lobby"),
    Door("get", "api:online-game-state", (NO_ID,)),
    Door("post", "api:online-game-purchases", (NO_ID,)),
    Door("put", "api:online-marking"),
    # Demo mode (R102): bingo/demo.
    Door("get", "demo:home"),
    Door("post", "demo:grant"),
    Door("post", "demo:start", (NO_ID,)),
    Door("get", "demo:game", (NO_ID,)),
    Door("get", "api:demo-balance"),
    Door("post", "api:demo-grants"),
    Door("post", "api:demo-games"),
    Door("get", "api:demo-game-state", (NO_ID,)),
]


@pytest.fixture
def halls_with_player(halls: Halls) -> Halls:
    halls.player("maria")
    return halls


@pytest.mark.parametrize("door", PLAYER_DOORS, ids=lambda d: f"{d.method}-{d.url_name}")
def test_anyone_but_a_registered_player_gets_403(door: Door, halls_with_player: Halls) -> None:
    staff = Client()
    staff.force_login(halls_with_player.cashier)
    # Given the player role by hand, never registered: no Player, no wallet.
    unregistered = Client()
    unregistered.force_login(UserFactory(username="sem-registo", roles=[Role.PLAYER]))

    assert door.call(staff) == 403
    assert door.call(unregistered) == 403


@pytest.mark.parametrize("door", PLAYER_DOORS, ids=lambda d: f"{d.method}-{d.url_name}")
def test_a_registered_player_gets_through_and_no_one_logged_out_does(
    door: Door, halls_with_player: Halls
) -> None:
    player = Client()
    player.force_login(Player.objects.get(user__username="maria").user)

    assert door.call(player) != 403
    # Not logged in: the API says so (403), a page sends to the login page.
    assert door.call(Client()) == (403 if door.api else 302)
