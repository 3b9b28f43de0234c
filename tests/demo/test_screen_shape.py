"""PT-803/43 (R102): the demo plays on the real game's screen, so its state has the real game's
keys. Online games of a room (won, lost to another player, annulled and refunded: the history's
``played``) and a demo game of the same room, mid-game and at its end, read through their
selectors (``player_game_state``, ``demo_game_state``, both built by ``bingo.engine.screen``):
the same keys but for each side's own part."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest

from bingo.demo import selectors as demo_selectors
from bingo.demo import services as demo_services
from bingo.engine import screen
from bingo.models import PrizeKind
from bingo.online.selectors import player_game_state
from tests.players.test_history import Played, played  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db

#: What only one side shows: the demo's notice and winnings (R102), the real game's outcome (R99)
#: and play session (R101); the demo's game heading adds its clock and simulated cards.
DEMO_ONLY = {"demo", "notice", "winnings", "winnings_display"}
REAL_ONLY = {"outcome", "playtime"}
DEMO_GAME_ONLY = {"started_at", "next_ball_at", "cards_simulated"}


def assert_same_shape(real: dict[str, Any], demo: dict[str, Any]) -> None:
    assert set(real) - REAL_ONLY == set(demo) - DEMO_ONLY
    assert set(real) >= REAL_ONLY
    assert set(demo) >= DEMO_ONLY
    assert set(real["game"]) | DEMO_GAME_ONLY == set(demo["game"])
    assert {frozenset(c) for c in real["cards"]} == {frozenset(c) for c in demo["cards"]}
    assert {frozenset(p) | {"share"} for p in real["prizes"]} == {frozenset(p) for p in demo["prizes"]}
    assert set(real["choices"]) | {"play_again"} == set(demo["choices"])
    for target in (*real["targets"], *demo["targets"]):
        assert set(target) == {"prize", "cells"}


def test_r102_the_demo_screen_has_the_real_screens_keys(played: Played) -> None:  # noqa: F811
    ana = played.ana
    real = {
        game.pk: player_game_state(player=ana, game=game)
        for game in (played.won, played.lost, played.annulled)
    }
    assert [bool(s["won"]) for s in real.values()] == [True, False, False]  # hers, Rui's, refunded

    demo_services.demo_credit_grant(player=ana)
    demo = demo_services.demo_game_start(
        player=ana, online_room=played.lobby.online, cards=2, key="d1", rng=random.Random(7), seed=11
    )
    interval = timedelta(seconds=float(demo.ball_interval))
    mid = demo_selectors.demo_game_state(player=ana, game=demo, now=demo.started_at + interval * 3)
    end = demo_selectors.demo_game_state(
        player=ana, game=demo, now=demo.started_at + interval * len(demo.balls)
    )
    assert (len(mid["balls"]), mid["awarded"], bool(end["awarded"])) == (3, [], True)

    for state in real.values():
        assert_same_shape(state, mid)
        assert_same_shape(state, end)


def test_r9_the_builder_names_the_jackpot_as_the_prizes_table_does() -> None:
    """``screen_state`` counts a jackpot won beside the board by its kind's value (R9, R97)."""
    assert PrizeKind.JACKPOT.value == screen.JACKPOT
