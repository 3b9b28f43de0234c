"""The fingerprint is exactly the documented SHA-256, so anyone can recompute it."""

import hashlib

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from bingo.engine import Variant, fingerprint, generate_card_set, grid_of
from tests.engine import reference


def test_documented_example():
    """The example in docs/cards.md: two 30-ball cards."""
    cells = np.array(
        [[[3, 17, 25], [9, 12, 30], [1, 20, 22]], [[10, 11, 21], [2, 19, 29], [7, 15, 24]]], np.uint8
    )
    text = "1:3,17,25,9,12,30,1,20,22\n2:10,11,21,2,19,29,7,15,24\n"
    assert fingerprint(cells) == hashlib.sha256(text.encode()).hexdigest()
    assert fingerprint(cells) == "f4854559fec2bd6459b04390bd5c27f3a38bfb3b395485be87e146035597a3b7"


def test_blank_and_free_cells_are_written_as_zero():
    card_set = generate_card_set(Variant.B75, 3, seed=8)
    first_line = "1:" + ",".join(str(v or 0) for row in card_set.card(1) for v in row) + "\n"
    assert ",0," in first_line  # the free centre
    grids = [card_set.card(i) for i in (1, 2, 3)]
    assert card_set.fingerprint == reference.fingerprint(grids)


@given(
    hnp.arrays(
        np.uint8, st.tuples(st.integers(0, 1200), st.just(3), st.integers(1, 9)), elements=st.integers(0, 99)
    )
)
def test_matches_the_plain_definition_for_any_cells(cells):
    assert fingerprint(cells) == reference.fingerprint([grid_of(card) for card in cells])


def test_card_numbers_past_six_digits_are_written_in_full():
    cells = np.zeros((1_000_000, 1, 1), dtype=np.uint8)
    cells[-1, 0, 0] = 7
    text = "".join(f"{i}:0\n" for i in range(1, 1_000_000)) + "1000000:7\n"
    assert fingerprint(cells) == hashlib.sha256(text.encode()).hexdigest()


def test_refuses_what_the_definition_cannot_express():
    import pytest

    with pytest.raises(ValueError, match="uint8"):
        fingerprint(np.zeros((2, 3, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="above 99"):
        fingerprint(np.full((1, 3, 3), 100, dtype=np.uint8))
