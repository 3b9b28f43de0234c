"""The hall's mandatory break after a session's time limit (R101, issue 25 point 3): when a play
session ends at the limit the player set, the player can neither log in nor buy until the
operator's «pausa obrigatória» has passed (the login page and the purchase say until when),
then both work again. 0 minutes, the default, keeps the old behaviour. Tested with the clock."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from bingo.common import bounds
from bingo.models import Player, PlayLimit, PlaySession, Sale
from bingo.online import services as online_services
from bingo.playtime import services
from halls import services as hall_services
from halls.models import Hall
from tests.autodraw.helpers import Clock, OnlineHall, next_game
from tests.factories import DEFAULT_PASSWORD
from tests.playtime.helpers import player

pytestmark = pytest.mark.django_db

REFUSED = "a sala impõe uma pausa de 30 minutos depois dele (R101)"
#: The purchase's refusal says the same (in the active language: the site's, Portuguese).
COOLOFF = REFUSED.replace("(", r"\(").replace(")", r"\)")


@pytest.fixture
def lobby(db: None, settings) -> OnlineHall:  # type: ignore[no-untyped-def]
    settings.PLAYER_IDLE_TIMEOUT = 3 * 3600  # only the time limit ends the sessions here
    hall = OnlineHall(sales_seconds=3600, pause_seconds=0)
    hall.series(1, price="10.00")
    Hall.objects.filter(pk=hall.hall.pk).update(play_cooloff_minutes=30)
    return hall


def _login(username: str) -> tuple[Client, object]:
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": DEFAULT_PASSWORD})
    return client, response


def _buy(ana: Player, lobby: OnlineHall, clock: Clock) -> object:
    """ana buys a card of the game on sale now (the room opens one when none is)."""
    game = next_game(lobby, clock)
    return online_services.online_buy(player=ana, game=game, quantity=1, key=uuid.uuid4().hex, now=clock.now)


def _reach_the_limit(lobby: OnlineHall, clock: Clock, ana: Player) -> tuple[Client, PlaySession]:
    """ana, with a 10-minute limit, logs in, buys, and her next request after 10 minutes ends the
    session at the limit. (The room's game sells for an hour: every purchase here is of it.)"""
    services.play_limit_set(player=ana, session_minutes=10, reminder_minutes=None)
    client, response = _login("ana")
    assert response.status_code == 302
    _buy(ana, lobby, clock)
    session = PlaySession.objects.get(player=ana)
    clock.to(session.started_at + timedelta(minutes=10))
    assert client.get(reverse("online:lobby"))["Location"] == reverse("playtime:summary")
    session.refresh_from_db()
    assert (session.end_reason, session.ended_at) == ("time_limit", clock.now)
    return client, session


def test_r101_after_the_time_limit_the_login_and_purchases_wait_for_the_hall_s_break(
    lobby: OnlineHall, clock: Clock
) -> None:
    ana = player(lobby, "ana")
    _client, session = _reach_the_limit(lobby, clock, ana)
    sold = Sale.objects.filter(buyer=ana).count()

    _again, refused = _login("ana")
    assert refused.status_code == 200  # the login page again, with the reason
    assert not refused.wsgi_request.user.is_authenticated
    page = refused.content.decode()
    assert REFUSED in page
    assert "pode voltar a entrar e comprar cartões às" in page
    assert PlaySession.objects.filter(player=ana).count() == 1  # no session was started
    with pytest.raises(ValidationError, match=COOLOFF):
        _buy(ana, lobby, clock)  # from a device still holding a session, say: refused server-side

    clock.to(session.ended_at + timedelta(minutes=29))
    assert REFUSED in _login("ana")[1].content.decode()
    with pytest.raises(ValidationError, match=COOLOFF):
        _buy(ana, lobby, clock)
    assert Sale.objects.filter(buyer=ana).count() == sold

    clock.to(session.ended_at + timedelta(minutes=30))  # the break is over
    client, response = _login("ana")
    assert response.status_code == 302
    assert client.get(reverse("online:lobby")).status_code == 200
    _buy(ana, lobby, clock)
    assert Sale.objects.filter(buyer=ana).count() == sold + 1


def test_the_break_holds_even_once_the_player_removed_their_limit(lobby: OnlineHall, clock: Clock) -> None:
    """A purchase's one-statement debit skips the judged checks only where nothing holds the
    player: a session ended at its limit within the break does (on PostgreSQL and SQLite)."""
    ana = player(lobby, "ana")
    PlaySession.objects.create(
        player=ana, started_at=clock.now - timedelta(hours=1), last_seen_at=clock.now, ended_at=clock.now,
        end_reason="time_limit",
    )  # fmt: skip
    assert not PlayLimit.objects.filter(player=ana).exists()  # no limit of hers now

    with pytest.raises(ValidationError, match=COOLOFF):
        _buy(ana, lobby, clock)
    assert not Sale.objects.filter(buyer=ana).exists()
    clock.advance(30 * 60)
    _buy(ana, lobby, clock)


def test_a_session_past_its_limit_is_ended_at_the_login_and_its_break_starts(
    lobby: OnlineHall, clock: Clock
) -> None:
    ana = player(lobby, "ana")
    services.play_limit_set(player=ana, session_minutes=10, reminder_minutes=None)
    assert _login("ana")[1].status_code == 302
    clock.advance(15 * 60)  # no request since: the session is still open, past its limit

    refused = _login("ana")[1]

    session = PlaySession.objects.get(player=ana)
    assert (session.end_reason, session.ended_at) == ("time_limit", clock.now)
    assert REFUSED in refused.content.decode()


def test_with_no_break_set_the_player_logs_in_again_at_once(lobby: OnlineHall, clock: Clock) -> None:
    Hall.objects.filter(pk=lobby.hall.pk).update(play_cooloff_minutes=0)
    ana = player(lobby, "ana")
    _reach_the_limit(lobby, clock, ana)

    _client, response = _login("ana")

    assert response.status_code == 302
    assert PlaySession.objects.filter(player=ana, ended_at__isnull=True).exists()
    _buy(ana, lobby, clock)


def test_other_ends_of_a_session_start_no_break(lobby: OnlineHall, clock: Clock) -> None:
    ana = player(lobby, "ana")
    client, _response = _login("ana")
    client.post(reverse("logout"))
    assert PlaySession.objects.get(player=ana).end_reason == "logout"

    assert _login("ana")[1].status_code == 302


def test_the_manager_sets_the_break_within_its_bounds(lobby: OnlineHall) -> None:
    hall = Hall.objects.get(pk=lobby.hall.pk)
    fields = {
        "hall": hall,
        "name": hall.name,
        "currency": hall.currency,
        "time_zone": hall.time_zone,
        "card_limit_per_player": None,
        "tax_rate": hall.tax_rate,
        "tax_threshold": hall.tax_threshold,
        "jackpot_active": False,
    }
    for minutes in (-1, bounds.PLAY_COOLOFF_MINUTES_MAX + 1):
        with pytest.raises(ValidationError) as refused:
            hall_services.hall_update(**fields, play_cooloff_minutes=minutes)
        assert "play_cooloff_minutes" in refused.value.message_dict
    assert Hall.objects.get(pk=hall.pk).play_cooloff_minutes == 30

    hall_services.hall_update(**fields, play_cooloff_minutes=15)
    assert Hall.objects.get(pk=hall.pk).play_cooloff_minutes == 15
    hall_services.hall_update(**fields)  # not given: kept
    assert Hall.objects.get(pk=hall.pk).play_cooloff_minutes == 15
