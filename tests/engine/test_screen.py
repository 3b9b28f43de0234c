"""The player's game screen's one state builder (``bingo.engine.screen``, R94-R97, R102): the real
and the demo screens get the same keys for the same situation, the cards are marked with their
prizes one number away (R95), the winners and the player's wins (R97), what the player may do
now (R94), and each side's own part."""

from __future__ import annotations

from typing import Any

import pytest

from bingo.engine import PrizeKind, Variant, generate_card_set, grid_of, prize_rules, screen
from bingo.engine.calls import ball_calls

RULES = prize_rules(Variant.B90, [PrizeKind.LINE, PrizeKind.BINGO])
GRIDS = [grid_of(cells) for cells in generate_card_set(Variant.B90, 3, seed=5).cells]
#: The first card's first row: four of its five numbers leave the line one number away.
ROW = [n for n in GRIDS[0][0] if n is not None]

#: The keys only one side has: the demo's notice and winnings (R102), the real game's outcome
#: (R99) and play session (R101).
DEMO_ONLY = {"demo", "notice", "winnings", "winnings_display"}
REAL_ONLY = {"outcome", "playtime"}


def _game(**changes: Any) -> screen.ScreenGame:
    fields: dict[str, Any] = {
        "id": 7,
        "number": 3,
        "room": "Online 1",
        "variant": "90",
        "state": "drawing",
        "state_name": "Drawing",
        "price": "10.00",
        "price_display": "10 CVE",
        "sales_close_at": None,
        "ball_interval": "2",
    }
    return screen.ScreenGame(**(fields | changes))


def _player(marking: str = "auto", bought: int = 2, limit: int | None = None) -> screen.ScreenPlayer:
    return screen.ScreenPlayer(
        marking=marking, balance="80.00", balance_display="80 CVE", cards_bought=bought, card_limit=limit
    )


def _real(limit_reached: bool = False) -> screen.RealPart:
    outcome = screen.ScreenOutcome(False, False, "", "0.00", "0 CVE", "0.00", "0 CVE")
    return screen.RealPart(outcome=outcome, playtime={"limit_reached": limit_reached})


def _demo(over: bool = False) -> screen.DemoPart:
    return screen.DemoPart(
        notice="DEMO — no real money",
        started_at="2026-01-01T10:00:00+00:00",
        next_ball_at=None if over else "2026-01-01T10:00:10+00:00",
        cards_simulated=24,
        winnings=30 if over else None,
        winnings_display="30 demo credits" if over else None,
        play_again=over,
    )


def _cards() -> list[screen.ScreenCard]:
    return [screen.ScreenCard("A-1", 1, n, screen.card_label("A-1", n), GRIDS[n - 1]) for n in (1, 2)]


def _prizes(share: str | None = None) -> list[screen.ScreenPrize]:
    return [
        screen.ScreenPrize("line", "Line", "20.00", "20 CVE", share),
        screen.ScreenPrize("bingo", "Bingo", "60.00", "60 CVE", share),
    ]


def _state(part: screen.RealPart | screen.DemoPart, **kw: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "game": _game(),
        "rules": RULES,
        "balls": ROW[:4],
        "cards": _cards(),
        "prizes": _prizes(),
        "awarded": {},
        "player": _player(),
        "selling": False,
    }
    return screen.screen_state(**(args | kw), part=part)


def test_the_real_and_demo_states_have_the_same_keys_for_the_same_situation() -> None:
    awarded = {"line": screen.ScreenAward(("A-1 n.º 1",), "20 CVE", mine=True)}
    real = _state(_real(), awarded=awarded)
    demo = _state(_demo(), awarded=awarded, prizes=_prizes(share="20"))
    assert set(real) - REAL_ONLY == set(demo) - DEMO_ONLY
    assert set(demo) - set(real) == DEMO_ONLY
    assert set(real) - set(demo) == REAL_ONLY
    assert set(demo["game"]) - set(real["game"]) == {"started_at", "next_ball_at", "cards_simulated"}
    assert set(real["game"]) <= set(demo["game"])
    assert [set(c) for c in real["cards"]] == [set(c) for c in demo["cards"]]
    assert [set(p) | {"share"} for p in real["prizes"]] == [set(p) for p in demo["prizes"]]
    assert set(demo["choices"]) - set(real["choices"]) == {"play_again"}
    # Everything both hold is the same for the same inputs.
    for key in (set(real) & set(demo)) - {"game", "prizes", "choices"}:
        assert real[key] == demo[key], key


