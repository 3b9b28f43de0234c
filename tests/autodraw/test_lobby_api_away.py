"""R99 through the API: ``GET /api/online/lobby/`` lists as ``away`` the games the player had
cards in that ended while they were away — a game made null by a system fault (R98) with its
refund and reason, a game played on and paid (R97) with the prize credited — built by the same
selector as the lobby page, and reading it records no visit (the page's panel stays full)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from bingo.faults import services as fault_services
from bingo.models import Game, PlayerVisit, WalletEntry
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, committed, next_game, online_buy, play_out
from tests.faults.test_faults import Played, _player_client

pytestmark = pytest.mark.django_db

LOBBY = "/api/online/lobby/"


def _credited(player_pk: int, game: Game) -> Decimal:
    return sum(
        (
            e.amount
            for e in WalletEntry.objects.filter(
                player_id=player_pk, kind="prize", prize_payment__winner__prize__game=game
            )
        ),
        Decimal("0.00"),
    )


def test_r99_the_lobby_api_lists_a_null_game_and_a_won_game_without_recording_a_visit(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    played = Played(lobby, clock)
    ana, rui = _player_client(played.ana), _player_client(played.rui)
    ana.get(reverse("online:lobby"))  # Ana opened the lobby page, then left
    rui.get(reverse("online:lobby"))
    assert ana.get(LOBBY).json()["away"] == []

    # R98: the first game is made null by a fault; every card refunded.
    null = played.start()
    committed(
        lambda: fault_services.online_game_fault(game=null, user=lobby.manager, reason="Servidor avariado")
    )
    null.refresh_from_db()
    assert null.state == Game.State.ANNULLED

    # R99/R97: the next game plays on while they are away and pays its prizes.
    clock.advance(5)
    second = next_game(lobby, clock)
    online_buy(second, played.ana, 2)
    online_buy(second, played.rui, 2)
    second = play_out(clock, tasks, second)
    assert second.state == Game.State.FINISHED
    clock.advance(60)

    visits = list(PlayerVisit.objects.order_by("pk").values_list("player_id", "lobby_seen_at"))
    credited = {p.pk: _credited(p.pk, second) for p in (played.ana, played.rui)}
    assert sum(credited.values()) > 0  # a bingo always falls within 90 balls
    for player, client, cards in ((played.ana, ana, 3), (played.rui, rui, 2)):
        body = client.get(LOBBY).json()
        assert "rooms" in body
        assert "balance" in body
        away = {item["id"]: item for item in body["away"]}
        assert [item["id"] for item in body["away"]] == [second.pk, null.pk]  # newest first

        gone = away[null.pk]
        assert gone["number"] == null.number
        assert gone["room"] == lobby.room.name
        assert gone["annulled"] is True
        assert "R98" in gone["reason"]
        assert "Servidor avariado" in gone["reason"]
        assert Decimal(gone["refunded"]) == Decimal("100.00") * cards
        assert Decimal(gone["credited"]) == Decimal("0.00")
        assert gone["won"] is False
        assert gone["finished_at"]

        played_on = away[second.pk]
        assert played_on["annulled"] is False
        assert played_on["reason"] == ""
        assert Decimal(played_on["refunded"]) == Decimal("0.00")
        assert Decimal(played_on["credited"]) == credited[player.pk]
        assert played_on["won"] is (credited[player.pk] > 0)

    # Reading the API recorded no visit: the page's panel still lists both games.
    assert list(PlayerVisit.objects.order_by("pk").values_list("player_id", "lobby_seen_at")) == visits
    assert [i["id"] for i in ana.get(LOBBY).json()["away"]] == [second.pk, null.pk]
    page = ana.get(reverse("online:lobby")).content.decode()
    assert f'data-away-game="{null.pk}"' in page
    assert f'data-away-game="{second.pk}"' in page
    # The page's visit is what empties the list, for the page and the API alike.
    clock.advance(30)
    assert ana.get(LOBBY).json()["away"] == []
    assert rui.get(LOBBY).json()["away"] != []


def test_r99_the_lobby_api_is_for_players_only(lobby: OnlineHall, clock: Clock) -> None:
    client = Client()
    client.force_login(lobby.manager)
    assert client.get(LOBBY).status_code == 403
