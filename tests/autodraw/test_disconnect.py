"""R99 (PT-803/34, PT-806/73): a player whose own connection fails keeps playing. A real
websocket client (the ASGI app, as tests/online/test_consumer.py) hears a ball, disconnects
mid-game; the game plays on without them, the system pays their prize into the wallet (R97),
and on reconnecting the page's state (``/api/online/games/<id>/state/``, read on every
connect) shows the end: the balls, the prizes they won and what was credited."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from bingo.autodraw import services
from bingo.common.roles import Role, user_roles_set
from bingo.models import Ball, Game, WalletEntry
from bingo.players.selectors import wallet_balance
from tests.autodraw.helpers import (
    Clock,
    OnlineHall,
    Tasks,
    close_sales,
    committed,
    online_buy,
    play_to_the_end,
)
from tests.live.sockets import Socket, run
from tests.live.test_consumers import _session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


def test_r99_a_player_who_disconnects_mid_game_is_paid_and_sees_it_on_reconnect(
    clock: Clock, tasks: Tasks
) -> None:
    lobby = OnlineHall("Sala Rede")
    lobby.series(1)
    ana = lobby.player("ana")
    user_roles_set(user=ana.user, roles=[Role.PLAYER])
    game = committed(lambda: services.online_room_advance(room_id=lobby.room.pk))
    assert game is not None
    online_buy(game, ana, 4)  # the only buyer: every prize is hers
    game = close_sales(clock, game)
    assert game.state == Game.State.DRAWING
    cookie = _session_cookie(ana.user)
    path = f"/ws/online/game/{game.pk}/"

    def play_on() -> None:
        list(play_to_the_end(tasks, game))

    async def scenario() -> tuple[int | None, dict[str, Any], str]:
        socket = Socket(path, cookie=cookie)
        assert (await socket.connect())["type"] == "websocket.accept"
        first = await sync_to_async(tasks.run_next)()
        heard = await socket.message()
        await socket.close()  # her connection is lost mid-game
        await sync_to_async(play_on)()  # the game plays on without her
        again = Socket(path, cookie=cookie)
        answer = await again.connect()
        await again.close()
        return first, heard, answer["type"]

    first, heard, reconnected = run(scenario)
    assert heard["type"] == "game.state"
    assert heard["game"]["balls"] == [first]
    assert reconnected == "websocket.accept"

    game.refresh_from_db()
    assert game.state == Game.State.FINISHED
    prizes = WalletEntry.objects.filter(player=ana, kind="prize", prize_payment__winner__prize__game=game)
    won = sum((e.amount for e in prizes), Decimal("0.00"))
    assert won > 0
    assert prizes.count() >= 2
    assert wallet_balance(player=ana) == Decimal("1000.00") - Decimal("400.00") + won

    # On reconnect the page reads her state: the end, the balls, her prizes and the credit.
    client = Client()
    client.force_login(ana.user)
    state = client.get(reverse("api:online-game-state", args=[game.pk])).json()
    assert state["game"]["state"] == "finished"
    assert state["balls"] == list(
        Ball.objects.filter(game=game).order_by("position").values_list("number", flat=True)
    )
    assert "bingo" in state["won"]
    assert state["outcome"] == {
        **state["outcome"],
        "over": True,
        "annulled": False,
        "credited": f"{won:.2f}",
    }
    page = client.get(reverse("online:game", args=[game.pk])).content.decode()
    assert 'data-outcome="won"' in page
    lobby_page = client.get(reverse("online:lobby")).content.decode()
    assert f'data-away-game="{game.pk}"' in lobby_page
    assert 'data-result="won"' in lobby_page
