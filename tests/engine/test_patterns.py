"""The 75-ball pattern library (bingo/engine/patterns.py, R73 b)): each named figure's cells, the
choice of a game's pattern, and a card winning the pattern bingo exactly when the figure's
numbers are all drawn — the engine against a brute-force statement of the rule."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import Detector, PrizeKind, Variant, card_check, cells_from_grids, generate_card_set
from bingo.engine.detection import PrizeRulesError, parse_pattern, prize_rules
from bingo.engine.patterns import (
    CUSTOM,
    LIBRARY,
    pattern_choose,
    pattern_get,
    pattern_key_of,
    pattern_picture,
)

BINGO, LINE = PrizeKind.BINGO, PrizeKind.LINE
CENTRE = (2, 2)

#: Each figure of the library, drawn by hand from its name: the test of its cells.
EXPECTED = {
    "four_corners": "X...X/...../...../...../X...X",
    "x": "X...X/.X.X./..X../.X.X./X...X",
    "plus": "..X../..X../XXXXX/..X../..X..",
    "frame": "XXXXX/X...X/X...X/X...X/XXXXX",
    "small_frame": "...../.XXX./.X.X./.XXX./.....",
    "diamond": "..X../.X.X./X...X/.X.X./..X..",
    "postage_stamp": "...XX/...XX/...../...../.....",
    "letter_t": "XXXXX/..X../..X../..X../..X..",
    "letter_l": "X..../X..../X..../X..../XXXXX",
    "letter_h": "X...X/X...X/XXXXX/X...X/X...X",
    "row_1": "XXXXX/...../...../...../.....",
    "row_2": "...../XXXXX/...../...../.....",
    "row_3": "...../...../XXXXX/...../.....",
    "row_4": "...../...../...../XXXXX/.....",
    "row_5": "...../...../...../...../XXXXX",
    "column_b": "X..../X..../X..../X..../X....",
    "column_i": ".X.../.X.../.X.../.X.../.X...",
    "column_n": "..X../..X../..X../..X../..X..",
    "column_g": "...X./...X./...X./...X./...X.",
    "column_o": "....X/....X/....X/....X/....X",
    "diagonal_down": "X..../.X.../..X../...X./....X",
    "diagonal_up": "....X/...X./..X../.X.../X....",
}


@pytest.mark.parametrize("key", list(EXPECTED))
def test_each_named_pattern_has_its_cells(key: str) -> None:
    pattern = pattern_get(key)
    assert pattern.key == key
    assert pattern.cells == parse_pattern(EXPECTED[key])
    assert pattern.text == EXPECTED[key]
    # R73 b): a lawful bingo pattern on its own (no extra prize beside it, R74).
    assert prize_rules(Variant.B75, pattern=pattern.cells).prizes == (BINGO,)


def test_the_library_is_exactly_these_figures_each_one_given_space() -> None:
    # R73 b) names one given space: no «any line» (R74 a)'s line prize), no ball limit (R9's).
    assert list(LIBRARY) == list(EXPECTED)
    assert len({p.name for p in LIBRARY.values()}) == len(LIBRARY)
    assert len({p.cells - {CENTRE} for p in LIBRARY.values()}) == len(LIBRARY)
    for refused in ("any_line", "full_card", "full_card_within_n_balls", "any_postage_stamp"):
        with pytest.raises(PrizeRulesError) as info:
            pattern_choose(refused, None)
        assert info.value.code == "pattern_unknown"


def test_a_pattern_is_chosen_from_the_library_drawn_by_hand_or_not_at_all() -> None:
    assert pattern_choose(None, None) is None  # R73 a): the full card
    assert pattern_choose(None, "") is None
    assert pattern_choose("x", None) == LIBRARY["x"].cells
    assert pattern_choose(CUSTOM, [(0, 0), (4, 4)]) == {(0, 0), (4, 4)}
    assert pattern_choose(CUSTOM, "X..../...../...../...../....X") == {(0, 0), (4, 4)}
    # Stored before the library: cells with no key are a custom pattern.
    assert pattern_choose(None, "X..../...../...../...../....X") == {(0, 0), (4, 4)}
    # Custom with nothing drawn: no numbered cell, which the rules refuse (R73 b)).
    assert pattern_choose(CUSTOM, None) == frozenset()
    with pytest.raises(PrizeRulesError) as info:
        prize_rules(Variant.B75, pattern=pattern_choose(CUSTOM, None))
    assert info.value.code == "pattern_empty"
    with pytest.raises(PrizeRulesError) as info:
        pattern_choose("x", [(0, 0)])
    assert info.value.code == "pattern_key_and_cells"


def test_cells_name_their_library_pattern_whatever_the_free_centre() -> None:
    for key, pattern in LIBRARY.items():
        assert pattern_key_of(pattern.cells) == key
        assert pattern_key_of(pattern.cells ^ {CENTRE}) == key  # R72: the centre counts as marked
    assert pattern_key_of({(0, 0), (1, 1)}) == CUSTOM


def test_the_picture_draws_the_cells_and_stars_the_free_centre() -> None:
    assert pattern_picture(LIBRARY["x"].cells) == ("X...X", ".X.X.", "..*..", ".X.X.", "X...X")
    assert pattern_picture(LIBRARY["frame"].cells) == ("XXXXX", "X...X", "X.*.X", "X...X", "XXXXX")


cell_sets = st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1).filter(
    lambda s: s - {CENTRE}
)


@given(
    shape=st.one_of(st.sampled_from([p.cells for p in LIBRARY.values()]), cell_sets),
    seed=st.integers(0, 2**32),
    k=st.integers(0, 75),
)
def test_a_card_wins_the_pattern_exactly_when_its_numbers_are_drawn(shape, seed, k) -> None:
    rules = prize_rules(Variant.B75, pattern=shape)
    rng = random.Random(seed)
    grid = generate_card_set(Variant.B75, 4, seed=seed).card(rng.randint(1, 4))
    order = list(range(1, 76))
    rng.shuffle(order)
    drawn = order[:k]
    # The rule itself: every number printed in the figure's cells drawn (the free centre has none).
    needed = {grid[r][c] for r, c in shape if grid[r][c]}
    wins = needed <= set(drawn)
    check = card_check(rules, grid, drawn)
    assert check.prize(BINGO).holds == wins
    assert check.prize(BINGO).missing == len(needed - set(drawn))
    if wins:
        assert check.prize(BINGO).completed_at == max(drawn.index(n) for n in needed) + 1  # R49
    # The detector following the draw ball by ball says the same.
    detector = Detector(rules, [(1, 1, cells_from_grids(Variant.B75, [grid]))])
    for ball in drawn:
        detector.draw(ball)
    assert detector.holders(BINGO).tolist() == ([0] if wins else [])
