"""The live game as players expect it (issue 25), without a browser: the player's state carries
the prize in play, each card's numbers to go for it with the cards best first, each ball's call
in Portuguese words and the 75-ball card's B I N G O headings (``player_game_state`` over
``bingo.engine.screen``); the page draws them as it loads, in Portuguese, with the sound switch
and the win apart from the one-to-go warning (R95). tests/e2e/test_live_game_browser.py plays the
same in Chromium."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from bingo.online import selectors, services
from cards.selectors import card_get
from tests.clients import logged_in
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.django_db


def _numbers(grid: list[list[int | None]]) -> list[int]:
    return [n for row in grid for n in row if n is not None]


def test_the_state_sorts_the_cards_by_numbers_to_go_for_the_line_in_play():
    site = OnlineSetup()
    game, player, row = site.one_from_the_line(cards=3, number=3)  # the third card bought
    state = selectors.player_game_state(player=player, game=game)
    assert state["in_play"]["kind"] == "line"
    assert state["cards"][0]["label"] == "A-1 n.º 3"
    assert state["cards"][0]["to_go"] == 1
    to_go = [c["to_go"] for c in state["cards"]]
    assert to_go == sorted(to_go)
    for card in state["cards"]:  # each count is the card's own: its best row's numbers not drawn
        grid = card_get(card_set=site.card_set, number=card["number"])
        assert card["to_go"] == min(sum(n is not None and n not in row[:4] for n in r) for r in grid)
    assert len(state["calls"]) == 90
    assert state["calls"][41] == "quarenta e dois"
    assert state["game"]["headers"] is None


def test_the_page_shows_the_cards_best_first_with_faltam_n_and_the_sound_switch():
    game, player, _row = OnlineSetup().one_from_the_line(cards=3, number=3)
    state = selectors.player_game_state(player=player, game=game)
    html = logged_in(player.user, "pt").get(reverse("online:game", args=[game.pk])).content.decode()
    assert "Em jogo: Linha" in html
    captions = re.findall(r"<figcaption><span>(A-1 n\.º \d+)</span> <span[^>]*>([^<]+)</span>", html)
    assert captions == [
        (c["label"], "Falta 1" if c["to_go"] == 1 else f"Faltam {c['to_go']}") for c in state["cards"]
    ]
    assert captions[0] == ("A-1 n.º 3", "Falta 1")
    # The sound switch, off until the player turns it on, and the script that speaks.
    assert re.search(r'<button type="button"[^>]*data-sound hidden[^>]*>Ligar o som</button>', html, re.S)
    assert 'data-label-on="Desligar o som"' in html
    assert "js/speech.js" in html
    # The plural's two forms for the script, in Portuguese.
    assert 'data-label-to-go-one="Falta {n}"' in html
    assert 'data-label-to-go-other="Faltam {n}"' in html
    # A prize won and the one-to-go warning (R95) have a region each.
    assert re.search(r'<div class="online-alert online-win" data-win role="alert" hidden></div>', html)
    assert re.search(r'<div class="online-alert online-near" data-near role="status" hidden></div>', html)
    assert "data-alert" not in html


def test_the_75_ball_card_has_its_b_i_n_g_o_headings_and_letters_in_the_calls():
    site = OnlineSetup(name="Sala 75", variant="75")
    game = site.game(site.series(1))
    player = site.player()
    services.online_buy(player=player, game=game, quantity=1, key="k")
    game = site.drawing(game)
    site.key(game, 12)
    state = selectors.player_game_state(player=player, game=game)
    assert state["game"]["headers"] == ["B", "I", "N", "G", "O"]
    assert state["calls"][11] == "B, doze"  # R77
    assert len(state["calls"]) == 75
    html = logged_in(player.user, "pt").get(reverse("online:game", args=[game.pk])).content.decode()
    heads = re.findall(r"<thead><tr>(.*?)</tr></thead>", html)
    assert len(heads) == 1
    assert re.findall(r'<th scope="col">(\w)</th>', heads[0]) == ["B", "I", "N", "G", "O"]
    assert len(_numbers(card_get(card_set=site.card_set, number=1))) == 24  # the free centre, R72
