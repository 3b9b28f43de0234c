"""The generator's internal keys are exact: equal keys exactly when equal number sets."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import Variant, generate_card_set, geometry
from bingo.engine._keys import card_keys, later_duplicates, later_duplicates_below, line_codes, row_codes_90
from tests.engine import reference


@given(st.lists(st.integers(-3, 3), max_size=60))
def test_later_duplicates_marks_all_but_the_first_of_each_value(values):
    keys = np.array(values, dtype=np.int64)
    seen, expected = set(), []
    for v in values:
        expected.append(v in seen)
        seen.add(v)
    assert later_duplicates(keys).tolist() == expected
    assert later_duplicates_below(keys + 3, 7).tolist() == expected


@given(variant=st.sampled_from(list(Variant)), seed=st.integers(0, 2**32))
def test_card_keys_are_equal_exactly_for_equal_number_sets(variant, seed):
    cells = generate_card_set(variant, 40, seed).cells.copy()
    # Card 40 holds card 1's numbers upside down: same number set, other arrangement.
    cells[39] = cells[0][::-1]
    keys = card_keys(variant, cells).tolist()
    sets = [frozenset(int(v) for v in card.ravel() if v) for card in cells]
    for i in range(len(keys)):
        for j in range(i):
            assert (keys[i] == keys[j]) == (sets[i] == sets[j])


@given(seed=st.integers(0, 2**32))
def test_row_codes_match_row_sets(seed):
    card_set = generate_card_set(Variant.B90, 50, seed)
    codes = row_codes_90(card_set.cells).ravel().tolist()
    rows = [frozenset(int(v) for v in row if v) for card in card_set.cells for row in card]
    assert len(set(codes)) == len(set(rows)) == len(rows)


@given(variant=st.sampled_from([Variant.B80, Variant.B75, Variant.B30]), seed=st.integers(0, 2**32))
def test_line_codes_count_repeats_like_the_reference(variant, seed):
    card_set = generate_card_set(variant, 300, seed)
    codes = line_codes(variant, card_set.cells).ravel()
    grids = [card_set.card(i) for i in range(1, 301)]
    assert codes.size - np.unique(codes).size == reference.repeated_lines(variant.value, grids)


@pytest.mark.parametrize("variant", [Variant.B80, Variant.B75, Variant.B30])
def test_card_keys_are_the_mixed_radix_of_each_columns_colex_rank(variant):
    """The key's value, not only its equalities: each column's numbers ranked among the sets of
    their size (colexicographic, after the counts of smaller sets), as mixed-radix digits."""
    geo = geometry(variant)
    cells = generate_card_set(variant, 30, seed=5).cells
    expected = []
    for card in cells:
        key, weight = 0, 1
        for c, (low, high) in enumerate(geo.column_ranges):
            size, most = high - low + 1, geo.column_counts[c]
            members = sorted(int(v) - low for v in card[:, c] if v)
            rank = sum(math.comb(size, k) for k in range(len(members)))
            rank += sum(math.comb(a, i) for i, a in enumerate(members, start=1))
            key += rank * weight
            weight *= sum(math.comb(size, k) for k in range(most + 1))
        expected.append(key)
    assert card_keys(variant, cells).tolist() == expected
