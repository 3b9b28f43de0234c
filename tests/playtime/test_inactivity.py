"""Inactivity (PT-806/70-71): games of the room the player follows, in a row, in which they buy
nothing. At 5 the player is invited to end the session; going on («Continuar») they are warned
that it ends if they buy nothing in the next game; if that game passes without a purchase the
session ends (inactivity) and they see its summary. A purchase starts the count again. Another
player buys in every game, so the continuous room's games close and are drawn (R90)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from bingo.models import PlaySession
from bingo.playtime import selectors, services
from bingo.playtime.tasks import end_due_task
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, next_game
from tests.playtime.helpers import client_for, play_game, player

pytestmark = pytest.mark.django_db

INVITE = "Não comprou cartões nas últimas 5 jogadas. Quer terminar a sessão?"


@pytest.fixture
def lobby(db: None, settings) -> OnlineHall:
    settings.PLAYER_IDLE_TIMEOUT = 24 * 3600  # the games take clock time; idleness is not tested here
    hall = OnlineHall(sales_seconds=5, pause_seconds=0)
    hall.series(1, price="10.00")
    return hall


def _stage(made) -> tuple[int, str]:
    session = selectors.play_session_open_get(player=made)
    assert session is not None
    idle = selectors.inactivity(session=session)
    return idle.games, idle.stage


def test_invited_at_5_games_without_a_purchase_warned_on_continue_and_ended_pt806_70_71(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana, rui = player(lobby, "ana"), player(lobby, "rui")
    client = client_for(ana)
    first = next_game(lobby, clock)
    assert client.get(reverse("online:game", args=[first.pk])).status_code == 200  # follows the room
    for _ in range(4):
        play_game(lobby, clock, tasks, [rui], monkeypatch)
    assert _stage(ana) == (4, "none")
    assert f"{INVITE}</p>" in client.get(reverse("online:lobby")).content.decode()  # rendered, hidden
    assert 'data-playtime-invite role="alert" hidden' in client.get(reverse("online:lobby")).content.decode()

    play_game(lobby, clock, tasks, [rui], monkeypatch)
    assert _stage(ana) == (5, "invite")  # PT-806/70 b)
    lobby_page = client.get(reverse("online:lobby")).content.decode()
    assert 'data-playtime-invite role="alert">' in lobby_page
    assert INVITE in lobby_page
    state = client.get(reverse("api:player-playtime")).json()
    assert (state["idle_games"], state["inactivity"], state["end"]) == (5, "invite", False)
    game = next_game(lobby, clock)
    game_state = client.get(reverse("api:online-game-state", args=[game.pk])).json()
    assert game_state["playtime"]["inactivity"] == "invite"

    back = client.post(reverse("playtime:continue"), {"next": reverse("online:lobby")})
    assert back.status_code == 302
    assert back["Location"] == reverse("online:lobby")
    assert _stage(ana) == (5, "warn")  # PT-806/71
    lobby_page = client.get(reverse("online:lobby")).content.decode()
    assert 'data-playtime-warn role="alert">' in lobby_page
    assert "A sessão termina se não comprar cartões na próxima jogada." in lobby_page

    play_game(lobby, clock, tasks, [rui], monkeypatch)
    assert client.get(reverse("api:player-playtime")).status_code == 403  # ended, logged out
    session = PlaySession.objects.get(player=ana)
    assert session.end_reason == "inactivity"
    assert session.staked == 0
    assert session.games == 0
    summary = client.get(reverse("playtime:summary")).content.decode()
    assert "Sem compra de cartões (inatividade)" in summary


def test_a_purchase_starts_the_count_again_and_without_an_answer_the_beat_task_ends_it(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A purchase voids the count and an earlier «Continuar». PT-806/71: not ending the session
    is going on: at the 6th idle game the warning, at the 7th the end, by the task that runs
    every minute even if the player is not looking."""
    ana, rui = player(lobby, "ana"), player(lobby, "rui")
    session = services.play_session_start(player=ana)
    services.play_session_room_follow(player=ana, room=lobby.room)
    for _ in range(5):
        play_game(lobby, clock, tasks, [rui], monkeypatch)
    services.play_session_continue(session=session)
    assert _stage(ana) == (5, "warn")
    clock.advance(1)
    play_game(lobby, clock, tasks, [ana, rui], monkeypatch)  # ana buys: the count starts again
    assert _stage(ana) == (0, "none")
    for _ in range(5):
        play_game(lobby, clock, tasks, [rui], monkeypatch)
    assert _stage(ana) == (5, "invite")  # the old «Continuar» no longer counts
    play_game(lobby, clock, tasks, [rui], monkeypatch)
    assert _stage(ana) == (6, "warn")
    assert end_due_task() == 0
    play_game(lobby, clock, tasks, [rui], monkeypatch)
    assert end_due_task() == 1
    ended = PlaySession.objects.get(player=ana)
    assert (ended.end_reason, ended.games, ended.staked) == ("inactivity", 1, 10)


def test_continue_without_an_invitation_is_refused(lobby: OnlineHall, clock: Clock) -> None:
    from django.core.exceptions import ValidationError

    ana = player(lobby, "ana")
    session = services.play_session_start(player=ana)
    with pytest.raises(ValidationError):
        services.play_session_continue(session=session)
    client = client_for(ana)
    assert client.post(reverse("api:player-playtime-continue")).status_code == 400
    session.refresh_from_db()
    assert session.idle_warned is None


def test_games_played_before_the_player_opened_the_room_are_not_idle_games_pt806_70(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PT-806/70 b): the games in a row the player did not bet in are games at the table they
    sit at. Ana logs in and stays in the lobby while 7 games of the room are played by others;
    opening the room's game page must not count those 7 (it used to end her session at once
    for inactivity); the count starts from the moment she follows the room."""
    ana, rui = player(lobby, "ana"), player(lobby, "rui")
    client = client_for(ana)
    for _ in range(7):
        play_game(lobby, clock, tasks, [rui], monkeypatch)
    game = next_game(lobby, clock)
    assert client.get(reverse("online:game", args=[game.pk])).status_code == 200
    assert _stage(ana) == (0, "none")
    assert client.get(reverse("api:player-playtime")).json()["end"] is False
    assert PlaySession.objects.get(player=ana).ended_at is None
