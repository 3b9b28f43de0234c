"""The session time limit and reminders (R101): the player sets them; a tighter limit applies at
once, a looser one 24 hours later; once the limit is reached purchases are refused inside the
purchase's transaction and the session ends. Tested with the injected clock."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from bingo.models import PlayLimit, PlaySession, Sale
from bingo.online import services as online_services
from bingo.players.selectors import wallet_balance
from bingo.playtime import services
from bingo.playtime.selectors import play_limits
from tests.autodraw.helpers import Clock, OnlineHall, next_game
from tests.playtime.helpers import client_for, player

pytestmark = pytest.mark.django_db


@pytest.fixture
def lobby(db: None) -> OnlineHall:
    hall = OnlineHall(sales_seconds=120, pause_seconds=0)
    hall.series(1, price="10.00")
    return hall


def test_a_tighter_limit_applies_at_once_a_looser_one_after_24_hours_r101(
    lobby: OnlineHall, clock: Clock
) -> None:
    ana = player(lobby, "ana")
    services.play_limit_set(player=ana, session_minutes=60, reminder_minutes=15)
    assert play_limits(player=ana) == play_limits(player=ana, now=clock.now)
    assert (play_limits(player=ana).session_minutes, play_limits(player=ana).reminder_minutes) == (60, 15)

    services.play_limit_set(player=ana, session_minutes=30, reminder_minutes=None)  # tighter: at once
    assert (play_limits(player=ana).session_minutes, play_limits(player=ana).reminder_minutes) == (30, None)

    services.play_limit_set(player=ana, session_minutes=120, reminder_minutes=30)  # looser: in 24 h
    limits = play_limits(player=ana)
    assert (limits.session_minutes, limits.reminder_minutes, limits.pending, limits.next_minutes) == (
        30,
        30,
        True,
        120,
    )
    assert limits.next_from == clock.now + timedelta(hours=24)
    clock.advance(24 * 3600 - 1)
    assert play_limits(player=ana).session_minutes == 30
    clock.advance(1)
    assert play_limits(player=ana).session_minutes == 120

    services.play_limit_set(player=ana, session_minutes=None, reminder_minutes=None)  # none: looser
    assert play_limits(player=ana).session_minutes == 120
    clock.advance(24 * 3600)
    assert play_limits(player=ana).session_minutes is None

    services.play_limit_set(player=ana, session_minutes=200, reminder_minutes=None)  # from none: tighter
    assert play_limits(player=ana).session_minutes == 200
    services.play_limit_set(player=ana, session_minutes=300, reminder_minutes=None)
    services.play_limit_set(player=ana, session_minutes=100, reminder_minutes=None)  # tighter drops the wait
    assert play_limits(player=ana) == play_limits(player=ana, now=clock.now + timedelta(days=2))
    assert play_limits(player=ana).session_minutes == 100


@pytest.mark.parametrize(
    ("minutes", "reminder", "field"),
    [
        (5, None, "session_minutes"),
        (2000, None, "session_minutes"),
        (True, None, "session_minutes"),
        (60, 7, "reminder_minutes"),
    ],
)
def test_bad_limits_are_refused_and_change_nothing(lobby: OnlineHall, minutes, reminder, field) -> None:
    ana = player(lobby, "ana")
    with pytest.raises(ValidationError) as refused:
        services.play_limit_set(player=ana, session_minutes=minutes, reminder_minutes=reminder)
    assert field in refused.value.message_dict
    assert not PlayLimit.objects.exists()


def test_purchases_are_refused_at_the_time_limit_and_the_session_ends_r101(
    lobby: OnlineHall, clock: Clock, settings
) -> None:
    """R101: with a 30-minute limit, a purchase at 29 minutes goes through, one at 30 is refused
    (nothing sold, nothing taken from the wallet); the game screen no longer offers to buy; the
    next request ends the session (time limit) and shows its summary."""
    settings.PLAYER_IDLE_TIMEOUT = 3600
    ana = player(lobby, "ana")
    services.play_limit_set(player=ana, session_minutes=30, reminder_minutes=None)
    client = client_for(ana)
    session = PlaySession.objects.get(player=ana)
    clock.advance(29 * 60)
    game = next_game(lobby, clock)
    online_services.online_buy(player=ana, game=game, quantity=1, key="k1", now=clock.now)
    balance = wallet_balance(player=ana)

    clock.to(session.started_at + timedelta(minutes=30))
    with pytest.raises(ValidationError, match="R101"):
        online_services.online_buy(player=ana, game=game, quantity=2, key=uuid.uuid4().hex, now=clock.now)
    assert Sale.objects.filter(buyer=ana).count() == 1
    assert wallet_balance(player=ana) == balance

    # Another player buys on: the limit is ana's alone.
    bea = player(lobby, "bea")
    online_services.online_buy(player=bea, game=game, quantity=1, key="k2", now=clock.now)

    page = client.get(reverse("online:game", args=[game.pk]))
    assert page.status_code == 302
    assert page["Location"] == reverse("playtime:summary")
    session.refresh_from_db()
    assert (session.end_reason, session.staked, session.games) == ("time_limit", Decimal("10.00"), 1)
    assert "Limite de tempo da sessão atingido" in client.get(page["Location"]).content.decode()


def test_the_game_state_stops_offering_to_buy_at_the_limit(lobby: OnlineHall, clock: Clock) -> None:
    from bingo.online.selectors import player_game_state

    ana = player(lobby, "ana")
    services.play_limit_set(player=ana, session_minutes=10, reminder_minutes=None)
    services.play_session_start(player=ana)
    game = next_game(lobby, clock)
    state = player_game_state(player=ana, game=game)
    assert state["choices"]["buy"]
    assert state["playtime"]["limit_minutes"] == 10
    clock.advance(10 * 60)
    state = player_game_state(player=ana, game=game)
    assert not state["choices"]["buy"]
    assert state["playtime"]["limit_reached"]
    assert state["playtime"]["end"]


def test_the_limit_page_and_api(lobby: OnlineHall, clock: Clock) -> None:
    ana = player(lobby, "ana")
    client = client_for(ana)
    page = client.get(reverse("playtime:limit"))
    assert page.status_code == 200
    assert "Limite de tempo da sessão" in page.content.decode()
    done = client.post(reverse("playtime:limit"), {"session_minutes": "45", "reminder_minutes": "15"})
    assert done.status_code == 302
    assert (play_limits(player=ana).session_minutes, play_limits(player=ana).reminder_minutes) == (45, 15)
    refused = client.post(reverse("playtime:limit"), {"session_minutes": "3", "reminder_minutes": ""})
    assert refused.status_code == 400
    assert play_limits(player=ana).session_minutes == 45
    client.post(reverse("playtime:limit"), {"session_minutes": "90", "reminder_minutes": "15"})
    listing = client.get(reverse("playtime:sessions")).content.decode()
    assert 'id="session-limit-pending"' in listing
    assert "45 minutos" in listing

    url = reverse("api:player-playtime-limit")
    body = client.get(url).json()
    assert (body["session_minutes"], body["pending"], body["next_minutes"]) == (45, True, 90)
    bad = client.put(url, {"session_minutes": 5, "reminder_minutes": None}, content_type="application/json")
    assert bad.status_code == 400
    good = client.put(url, {"session_minutes": 20, "reminder_minutes": 30}, content_type="application/json")
    assert good.status_code == 200
    assert good.json()["session_minutes"] == 20
    assert not good.json()["pending"]


def test_online_pages_carry_the_reminder_for_the_static_script(lobby: OnlineHall, clock: Clock) -> None:
    """R101 reminders: the lobby and the game page give the static script the time played and
    the interval (data attributes; no inline script, CSP)."""
    ana = player(lobby, "ana")
    services.play_limit_set(player=ana, session_minutes=None, reminder_minutes=15)
    client = client_for(ana)
    clock.advance(20 * 60)
    game = next_game(lobby, clock)
    seconds = int((clock.now - PlaySession.objects.get(player=ana).started_at).total_seconds())
    for url in (reverse("online:lobby"), reverse("online:game", args=[game.pk])):
        html = client.get(url).content.decode()
        assert 'data-every="15"' in html
        assert f'data-seconds="{seconds}"' in html
        assert "js/playtime.js" in html
        assert "<script>" not in html
        assert "Está a jogar há {n} minutos." in html
