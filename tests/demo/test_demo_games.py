"""Demo mode (R102, PT-803/43-44, PT-806/74-75) through the services, the pages and the API: free
demo credits when they run out (at most once an hour), a demo game mirroring an online room
(its variant, pace (R88) and prize plan), played by the engine, balls shown only as their time
comes, winnings credited once; every page and answer says it is a demonstration."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from bingo.demo import selectors, services
from bingo.draw import detection
from bingo.engine import PrizeKind, Variant, card_check
from bingo.engine.demo import demo_draw
from bingo.models import DemoCreditEntry, DemoGame
from tests.clients import logged_in
from tests.online.helpers import OnlineSetup


@pytest.fixture
def site(db):
    return OnlineSetup()


def _start(site, player, *, cards=2, key="k1", now=None):
    return services.demo_game_start(
        player=player, online_room=site.online, cards=cards, key=key, now=now, rng=random.Random(7), seed=11
    )


def test_r102_a_full_demo_game_stakes_draws_and_credits_the_win_once(site):
    player = site.player("0")
    t0 = timezone.now()
    grant = services.demo_credit_grant(player=player, now=t0)
    assert grant.credits == selectors.DEMO_GRANT == selectors.demo_balance(player=player)

    game = _start(site, player, cards=3, now=t0)
    assert game.variant == site.online.variant
    assert game.ball_interval == site.online.ball_interval
    stake = 3 * selectors.DEMO_CARD_PRICE
    assert selectors.demo_balance(player=player) == selectors.DEMO_GRANT - stake

    # The outcome is the engine's: the game ends on the first card to complete the bingo.
    rules = detection.rules_from(game.variant, list(game.prize_plan), None, None)
    firsts = [card_check(rules, grid, game.balls).prize(PrizeKind.BINGO).completed_at for grid in game.cards]
    assert min(f for f in firsts if f) == len(game.balls)
    assert game.balls == list(demo_draw(Variant(game.variant), random.Random(7)))[: len(game.balls)]
    bingo = next(r for r in game.results if r["kind"] == "bingo")
    assert bingo["at"] == len(game.balls)
    assert bingo["amount"] == (3 + selectors.DEMO_OTHER_CARDS) * selectors.DEMO_CARD_PRICE * 60 // 100

    # Balls come one interval apart, never before their time.
    interval = timedelta(seconds=float(game.ball_interval))
    state = selectors.demo_game_state(
        player=player, game=game, now=t0 + interval * 3 + timedelta(milliseconds=10)
    )
    assert state["balls"] == game.balls[:3]
    assert state["demo"] is True
    assert state["winnings"] is None
    assert services.demo_game_settle(game=game, now=t0 + interval * 3) is None  # not over: nothing credited

    end = t0 + interval * len(game.balls)
    mine = sum(r["each"] for r in game.results for w in r["winners"] if w < 3)
    assert game.winnings == mine
    for _twice in range(2):
        services.demo_game_settle(game=game, now=end)
    wins = DemoCreditEntry.objects.filter(player=player, kind="win")
    assert wins.count() == (1 if mine else 0)
    assert selectors.demo_balance(player=player) == selectors.DEMO_GRANT - stake + mine
    final = selectors.demo_game_state(player=player, game=game, now=end)
    assert final["game"]["state"] == "finished"
    assert final["winnings"] == mine
    assert final["balls"] == game.balls


def test_r102_a_player_who_wins_is_credited_and_a_loser_is_not(site):
    """Over several games some of the player's cards win and some do not; each game's demo
    ledger shows exactly its winnings, once."""
    player = site.player("0")
    t0 = timezone.now()
    services.demo_credit_grant(player=player, now=t0)
    games = [
        services.demo_game_start(player=player, online_room=site.online, cards=6, key=f"g{i}", now=t0)
        for i in range(8)
    ]
    later = t0 + timedelta(hours=1)
    for game in games:
        services.demo_game_settle(game=game, now=later)
    credited = {e.game_id: e.credits for e in DemoCreditEntry.objects.filter(player=player, kind="win")}
    assert credited == {g.pk: g.winnings for g in games if g.winnings}
    total = selectors.DEMO_GRANT - 8 * 6 * selectors.DEMO_CARD_PRICE + sum(g.winnings for g in games)
    assert selectors.demo_balance(player=player) == total


def test_r102_free_credits_only_when_run_out_and_at_most_once_an_hour(site):
    player = site.player("0")
    t0 = timezone.now()
    services.demo_credit_grant(player=player, now=t0)
    with pytest.raises(ValidationError, match="Ainda tem créditos"):
        services.demo_credit_grant(player=player, now=t0 + timedelta(hours=2))
    # Spend everything on demo cards (each game settled: no win kept back).
    n = 0
    while selectors.demo_balance(player=player) >= selectors.DEMO_CARD_PRICE:
        cards = min(6, selectors.demo_balance(player=player) // selectors.DEMO_CARD_PRICE)
        game = services.demo_game_start(
            player=player, online_room=site.online, cards=cards, key=f"s{n}", now=t0
        )
        services.demo_game_settle(game=game, now=t0 + timedelta(minutes=30))
        n += 1
    with pytest.raises(ValidationError, match="uma vez por hora"):
        services.demo_credit_grant(player=player, now=t0 + timedelta(minutes=59))
    assert DemoCreditEntry.objects.filter(player=player, kind="grant").count() == 1
    services.demo_credit_grant(player=player, now=t0 + timedelta(minutes=61))
    assert DemoCreditEntry.objects.filter(player=player, kind="grant").count() == 2


def test_a_demo_game_is_refused_without_enough_credits_and_changes_nothing(site):
    player = site.player("0")
    with pytest.raises(ValidationError, match="créditos de demonstração"):
        _start(site, player)
    assert not DemoGame.objects.exists()
    assert not DemoCreditEntry.objects.exists()


def test_the_same_key_starts_one_game_and_bad_input_is_refused(site):
    player = site.player("0")
    services.demo_credit_grant(player=player)
    first = _start(site, player, key="same")
    assert _start(site, player, key="same").pk == first.pk
    assert DemoCreditEntry.objects.filter(kind="stake").count() == 1
    with pytest.raises(services.DemoKeyConflictError):
        _start(site, player, key="same", cards=3)
    for cards in (0, 7, True, "2"):
        with pytest.raises(ValidationError):
            _start(site, player, key="other", cards=cards)
    other = OnlineSetup(name="Outra").online
    with pytest.raises(ValidationError, match="não está aberta"):
        services.demo_game_start(player=player, online_room=other, cards=1, key="x")


def test_the_demo_pages_say_demo_and_show_the_game_screen(site):
    player = site.player("0")
    client = logged_in(player.user, "pt")
    lobby = client.get(reverse("online:lobby")).content.decode()
    assert "Experimentar (demonstração)" in lobby
    assert reverse("demo:home") in lobby
    home = client.get(reverse("demo:home"))
    html = home.content.decode()
    assert home.status_code == 200
    assert "DEMONSTRAÇÃO — sem dinheiro real" in html
    assert "Online 1" in html
    client.post(reverse("demo:grant"))
    assert selectors.demo_balance(player=player) == selectors.DEMO_GRANT
    again = client.post(reverse("demo:grant"), follow=True).content.decode()
    assert "ainda tem créditos de demonstração" in again.lower()
    started = client.post(reverse("demo:start", args=[site.online.pk]), {"cards": "2", "key": "page-1"})
    game = DemoGame.objects.get(player=player)
    assert started.status_code == 302
    assert started.url == reverse("demo:game", args=[game.pk])
    page = client.get(started.url)
    html = page.content.decode()
    assert page.status_code == 200
    assert "DEMONSTRAÇÃO — sem dinheiro real" in html
    assert 'id="online-game"' in html
    assert "js/online_game.js" in html
    assert "<script>" not in html
    assert 'data-poll-ms="2000"' in html  # the room's pace (R88)
    state = json.loads(html.split('id="player-state" type="application/json">')[1].split("</script>")[0])
    assert state["demo"] is True
    assert len(state["cards"]) == 2
    assert len(state["balls"]) < len(game.balls)  # the future balls are not in the page


def test_the_demo_api_starts_a_game_and_hides_future_balls(site):
    player = site.player("0")
    client = logged_in(player.user, "en")
    balance = client.get("/api/demo/balance/").json()
    assert balance["demo"] is True
    assert balance["notice"] == "DEMO — no real money"
    assert balance["credits"] == 0
    assert client.post("/api/demo/grants/").status_code == 201
    assert client.post("/api/demo/grants/").status_code == 400
    made = client.post(
        "/api/demo/games/",
        {"room": site.online.pk, "cards": 2, "key": "api-1"},
        content_type="application/json",
    )
    assert made.status_code == 201
    body = made.json()
    assert body["demo"] is True
    assert body["notice"] == "DEMO — no real money"
    game = DemoGame.objects.get(pk=body["game"]["id"])
    state = client.get(f"/api/demo/games/{game.pk}/").json()
    assert len(state["balls"]) <= 1 < len(game.balls)
    assert (
        client.post(
            "/api/demo/games/",
            {"room": site.online.pk, "cards": 3, "key": "api-1"},
            content_type="application/json",
        ).status_code
        == 409
    )
    stranger = logged_in(site.player("0").user, "en")
    assert stranger.get(f"/api/demo/games/{game.pk}/").status_code == 404
    assert logged_in(site.cashier, "en").get("/api/demo/balance/").status_code == 403


def test_the_state_never_shows_what_is_still_to_come(site):
    """Before a ball's time the state has neither the ball nor a prize it decides, nor the
    winnings; each prize shows the plan's value of the stakes whether or not it will be won."""
    player = site.player("0")
    t0 = timezone.now()
    services.demo_credit_grant(player=player, now=t0)
    game = _start(site, player, cards=2, now=t0)
    interval = timedelta(seconds=float(game.ball_interval))
    pot = (2 + selectors.DEMO_OTHER_CARDS) * selectors.DEMO_CARD_PRICE
    for shown in range(len(game.balls)):
        state = selectors.demo_game_state(player=player, game=game, now=t0 + interval * shown)
        assert state["balls"] == game.balls[:shown]
        assert state["winnings"] is None
        assert state["game"]["state"] == "drawing"
        assert {p["kind"] for p in state["prizes"] if p["won"]} == {
            r["kind"] for r in game.results if r["at"] <= shown
        }
        assert [p["amount"] for p in state["prizes"]] == [
            pot * int(Decimal(s)) // 100 for s in game.prize_plan.values()
        ]
        assert "results" not in json.dumps(state)


def test_a_demo_game_s_key_too_long_is_refused_for_the_key(site):
    """Issue 20 (3): the refusal names the key's length, not the number of demo cards."""
    player = site.player("0")
    client = logged_in(player.user, "pt")
    client.post(reverse("demo:grant"))
    page = client.post(
        reverse("demo:start", args=[site.online.pk]), {"cards": "2", "key": "k" * 200}, follow=True
    )
    html = page.content.decode()
    assert "A chave deste pedido tem no máximo 40 caracteres (esta tem 200)" in html
    assert "Jogue de 1 a" not in html
    assert not DemoGame.objects.filter(player=player).exists()
