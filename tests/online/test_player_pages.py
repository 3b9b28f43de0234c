"""The player's screens and API (R94-R96): the lobby and the game screen in Portuguese, buying
from the page and the API, the player's state with "one number to go" (R95) worked out by the
engine against the balls drawn, marking (R96), and who may see what."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from bingo.models import Player
from bingo.online import selectors, services
from bingo.players.selectors import wallet_balance
from tests.clients import logged_in
from tests.online.helpers import OnlineSetup


@pytest.fixture
def site(db):
    return OnlineSetup()


def test_the_lobby_lists_rooms_games_prices_jackpot_and_wallet_in_portuguese(site):
    game = site.game(site.series(1))
    player = site.player("55.00")
    page = logged_in(player.user, "pt").get(reverse("online:lobby"))
    html = page.content.decode()
    assert page.status_code == 200
    assert "Bingo online" in html
    assert "Carteira" in html
    assert "Online 1" in html
    assert f"/online/jogo/{game.pk}/" in html
    assert "55 CVE" in html
    assert "Comprar cartões" in html  # the game is selling (R94)


def test_the_game_page_buys_and_shows_the_cards(site):
    game = site.game(site.series(1))
    player = site.player()
    client = logged_in(player.user, "pt")
    page = client.get(reverse("online:game", args=[game.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "Quantos cartões?" in html
    assert "O que pode fazer agora" in html
    assert 'src="/static/js/online_game.js"' in html or "online_game" in html
    assert "<script>" not in html  # CSP: no inline script
    key = "page-key-1"
    for _twice in range(2):  # the same form sent twice buys once
        done = client.post(reverse("online:buy", args=[game.pk]), {"quantity": "2", "key": key})
        assert done.status_code == 302
    assert wallet_balance(player=player) == Decimal("80.00")
    html = client.get(reverse("online:game", args=[game.pk])).content.decode()
    assert "A-1 n.º 1" in html
    assert "A-1 n.º 2" in html
    refused = client.post(reverse("online:buy", args=[game.pk]), {"quantity": "50", "key": "k2"}, follow=True)
    assert "nada foi comprado" in refused.content.decode()


def test_r95_the_state_says_which_card_is_one_number_from_a_prize(site):
    game, player, row = site.one_from_the_line(cards=2, number=1)  # four of its first row's five
    state = selectors.player_game_state(player=player, game=game)
    assert state["balls"] == row[:4]
    assert state["last"] == row[3]
    first = state["cards"][0]
    assert first["label"] == "A-1 n.º 1"
    assert "line" in first["one_to_go"]  # R95
    assert sum(m for r in first["marks"] for m in r) == 4
    assert state["won"] == []
    assert {t["prize"] for t in state["targets"]} == {"line", "bingo"}
    assert state["choices"]["buy"] is False
    site.key(game, row[4])
    state = selectors.player_game_state(player=player, game=game)
    assert "line" not in state["cards"][0]["one_to_go"]
    assert "line" in state["cards"][0]["held"]


def test_the_state_api_is_the_players_own(site):
    game = site.game(site.series(1))
    ana, rui = site.player(), site.player()
    services.online_buy(player=ana, game=game, quantity=1, key="a")
    services.online_buy(player=rui, game=game, quantity=1, key="r")
    mine = logged_in(ana.user, "en").get(f"/api/online/games/{game.pk}/state/").json()
    assert [c["label"] for c in mine["cards"]] == ["A-1 n.º 1"]
    theirs = logged_in(rui.user, "en").get(f"/api/online/games/{game.pk}/state/").json()
    assert [c["label"] for c in theirs["cards"]] == ["A-1 n.º 2"]  # never another's cards
    stranger = OnlineSetup(name="Outro Operador").player()
    assert logged_in(stranger.user, "pt").get(f"/api/online/games/{game.pk}/state/").status_code == 404
    assert logged_in(stranger.user, "pt").get(reverse("online:game", args=[game.pk])).status_code == 404


def test_a_cashier_or_anonymous_user_cannot_see_player_pages(site):
    game = site.game(site.series(1))
    anonymous = Client()
    for url in (reverse("online:lobby"), reverse("online:game", args=[game.pk])):
        assert anonymous.get(url).status_code == 302  # to the login page
        assert logged_in(site.cashier, "pt").get(url).status_code == 403
    assert anonymous.get(f"/api/online/games/{game.pk}/state/").status_code in {401, 403}
    assert logged_in(site.cashier, "pt").get(f"/api/online/games/{game.pk}/state/").status_code == 403
    assert logged_in(site.cashier, "pt").get("/api/online/lobby/").status_code == 403


def test_the_purchase_api_is_idempotent_and_refuses_a_short_wallet(site):
    game = site.game(site.series(1))
    player = site.player("30.00")
    client = logged_in(player.user, "en")
    url = f"/api/online/games/{game.pk}/purchases/"
    first = client.post(url, json.dumps({"quantity": 2, "key": "abc"}), content_type="application/json")
    assert first.status_code == 201, first.json()
    assert first.json() == {"cards": 2, "amount": "20.00", "balance": "10.00",
                            "blocks": [{"series": "A-1", "first": 1, "last": 2}]}  # fmt: skip
    again = client.post(url, json.dumps({"quantity": 2, "key": "abc"}), content_type="application/json")
    assert again.json() == first.json()
    reused = client.post(url, json.dumps({"quantity": 1, "key": "abc"}), content_type="application/json")
    assert reused.status_code == 409  # the key of another purchase: nothing bought
    short = client.post(url, json.dumps({"quantity": 2, "key": "abd"}), content_type="application/json")
    assert short.status_code == 400
    assert "nothing was bought" in short.json()["non_field_errors"][0]
    assert wallet_balance(player=player) == Decimal("10.00")
    lobby = client.get("/api/online/lobby/").json()
    assert lobby["balance"] == "10.00"
    assert lobby["rooms"][0]["games"][0]["cards_mine"] == 2


def test_r96_marking_is_chosen_on_the_page_and_the_api(site):
    player = site.player()
    client = logged_in(player.user, "pt")
    client.post(reverse("online:marking"), {"marking": "manual", "next": "/online/"})
    assert Player.objects.get(pk=player.pk).marking == "manual"
    answer = client.put(
        "/api/online/marking/", json.dumps({"marking": "auto"}), content_type="application/json"
    )
    assert answer.json() == {"marking": "auto"}
    assert Player.objects.get(pk=player.pk).marking == "auto"


def test_the_english_page_is_english(site):
    game = site.game(site.series(1))
    player = site.player()
    html = logged_in(player.user, "en").get(reverse("online:game", args=[game.pk])).content.decode()
    assert "How many cards?" in html
    assert "Your cards" in html


def test_a_reused_purchase_key_is_refused_in_portuguese(site):
    """The 409 of a key reused for another purchase speaks the player's language, like every
    other refusal of the purchase."""
    game = site.game(site.series(1))
    player = site.player("30.00")
    client = logged_in(player.user, "pt")
    url = f"/api/online/games/{game.pk}/purchases/"
    assert client.post(url, {"quantity": 1, "key": "k"}, content_type="application/json").status_code == 201
    reused = client.post(url, {"quantity": 2, "key": "k"}, content_type="application/json")
    assert reused.status_code == 409
    answer = json.dumps(reused.json(), ensure_ascii=False)
    assert "Esta chave já foi usada noutra compra; nada foi comprado." in answer


def test_a_200_character_purchase_key_is_refused_for_its_length_not_for_the_cards(site):
    """Issue 20 (3): the page's refusal says what is wrong. A key longer than the 40 characters
    the service keeps is the key's fault, not the number of cards; nothing is bought."""
    game = site.game(site.series(1))
    player = site.player()
    client = logged_in(player.user, "pt")
    buy = reverse("online:buy", args=[game.pk])
    html = client.post(buy, {"quantity": "2", "key": "k" * 200}, follow=True).content.decode()
    assert "A chave deste pedido tem no máximo 40 caracteres (esta tem 200)" in html
    assert "Diga quantos cartões quer comprar." not in html
    too_many = client.post(buy, {"quantity": "5000", "key": "k1"}, follow=True)
    assert "Cartões: Este valor tem de ser menor ou igual a 1000." in too_many.content.decode()
    none = client.post(buy, {"quantity": "", "key": "k2"}, follow=True)
    assert "Diga quantos cartões quer comprar." in none.content.decode()
    assert wallet_balance(player=player) == Decimal("100.00")


def test_a_200_character_purchase_key_is_refused_by_the_api_on_the_key(site):
    game = site.game(site.series(1))
    player = site.player()
    answer = logged_in(player.user, "en").post(
        f"/api/online/games/{game.pk}/purchases/",
        {"quantity": 2, "key": "k" * 200},
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert answer.json() == {"key": ["Ensure this field has no more than 40 characters."]}
    assert wallet_balance(player=player) == Decimal("100.00")
