"""The independent verifier catches every kind of corrupted set and names the card and rule."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import ALGORITHM_STRIPS, Variant, generate_card_set, grid_of, verify_cards
from tests.engine import reference


@pytest.fixture(scope="module")
def ninety():
    return generate_card_set(Variant.B90, 180, seed=11)


def check(variant, cells, **kwargs):
    return verify_cards(variant, cells, **kwargs)


def messages(report):
    return [str(v) for v in report.violations]


def test_a_valid_set_passes(ninety):
    report = check(Variant.B90, ninety.cells, declared_repeated=0, declared_fingerprint=ninety.fingerprint)
    assert report.ok
    assert report.violations == ()
    assert report.fingerprint == ninety.fingerprint


def test_a_moved_cell_is_caught(ninety):
    cells = ninety.cells.copy()
    card = cells[40]
    row = 1
    filled = np.flatnonzero(card[row])
    blank = np.flatnonzero(card[row] == 0)
    # Move the row's first number into a blank of another row's column: row 1 keeps 4.
    src = int(filled[0])
    dst_row = 0 if card[0, int(blank[0])] == 0 else 2
    card[dst_row, int(blank[0])], card[row, src] = card[row, src], 0
    report = check(Variant.B90, cells)
    assert not report.ok
    assert all(v.card == 41 for v in report.violations)
    assert any("row 2 holds 4 numbers" in m and "(R14)" in m for m in messages(report))


def test_a_duplicated_card_is_caught(ninety):
    cells = ninety.cells.copy()
    cells[99] = cells[6]
    report = check(Variant.B90, cells)
    assert "card 100: holds the same numbers as card 7 (R14)" in messages(report)
    assert any(m.startswith("card 100: row 1 repeats row 1 of card 7") for m in messages(report))


def test_a_repeated_row_is_caught():
    # Two cards built by hand: rows 2 and 3 differ, row 1 is the same five numbers.
    first = [
        [1, None, 20, None, 40, None, 60, None, 80],
        [None, 10, None, 30, None, 50, None, 70, 81],
        [2, 11, 21, 31, 41, None, None, None, None],
    ]
    second = [
        [1, None, 20, None, 40, None, 60, None, 80],
        [3, 12, None, 32, None, 51, None, 72, None],
        [None, 13, 22, None, 41, None, 61, 73, None],
    ]
    cells = np.array([[[v or 0 for v in row] for row in g] for g in (first, second)], dtype=np.uint8)
    report = check(Variant.B90, cells, declared_repeated=0)
    assert reference.card_problems("90", first) == []
    assert reference.card_problems("90", second) == []
    assert "card 2: row 1 repeats row 1 of card 1 (R14)" in messages(report)
    assert "the set declares 0 repeated line combinations but holds 1 (R14)" in messages(report)


@pytest.mark.parametrize("count", [0, 3])
def test_a_column_with_zero_or_three_numbers_is_caught(ninety, count):
    cells = ninety.cells.copy()
    card = cells[3]
    col = 4
    card[:, col] = 0
    if count == 3:
        card[:, col] = [40, 44, 48]
    report = check(Variant.B90, cells)
    assert any(
        m.startswith(f"card 4: column 5 holds {count} numbers; 1 or 2, never 0 or 3") and m.endswith("(R14)")
        for m in messages(report)
    )


def test_numbers_out_of_their_column_or_order_are_caught(ninety):
    cells = ninety.cells.copy()
    col = int(np.flatnonzero((cells[0] > 0).sum(axis=0) == 2)[0])
    rows = np.flatnonzero(cells[0][:, col])
    cells[0][rows, col] = cells[0][rows[::-1], col]  # swap: descending
    cells[1][cells[1] == cells[1].max()] = 7 if cells[1].max() > 9 else 95
    report = check(Variant.B90, cells)
    found = messages(report)
    assert f"card 1: column {col + 1} is not in ascending order from top to bottom (R14)" in found
    assert any(m.startswith("card 2: 7 in row") and "outside that column's" in m for m in found)


def test_eighty_ball_blank_and_seventy_five_centre_are_caught():
    eighty = generate_card_set(Variant.B80, 10, seed=3).cells.copy()
    eighty[2, 1, 3] = 0
    assert "card 3: the cell in row 2, column 4 is blank (R64-R65)" in messages(check(Variant.B80, eighty))

    seventy_five = generate_card_set(Variant.B75, 10, seed=3).cells.copy()
    seventy_five[5, 2, 2] = 40 if 40 not in seventy_five[5] else 41
    found = messages(check(Variant.B75, seventy_five))
    assert "card 6: the centre (row 3, column 3) must be the free cell (R71 c))" in found


def test_a_number_printed_twice_is_caught():
    thirty = generate_card_set(Variant.B30, 20, seed=3).cells.copy()
    thirty[0, 1, 0] = thirty[0, 0, 0]
    assert f"card 1: {thirty[0, 0, 0]} printed more than once (R81-R82)" in messages(
        check(Variant.B30, thirty)
    )


def test_a_wrong_declared_count_or_fingerprint_is_caught():
    card_set = generate_card_set(Variant.B75, 1680, seed=2)
    report = check(Variant.B75, card_set.cells, declared_repeated=0, declared_fingerprint="0" * 64)
    found = messages(report)
    assert f"the set declares 0 repeated line combinations but holds {card_set.repeated_lines} (R14)" in found
    assert any(m.startswith(f"the cards give fingerprint {card_set.fingerprint}") for m in found)


def test_a_broken_strip_is_caught():
    card_set = generate_card_set(Variant.B90, 12, seed=4, algorithm=ALGORITHM_STRIPS)
    cells = card_set.cells.copy()
    # Exchange one card between two strips: each card stays valid, both strips break.
    cells[[5, 6]] = cells[[6, 5]]
    report = check(Variant.B90, cells, strips=True)
    found = messages(report)
    assert any(m.startswith("card 1: cards 1-6 must hold each of 1-90 once") for m in found)
    assert any(m.startswith("card 7: cards 7-12 must hold each of 1-90 once") for m in found)
    assert check(Variant.B90, cells, strips=False).ok


def test_the_report_keeps_a_bounded_list_but_counts_everything(ninety):
    cells = ninety.cells.copy()
    cells[:, 0, :] = 0  # every card's first row emptied
    report = check(Variant.B90, cells, limit=10)
    assert len(report.violations) == 10
    assert report.total_violations >= 180


def test_a_wrong_shape_is_a_violation_not_a_crash():
    report = check(Variant.B90, np.zeros((3, 4, 4), dtype=np.uint8))
    assert not report.ok
    assert "3 x 9" in str(report.violations[0])


mutations = st.tuples(
    st.integers(0, 29),  # card
    st.integers(0, 24),  # cell, modulo the card's cell count
    st.integers(0, 95),  # new value (0 = blank)
)


@given(
    variant=st.sampled_from(list(Variant)),
    seed=st.integers(0, 2**64),
    changes=st.lists(mutations, min_size=1, max_size=3),
)
def test_verifier_agrees_with_the_plain_reference_on_random_damage(variant, seed, changes):
    card_set = generate_card_set(variant, 30, seed)
    cells = card_set.cells.copy()
    per_card = cells.shape[1] * cells.shape[2]
    for card, cell, value in changes:
        cells[card].reshape(-1)[cell % per_card] = value
    report = check(variant, cells)
    grids = [grid_of(card) for card in cells]
    expected = reference.set_problems(variant.value, grids)
    assert report.ok == (expected == []), (messages(report), expected)
    assert report.repeated_lines == reference.repeated_lines(variant.value, grids)


def test_an_empty_set_is_a_violation_not_a_crash():
    report = check(Variant.B90, np.zeros((0, 3, 9), dtype=np.uint8))
    assert not report.ok
    assert "a set holds at least one card" in messages(report)[0]


def test_integer_arrays_from_elsewhere_are_accepted_when_in_range(ninety):
    assert check(Variant.B90, ninety.cells.astype(np.int64)).ok
    bad = ninety.cells.astype(np.int64)
    bad[0, 0, 0] = -1
    assert "grids of numbers 0-255" in messages(check(Variant.B90, bad))[0]


def test_a_repeated_line_is_a_violation_where_the_size_allows_every_line_unique():
    cells = generate_card_set(Variant.B80, 10, seed=4).cells.copy()
    cells[1, 0] = cells[0, 0]  # card 2's first row = card 1's (still one number per column range)
    # Keep card 2 free of numbers it now holds twice: swap the displaced values into row 1.
    report = check(Variant.B80, cells, declared_repeated=None)
    assert any("yet a set of 10 cards can have every line different (R14)" in m for m in messages(report))


def test_strips_are_only_for_ninety_ball():
    cells = generate_card_set(Variant.B80, 12, seed=4).cells
    assert "strips of six exist only for 90-ball cards (strips)" in messages(
        check(Variant.B80, cells, strips=True)
    )