def test_r95_a_card_shows_the_prize_one_number_away_until_it_is_awarded() -> None:
    state = _state(_real())
    first = state["cards"][0]
    assert state["balls"] == ROW[:4]
    assert state["count"] == 4
    assert state["last"] == ROW[3]
    assert first["label"] == "A-1 n.º 1"
    assert first["one_to_go"] == ["line"]
    assert sum(m for row in first["marks"] for m in row) == 4
    assert first["held"] == []
    assert {t["prize"] for t in state["targets"]} == {"line", "bingo"}
    # Once the line is awarded to anyone, no card is told it is one number from it.
    someone = {"line": screen.ScreenAward(("B-1 n.º 9",), "20 CVE", mine=False)}
    assert _state(_real(), awarded=someone)["cards"][0]["one_to_go"] == []


def test_r97_the_prizes_show_their_winners_and_the_players_wins() -> None:
    awarded = {
        "line": screen.ScreenAward(("A-1 n.º 1", "B-1 n.º 4"), "10 CVE", mine=True),
        "bingo": screen.ScreenAward(("B-1 n.º 4",), "60 CVE", mine=False),
    }
    state = _state(_real(), balls=ROW, awarded=awarded)
    line, bingo = state["prizes"]
    assert line == {
        "kind": "line",
        "name": "Line",
        "amount": "20.00",
        "display": "20 CVE",
        "won": True,
        "winners": ["A-1 n.º 1", "B-1 n.º 4"],
        "each": "10 CVE",
        "mine": True,
    }
    assert (bingo["won"], bingo["mine"], bingo["winners"]) == (True, False, ["B-1 n.º 4"])
    assert state["awarded"] == ["bingo", "line"]
    assert state["won"] == ["line"]
    assert "line" in state["cards"][0]["held"]


def test_r9_the_jackpot_counts_in_the_wins_beside_the_board() -> None:
    awarded = {
        "bingo": screen.ScreenAward(("A-1 n.º 1",), "60 CVE", mine=True),
        screen.JACKPOT: screen.ScreenAward(("A-1 n.º 1",), "500 CVE", mine=True),
    }
    state = _state(_real(), awarded=awarded)
    assert state["won"] == ["bingo", screen.JACKPOT]
    assert state["awarded"] == ["bingo", screen.JACKPOT]
    assert [p["kind"] for p in state["prizes"]] == ["line", "bingo"]


@pytest.mark.parametrize(
    ("selling", "bought", "limit", "limit_reached", "buy"),
    [
        (True, 2, None, False, True),
        (True, 2, 3, False, True),
        (True, 3, 3, False, False),  # R35: the hall's limit of cards per player reached
        (True, 0, None, True, False),  # R101: the play session's limit reached
        (False, 0, None, False, False),  # not selling
    ],
)
def test_r94_the_player_may_buy_only_while_the_game_sells_within_the_limits(
    selling: bool, bought: int, limit: int | None, limit_reached: bool, buy: bool
) -> None:
    state = _state(_real(limit_reached), selling=selling, player=_player(bought=bought, limit=limit))
    assert state["choices"]["buy"] is buy


def test_r96_marking_by_hand_needs_the_manual_marking_and_cards() -> None:
    assert _state(_real(), player=_player("manual"))["choices"]["mark_by_hand"] is True
    assert _state(_real(), player=_player("auto"))["choices"]["mark_by_hand"] is False
    assert _state(_real(), player=_player("manual"), cards=[])["choices"]["mark_by_hand"] is False


