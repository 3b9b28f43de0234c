"""Winner detection (R43-R49, R66-R84): the engine against a brute-force re-statement of the rules.

The reference below knows nothing of the engine's counters, index or layout: for each card it
lists every winning combination as a set of numbers, straight from the grid and the rule text,
and a combination is complete when all its numbers are among the balls drawn.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import (
    NEAR,
    CardRef,
    DetectionError,
    Detector,
    LineKind,
    PrizeKind,
    PrizeRules,
    PrizeRulesError,
    SoldCards,
    Variant,
    card_check,
    cells_from_grids,
    generate_card_set,
    grid_of,
    parse_pattern,
    pattern_text,
    prize_rules,
)
from tests.engine.reference import SHAPES

LINE, BINGO, CORNERS, COLUMN = PrizeKind.LINE, PrizeKind.BINGO, PrizeKind.FOUR_CORNERS, PrizeKind.COLUMN
ROW, COL, DIAG = LineKind.ROW, LineKind.COLUMN, LineKind.DIAGONAL
BALLS = {"90": 90, "80": 80, "75": 75, "30": 30}
X_PATTERN = "X...X/.X.X./..X../.X.X./X...X"


# --- the reference -------------------------------------------------------------------------------


def reference_targets(rules: PrizeRules, grid) -> dict[PrizeKind, list[tuple[str, frozenset[int]]]]:
    """Each prize's winning combinations on one card, as (name, numbers); blanks and the free
    centre (None) are simply not there to wait for (R72)."""
    rows, cols = SHAPES[rules.variant.value]

    def numbers(cells):
        return frozenset(grid[r][c] for r, c in cells if grid[r][c])

    row_sets = [(f"row {r + 1}", numbers([(r, c) for c in range(cols)])) for r in range(rows)]
    col_sets = [(f"column {c + 1}", numbers([(r, c) for r in range(rows)])) for c in range(cols)]
    diagonals = [
        ("diagonal 1", numbers([(i, i) for i in range(rows)])),
        ("diagonal 2", numbers([(i, rows - 1 - i) for i in range(rows)])),
    ]
    found = {}
    for prize in rules.prizes:
        if prize is LINE:
            found[prize] = (
                (row_sets if ROW in rules.line_kinds else [])
                + (col_sets if COL in rules.line_kinds else [])
                + (diagonals if DIAG in rules.line_kinds else [])
            )
        elif prize is COLUMN:
            found[prize] = col_sets
        elif prize is CORNERS:
            found[prize] = [
                ("four corners", numbers([(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)]))
            ]
        elif rules.pattern is not None:
            found[prize] = [("pattern", numbers(rules.pattern))]
        else:
            found[prize] = [("full card", numbers([(r, c) for r in range(rows) for c in range(cols)]))]
    return found


class Reference:
    """Brute force over every card: which combinations are complete, when, and what is missing."""

    def __init__(self, rules: PrizeRules, grids):
        self.rules = rules
        self.cards = [reference_targets(rules, grid) for grid in grids]

    def state(self, drawn: list[int]):
        position = {ball: i + 1 for i, ball in enumerate(drawn)}
        done = {prize: set() for prize in self.rules.prizes}
        need = {prize: [] for prize in self.rules.prizes}
        for index, card in enumerate(self.cards):
            for prize, targets in card.items():
                missing = []
                for name, nums in targets:
                    left = [n for n in nums if n not in position]
                    missing.append(len(left))
                    if not left:
                        done[prize].add((index, name, max(position[n] for n in nums)))
                need[prize].append(min(missing))
        return done, need


def detector_state(detector: Detector, prize: PrizeKind) -> set[tuple[int, str, int]]:
    found = detector.completions(prize)
    names = [t.name for t in detector.rules.targets]
    return {
        (card, names[t], at)
        for card, t, at in zip(found.cards.tolist(), found.targets.tolist(), found.at.tolist(), strict=True)
    }


def assert_matches(detector: Detector, reference: Reference, drawn: list[int]) -> None:
    done, need = reference.state(drawn)
    for prize in detector.rules.prizes:
        assert detector_state(detector, prize) == done[prize], prize
        assert detector.missing(prize).tolist() == need[prize], prize
        counts = Counter(need[prize])
        assert detector.need_counts(prize, NEAR) == tuple(counts[k] for k in range(NEAR + 1)), prize
        assert detector.need_counts(prize, 30) == tuple(counts[k] for k in range(31)), prize
        assert detector.one_to_go(prize) == counts[1]
        assert detector.holders(prize).tolist() == sorted({card for card, _, _ in done[prize]})


# --- games to play -------------------------------------------------------------------------------


def kind_subsets(variant: Variant):
    kinds = [ROW] if variant is Variant.B90 else [ROW, COL, DIAG]
    return [combo for n in range(1, len(kinds) + 1) for combo in itertools.combinations(kinds, n)]


def all_rules(variant: Variant) -> list[PrizeRules]:
    """Every prize combination the regulation allows for ``variant``, every line-kind subset."""
    lines = [prize_rules(variant, (LINE, BINGO), line_kinds=kinds) for kinds in kind_subsets(variant)]
    found = [prize_rules(variant, (BINGO,)), *lines]
    if variant is Variant.B75:
        found += [prize_rules(variant, (CORNERS, BINGO))]
        found += [prize_rules(variant, (LINE, CORNERS, BINGO), line_kinds=k) for k in kind_subsets(variant)]
        found += [prize_rules(variant, pattern=parse_pattern(X_PATTERN))]
    if variant is Variant.B30:
        found += [prize_rules(variant, (COLUMN, BINGO)), prize_rules(variant, (CORNERS, BINGO))]
    return found


@st.composite
def rules_strategy(draw):
    variant = draw(st.sampled_from(list(Variant)))
    if variant is Variant.B75 and draw(st.booleans()):
        cells = draw(st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1))
        if cells - {(2, 2)}:
            return prize_rules(variant, pattern=cells)
    return draw(st.sampled_from(all_rules(variant)))


def split_blocks(cells, rng: random.Random) -> list[SoldCards]:
    """The cards as blocks of a few series, each from some first number, in shuffled order."""
    blocks, start = [], 0
    while start < len(cells):
        count = rng.randint(1, 12)
        blocks.append(
            SoldCards(series_id=rng.choice([7, 8, 9]), first_number=0, cells=cells[start : start + count])
        )
        start += count
    numbers = {7: 1, 8: 50, 9: 1000}
    out = []
    for block in blocks:
        out.append(SoldCards(block.series_id, numbers[block.series_id], block.cells))
        numbers[block.series_id] += block.count + rng.randint(0, 3)
    return out


def play(rules: PrizeRules, size: int, seed: int, *, balls: int | None = None, every_ball: bool = True):
    rng = random.Random(seed)
    card_set = generate_card_set(rules.variant, size, seed=seed)
    grids = [card_set.card(i) for i in range(1, size + 1)]
    blocks = split_blocks(card_set.cells, rng)
    detector = Detector(rules, blocks)
    reference = Reference(rules, grids)
    order = list(range(1, BALLS[rules.variant.value] + 1))
    rng.shuffle(order)
    order = order[:balls] if balls is not None else order
    assert_matches(detector, reference, [])
    for count, ball in enumerate(order, 1):
        outcome = detector.draw(ball)
        assert outcome.count == count
        assert detector.drawn == tuple(order[:count])
        if every_ball or count == len(order):
            assert_matches(detector, reference, order[:count])
            done, _ = reference.state(order[:count])
            for prize in rules.prizes:
                fresh = {(card, name, at) for card, name, at in done[prize] if at == count}
                new = outcome.new[prize]
                names = [rules.targets[t].name for t in new.targets.tolist()]
                assert set(zip(new.cards.tolist(), names, new.at.tolist(), strict=True)) == fresh
                assert (prize in outcome.won) == bool(fresh)
    return detector, blocks, order


# --- the detector against the reference ----------------------------------------------------------


@given(
    rules=rules_strategy(),
    size=st.integers(1, 25),
    seed=st.integers(0, 2**32),
    balls=st.integers(0, 90),
)
def test_detector_matches_brute_force_after_every_ball(rules, size, seed, balls):
    play(rules, size, seed, balls=balls)


@pytest.mark.parametrize(
    "rules",
    [rules for variant in Variant for rules in all_rules(variant)],
    ids=lambda r: (
        f"{r.variant}-{'+'.join(r.prizes)}-{'+'.join(r.line_kinds) or '-'}{'-pattern' if r.pattern else ''}"
    ),
)
def test_every_allowed_prize_and_line_kind_combination_over_a_full_draw(rules):
    play(rules, 40, seed=hash(rules) % 1000, every_ball=False)


@given(rules=rules_strategy(), size=st.integers(1, 25), seed=st.integers(0, 2**32), k=st.integers(0, 90))
def test_rebuilding_mid_game_equals_following_the_draw(rules, size, seed, k):
    rng = random.Random(seed)
    cells = generate_card_set(rules.variant, size, seed=seed).cells
    blocks = split_blocks(cells, rng)
    order = list(range(1, BALLS[rules.variant.value] + 1))
    rng.shuffle(order)
    k = min(k, len(order))
    followed = Detector(rules, blocks)
    for ball in order[:k]:
        followed.draw(ball)
    rebuilt = Detector(rules, blocks, drawn=order[:k])

    def same():
        assert rebuilt.drawn == followed.drawn
        for t in range(len(rules.targets)):
            assert np.array_equal(rebuilt.target_missing(t), followed.target_missing(t))
        for prize in rules.prizes:
            a, b = rebuilt.completions(prize), followed.completions(prize)
            assert np.array_equal(a.cards, b.cards)
            assert np.array_equal(a.targets, b.targets)
            assert np.array_equal(a.at, b.at)
            assert np.array_equal(rebuilt.missing(prize), followed.missing(prize))
            assert rebuilt.need_counts(prize, NEAR) == followed.need_counts(prize, NEAR)
            assert rebuilt.need_counts(prize) == followed.need_counts(prize)

    same()
    for ball in order[k:]:
        rebuilt.draw(ball)
        followed.draw(ball)
    same()


@given(rules=rules_strategy(), seed=st.integers(0, 2**32), k=st.integers(0, 90))
def test_card_check_matches_brute_force(rules, seed, k):
    rng = random.Random(seed)
    card_set = generate_card_set(rules.variant, 3, seed=seed)
    grid = card_set.card(rng.randint(1, 3))
    order = list(range(1, BALLS[rules.variant.value] + 1))
    rng.shuffle(order)
    drawn = order[:k]
    check = card_check(rules, grid, drawn)
    done, need = Reference(rules, [grid]).state(drawn)
    for prize in rules.prizes:
        result = check.prize(prize)
        assert {(0, h.target.name, h.completed_at) for h in result.hits} == done[prize]
        assert result.missing == need[prize][0]
        assert result.holds == (need[prize][0] == 0)
        first = min((at for _, _, at in done[prize]), default=None)
        assert result.completed_at == first
    assert check.held == tuple(p for p in rules.prizes if need[p][0] == 0)
    rows, cols = SHAPES[rules.variant.value]
    for r in range(rows):
        for c in range(cols):
            value = grid[r][c]
            expected = value in drawn if value else rules.variant is Variant.B75 and (r, c) == (2, 2)
            assert check.marks[r][c] == expected
    # The same card given as its cells array says the same.
    assert card_check(rules, cells_from_grids(rules.variant, [grid])[0], drawn) == check


# --- the rules, case by case ---------------------------------------------------------------------


def card_75():
    # B 1-15, I 16-30, N 31-45 with the free centre, G 46-60, O 61-75.
    return [
        [1, 16, 31, 46, 61],
        [2, 17, 32, 47, 62],
        [3, 18, None, 48, 63],
        [4, 19, 34, 49, 64],
        [5, 20, 35, 50, 65],
    ]


def test_free_centre_counts_as_marked_for_the_middle_row_column_and_diagonals():
    rules = prize_rules(Variant.B75)
    check = card_check(rules, card_75(), [3, 18, 48, 63])
    assert check.prize(LINE).holds
    assert [h.target.name for h in check.prize(LINE).hits] == ["row 3"]
    assert check.marks[2] == (True, True, True, True, True)
    check = card_check(rules, card_75(), [31, 32, 34, 35, 1, 17, 49, 65])
    assert {h.target.name for h in check.prize(LINE).hits} == {"column 3", "diagonal 1"}
    # Four numbers make the diagonal: one to go after three.
    detector = Detector(rules, [(1, 1, cells_from_grids(Variant.B75, [card_75()]))])
    for ball in (1, 17, 49):
        detector.draw(ball)
    assert detector.missing(LINE).tolist() == [1]
    assert detector.one_to_go(LINE) == 1
    assert detector.draw(65).won == (LINE,)


def test_pattern_bingo_needs_only_the_pattern():
    rules = prize_rules(Variant.B75, pattern=parse_pattern(X_PATTERN))
    assert rules.prizes == (BINGO,)
    x = [1, 17, 49, 65, 5, 19, 47, 61]  # the two diagonals; the centre is free
    assert not card_check(rules, card_75(), x[:-1]).prize(BINGO).holds
    check = card_check(rules, card_75(), x)
    assert check.prize(BINGO).holds
    assert check.prize(BINGO).hits[0].target.name == "pattern"
    assert not card_check(prize_rules(Variant.B75), card_75(), x).prize(BINGO).holds


def test_a_card_that_completed_before_the_claim_still_wins_r49():
    rules = prize_rules(Variant.B75)
    balls = [1, 2, 3, 4, 5, 70, 71, 72]  # column 1 completes at the 5th ball
    check = card_check(rules, card_75(), balls)
    assert check.prize(LINE).holds
    assert check.prize(LINE).completed_at == 5
    detector = Detector(rules, [(4, 10, cells_from_grids(Variant.B75, [card_75()]))])
    for ball in balls:
        detector.draw(ball)
    (winner,) = detector.winners(LINE)
    assert winner.card == CardRef(4, 10)
    assert winner.completed_at == 5
    assert detector.card_check(4, 10).prize(LINE).completed_at == 5


def test_several_cards_share_a_prize_completed_at_the_same_ball():
    a = [[1, 11, 21], [2, 12, 22], [3, 13, 23]]
    b = [[1, 11, 24], [5, 15, 25], [6, 16, 26]]
    c = [[7, 17, 27], [8, 18, 28], [9, 19, 29]]
    rules = prize_rules(Variant.B30, (LINE, BINGO), line_kinds=[ROW])
    detector = Detector(
        rules,
        [SoldCards(3, 1, cells_from_grids(Variant.B30, [a, b])), (5, 2, cells_from_grids(Variant.B30, [c]))],
    )
    for ball in (1, 21, 24):
        assert detector.draw(ball).won == ()
    outcome = detector.draw(11)
    assert outcome.won == (LINE,)
    assert outcome.new[LINE].cards.tolist() == [0, 1]
    assert [w.card for w in detector.winners(LINE)] == [CardRef(3, 1), CardRef(3, 2)]
    assert all(w.completed_at == 4 for w in detector.winners(LINE))
    assert detector.need_counts(LINE) == (2, 0, 0, 1)


def test_one_to_go_counts_follow_the_draw():
    card_set = generate_card_set(Variant.B90, 200, seed=11)
    detector = Detector(prize_rules(Variant.B90), [(1, 1, card_set.cells)])
    order = list(range(1, 91))
    random.Random(5).shuffle(order)
    for ball in order[:40]:
        detector.draw(ball)
    drawn = set(order[:40])
    line_need = [min(len(set(filter(None, row)) - drawn) for row in card_set.card(i)) for i in range(1, 201)]
    bingo_need = [len(card_set.numbers(i) - drawn) for i in range(1, 201)]
    assert detector.one_to_go(LINE) == line_need.count(1)
    assert detector.one_to_go(BINGO) == bingo_need.count(1)
    assert detector.need_counts(BINGO) == tuple(bingo_need.count(k) for k in range(16))
    assert detector.need_counts(LINE) == tuple(line_need.count(k) for k in range(6))


def test_closing_a_prize_freezes_it_and_keeps_following_the_others_r47():
    rules = prize_rules(Variant.B90)
    card_set = generate_card_set(Variant.B90, 60, seed=3)
    detector = Detector(rules, [(1, 1, card_set.cells)])
    reference = Reference(rules, [card_set.card(i) for i in range(1, 61)])
    order = list(range(1, 91))
    random.Random(9).shuffle(order)
    count = 0
    while not len(detector.holders(LINE)):
        detector.draw(order[count])
        count += 1
    line_holders = detector.holders(LINE).tolist()
    detector.close(LINE)
    assert detector.closed == {LINE}
    for ball in order[count:]:
        assert LINE not in detector.draw(ball).new
    assert detector.holders(LINE).tolist() == line_holders
    done, need = reference.state(order)
    assert detector_state(detector, BINGO) == done[BINGO]
    assert detector.missing(BINGO).tolist() == need[BINGO]


def test_winners_name_series_and_number_across_blocks():
    cells = generate_card_set(Variant.B80, 30, seed=2).cells
    blocks = [SoldCards(12, 101, cells[:10]), SoldCards(13, 1, cells[10:25]), SoldCards(12, 111, cells[25:])]
    detector = Detector(prize_rules(Variant.B80), blocks)
    assert detector.size == 30
    assert detector.card_index(13, 1) == 10
    assert detector.card_index(12, 111) == 25
    assert detector.card_ref(26) == CardRef(12, 112)
    series, numbers = detector.card_refs([0, 10, 29])
    assert series.tolist() == [12, 13, 12]
    assert numbers.tolist() == [101, 1, 115]
    assert np.array_equal(detector.card_cells(12), cells[12])
    with pytest.raises(DetectionError) as info:
        detector.card_index(13, 16)
    assert info.value.code == "card_not_sold"
    for ball in range(1, 81):
        detector.draw(ball)
    assert sorted(w.card for w in detector.winners(BINGO)) == sorted(
        [CardRef(12, n) for n in range(101, 116)] + [CardRef(13, n) for n in range(1, 16)]
    )


def test_an_empty_game_detects_nothing():
    detector = Detector(prize_rules(Variant.B90), [])
    assert detector.draw(7).won == ()
    assert detector.need_counts(LINE) == (0, 0, 0, 0, 0, 0)
    assert detector.winners(BINGO) == ()


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda: PrizeRules(Variant.B90, (LINE,), (ROW,)), "no_bingo"),
        (lambda: PrizeRules(Variant.B90, (BINGO, BINGO)), "prize_repeated"),
        (lambda: prize_rules(Variant.B80, (CORNERS, BINGO)), "prize_not_in_variant"),
        (lambda: prize_rules(Variant.B75, (COLUMN, BINGO)), "prize_not_in_variant"),
        (lambda: prize_rules(Variant.B90, (CORNERS, BINGO)), "prize_not_in_variant"),
        (lambda: prize_rules(Variant.B30, (LINE, CORNERS, BINGO)), "extra_prizes_30"),
        (lambda: prize_rules(Variant.B30, (COLUMN, CORNERS, BINGO)), "extra_prizes_30"),
        (lambda: prize_rules(Variant.B90, line_kinds=[COL]), "line_kind_not_in_variant"),
        (lambda: prize_rules(Variant.B80, line_kinds=[]), "line_kinds_missing"),
        (lambda: prize_rules(Variant.B80, (BINGO,), line_kinds=[ROW]), "line_kinds_without_line"),
        (lambda: prize_rules(Variant.B90, pattern={(0, 0)}), "pattern_not_75"),
        (lambda: prize_rules(Variant.B75, (LINE, BINGO), pattern={(0, 0)}), "pattern_with_extras"),
        (lambda: prize_rules(Variant.B75, pattern={(5, 0)}), "pattern_outside_card"),
        (lambda: prize_rules(Variant.B75, pattern={(2, 2)}), "pattern_empty"),
        (lambda: parse_pattern("X...X/.X.X."), "pattern_text_invalid"),
    ],
)
def test_rules_the_regulation_does_not_allow_are_refused(make, code):
    with pytest.raises(PrizeRulesError) as info:
        make()
    assert info.value.code == code


def test_rules_defaults_and_normal_order():
    assert prize_rules(Variant.B90) == PrizeRules(Variant.B90, (LINE, BINGO), (ROW,))
    assert prize_rules(Variant.B80).line_kinds == (ROW, COL, DIAG)
    assert prize_rules(Variant.B30, (BINGO, LINE), line_kinds=[DIAG, ROW]) == PrizeRules(
        Variant.B30, (LINE, BINGO), (ROW, DIAG)
    )
    assert [t.name for t in prize_rules(Variant.B30, (COLUMN, BINGO)).targets] == [
        "column 1",
        "column 2",
        "column 3",
        "full card",
    ]
    corners = prize_rules(Variant.B75, (CORNERS, BINGO)).targets_of(CORNERS)[0]
    assert corners.cells == ((0, 0), (0, 4), (4, 0), (4, 4))
    pattern = parse_pattern(X_PATTERN)
    assert pattern_text(pattern) == X_PATTERN
    assert (2, 2) not in prize_rules(Variant.B75, pattern=pattern).targets[0].cells  # R72


def test_balls_and_cards_detection_cannot_work_with_are_refused():
    cells = generate_card_set(Variant.B90, 10, seed=1).cells
    detector = Detector(prize_rules(Variant.B90), [(1, 1, cells)])
    detector.draw(5)
    for ball, code in [
        (5, "ball_repeated"),
        (0, "ball_invalid"),
        (91, "ball_invalid"),
        (True, "ball_invalid"),
    ]:
        with pytest.raises(DetectionError) as info:
            detector.draw(ball)
        assert info.value.code == code
    assert detector.drawn == (5,)
    with pytest.raises(DetectionError) as info:
        Detector(prize_rules(Variant.B90), [(1, 1, cells), (1, 10, cells[:2])])
    assert info.value.code == "card_sold_twice"
    bad = cells.copy()
    bad[3, 0, :] = 0
    wrong = [
        (cells.astype(np.int64), "cells_shape"),
        (np.where(cells == 0, 0, cells % 90 + 1).astype(np.uint8), "number_out_of_column"),
        (bad, "row_count"),
    ]
    for block, code in wrong:
        with pytest.raises(DetectionError) as info:
            Detector(prize_rules(Variant.B90), [(1, 1, block)])
        assert info.value.code == code, str(info.value)
    with pytest.raises(DetectionError, match="card 23 of series 6: row 1 holds 0 numbers") as info:
        Detector(prize_rules(Variant.B90), [(5, 1, cells), (6, 20, bad)])
    assert info.value.params == {"series": 6, "card": 23, "row": 1, "count": 0}
    twice = cells_from_grids(Variant.B75, [card_75()])
    twice[0, 1, 0] = 1
    with pytest.raises(DetectionError, match="1 is printed twice") as info:
        card_check(prize_rules(Variant.B75), twice[0], [])
    centre = cells_from_grids(Variant.B75, [card_75()])
    centre[0, 2, 2] = 33
    with pytest.raises(DetectionError) as info:
        card_check(prize_rules(Variant.B75), centre[0], [])
    assert info.value.code == "free_cell_not_blank"
    with pytest.raises(DetectionError) as info:
        card_check(prize_rules(Variant.B75), card_75(), [3, 3])
    assert info.value.code == "ball_repeated"


def test_grid_of_round_trip_gives_the_same_check():
    cells = generate_card_set(Variant.B30, 1, seed=4).cells
    rules = prize_rules(Variant.B30)
    assert card_check(rules, grid_of(cells[0]), [1, 2, 3]) == card_check(rules, cells[0], [1, 2, 3])


def test_a_cold_detector_holds_the_cards_the_index_and_the_counters_and_little_more():
    """Issue 23: a million-card detector took twice the memory of the structures it needs. What
    it needs: the cards (1 byte a cell), 4 bytes per number printed (the index from ball to
    cards) and a 1-byte counter per card and target (and per prize of several targets); its
    build may add a few arrays of a byte per card, not copies of every cell."""
    import tracemalloc

    n = 60_000
    cells = generate_card_set(Variant.B90, n, seed=23).cells
    blocks = [SoldCards(s + 1, 1, cells[s * 10_000 : (s + 1) * 10_000]) for s in range(6)]
    rules = prize_rules(Variant.B90)
    needed = n * 27 + 4 * n * 15 + n * (len(rules.targets) + 1)
    tracemalloc.start()
    try:
        detector = Detector(rules, blocks)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert detector.need_counts(LINE, 1) == (0, 0)
    assert held <= 1.05 * needed
    assert peak <= held + 20 * n  # the build's temporaries: some arrays of a byte or two per card