def test_r102_the_demo_part_says_no_real_money_and_never_sells() -> None:
    playing = _state(_demo(), selling=False)
    assert (playing["demo"], playing["notice"]) == (True, "DEMO — no real money")
    assert playing["choices"] == {
        "buy": False,
        "play_again": False,
        "marking": True,
        "mark_by_hand": False,
        "lobby": True,
    }
    assert playing["winnings"] is None
    assert playing["game"]["next_ball_at"] == "2026-01-01T10:00:10+00:00"
    over = _state(_demo(over=True))
    assert (over["winnings"], over["choices"]["play_again"]) == (30, True)
    assert over["game"]["next_ball_at"] is None


def test_the_real_part_carries_the_outcome_and_the_play_session() -> None:
    state = _state(_real(limit_reached=True))
    assert state["outcome"] == {
        "over": False,
        "annulled": False,
        "reason": "",
        "credited": "0.00",
        "credited_display": "0 CVE",
        "refunded": "0.00",
        "refunded_display": "0 CVE",
    }
    assert state["playtime"] == {"limit_reached": True}
    assert state["game"]["size"] == 90
    assert "demo" not in state


def test_the_cards_come_best_first_with_their_numbers_to_go_for_the_prize_in_play() -> None:
    # Three balls of the second card's first row: it is two from the line, the first card further.
    second_row = [n for n in GRIDS[1][0] if n is not None]
    balls = [n for n in second_row[:3] if n not in ROW]
    state = _state(_real(), balls=balls)
    assert state["in_play"] == {"kind": "line", "name": "Line"}
    labels = [c["label"] for c in state["cards"]]
    assert labels == ["A-1 n.º 2", "A-1 n.º 1"]
    assert [c["order"] for c in state["cards"]] == [1, 0]
    best, other = state["cards"]
    assert best["to_go"] == 5 - len(balls)
    assert other["to_go"] == 5 - max(sum(n in balls for n in row) for row in GRIDS[0])
    assert best["to_go"] < other["to_go"]
    # Four of the first card's first row: it is one from the line and comes first again.
    state = _state(_real(), balls=ROW[:4])
    assert (state["cards"][0]["label"], state["cards"][0]["to_go"]) == ("A-1 n.º 1", 1)


def test_once_the_line_is_awarded_the_bingo_is_in_play_and_then_nothing() -> None:
    line = {"line": screen.ScreenAward(("B-1 n.º 9",), "20 CVE", mine=False)}
    state = _state(_real(), awarded=line)
    assert state["in_play"] == {"kind": "bingo", "name": "Bingo"}
    first = next(c for c in state["cards"] if c["number"] == 1)
    assert first["to_go"] == 15 - 4  # the full card's fifteen numbers, four drawn
    both = line | {"bingo": screen.ScreenAward(("B-1 n.º 9",), "60 CVE", mine=False)}
    over = _state(_real(), awarded=both)
    assert over["in_play"] is None
    assert [(c["number"], c["to_go"]) for c in over["cards"]] == [(1, None), (2, None)]  # as bought
    finished = _state(_real(), game=_game(state="finished"))
    assert finished["in_play"] is None


def test_the_state_carries_each_balls_call_and_the_75_ball_headings() -> None:
    state = _state(_real())
    assert state["game"]["headers"] is None
    assert len(state["calls"]) == 90
    assert state["calls"][ROW[3] - 1] == ball_calls(Variant.B90)[ROW[3] - 1]
    assert state["calls"][41] == "quarenta e dois"
    rules = prize_rules(Variant.B75, [PrizeKind.LINE, PrizeKind.BINGO])
    grids = [grid_of(cells) for cells in generate_card_set(Variant.B75, 2, seed=3).cells]
    cards = [screen.ScreenCard("C-1", 3, n, screen.card_label("C-1", n), grids[n - 1]) for n in (1, 2)]
    middle = [n for n in grids[0][2] if n is not None]  # four numbers around the free centre
    b75 = _state(_real(), game=_game(variant="75"), rules=rules, cards=cards, balls=middle[:3])
    assert b75["game"]["headers"] == ["B", "I", "N", "G", "O"]
    assert b75["calls"][11] == "B, doze"
    assert len(b75["calls"]) == 75
    # R72: the free centre is never waited for: three of the middle row's four numbers leave one.
    assert len(middle) == 4
    assert (b75["cards"][0]["number"], b75["cards"][0]["to_go"]) == (1, 1)
