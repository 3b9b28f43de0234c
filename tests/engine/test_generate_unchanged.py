"""The faster 80/75/30-ball generator (issue 23) gives, seed for seed, the cards ``cards/1`` always
gave: compared card for card with the generator as it stood before (``gengrid_a604ef3``), over
many seeds, on sizes that take every path — the random rounds, the search over every order
(30-ball), the search over random candidate orders (75/80-ball), the search stopped by its
budget — and on the pieces that replaced numpy sorts."""

from itertools import combinations

import numpy as np
import pytest

from bingo.engine import ALGORITHM_CARDS_1, Variant, generate_card_set, gengrid
from bingo.engine.cardset import CardSet
from bingo.engine.stream import Stream
from tests.engine import gengrid_a604ef3 as before


def assert_unchanged(variant: Variant, size: int, seed: int) -> None:
    cells, repeated = before.generate(variant, size, seed)
    now = generate_card_set(variant, size, seed, algorithm=ALGORITHM_CARDS_1)
    assert now.repeated_lines == repeated
    assert np.array_equal(now.cells, cells), f"{variant}-ball, {size} cards, seed {seed}: the cards changed"


# Sizes per variant: below any forced repeat, at the K series, and past the point where the
# search runs (30-ball from 121 cards, 75-ball about 6,000, 80-ball past 4,845).
CASES = [
    (Variant.B30, 60, range(0, 40)),
    (Variant.B30, 150, range(0, 40)),
    (Variant.B30, 180, range(0, 12)),
    (Variant.B30, 1000, range(0, 3)),
    (Variant.B75, 240, range(0, 40)),
    (Variant.B75, 1680, range(0, 25)),
    (Variant.B75, 6000, range(0, 8)),
    (Variant.B80, 1680, range(0, 25)),
    (Variant.B80, 6000, range(0, 8)),
]


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "size", "seeds"), CASES, ids=[f"{v}-{n}" for v, n, _ in CASES])
def test_the_cards_of_every_seed_are_the_ones_cards_1_always_gave(variant, size, seeds):
    for seed in seeds:
        assert_unchanged(variant, size, seed)


@pytest.mark.parametrize(
    ("variant", "size", "seed"),
    [(Variant.B75, 20_000, 1), (Variant.B75, 9_000, 7), (Variant.B80, 30_000, 3), (Variant.B30, 4_000, 2)],
)
def test_the_cards_are_unchanged_when_the_search_budget_runs_out(monkeypatch, variant, size, seed):
    """Large sets spend the search's whole budget (100,000 evaluations at a million cards);
    a smaller budget, set alike in both, takes the same path in a fraction of the time."""
    for module in (gengrid, before):
        monkeypatch.setattr(module, "_SEARCH_BUDGET", 600)
    assert_unchanged(variant, size, seed)


def test_the_cards_are_unchanged_with_chunks_that_split_a_pass(monkeypatch):
    """The search works out candidates a chunk of cards at a time; a card's choice still sees
    the cards before it in the same chunk and in earlier chunks."""
    monkeypatch.setattr(gengrid, "_CHUNK", 7)
    for seed in range(4):
        assert_unchanged(Variant.B75, 6000, seed)
        assert_unchanged(Variant.B30, 180, seed)


def test_a_large_set_keeps_its_fingerprint():
    """Pinned from the generator before the change (the search runs in each)."""
    pinned = {
        (Variant.B75, 6000): "602789e4bf04401790b13536c76004e3ae7b167468ac997685b175665073dbb0",
        (Variant.B80, 10000): "5f7bffa413508b975f44abf117efd30bc0eab19097bde94709fe083c82627420",
        (Variant.B30, 1000): "91082e84d8f1eca9865350fe57bb7fefc71e24c2360882e9a2a16f7c57883514",
    }
    for (variant, size), fingerprint in pinned.items():
        assert (
            generate_card_set(variant, size, seed=1, algorithm=ALGORITHM_CARDS_1).fingerprint == fingerprint
        )


@pytest.mark.parametrize("k", [3, 4, 5])
@pytest.mark.parametrize("kind", [None, "stable"])
def test_sorting_orders_are_numpys_argsort_ties_included(k, kind):
    rng = np.random.default_rng(k)
    keys = rng.integers(0, 2**64, size=(300, 40, k), dtype=np.uint64)
    # Rows whose keys share their upper 32 bits, and rows with equal keys outright.
    keys[0, :20, 1] = keys[0, :20, 0] ^ np.uint64(1)
    keys[1, :20, 2] = keys[1, :20, 0]
    keys[2, :, :] = 5
    every, _number = gengrid._orders(k)
    found = every[gengrid._sorting_orders(keys, kind=kind)]
    assert np.array_equal(found, np.argsort(keys, axis=-1, kind=kind))


@pytest.mark.parametrize("k", [3, 4, 5])
def test_every_way_of_comparing_different_keys_has_its_order(k):
    every, number = gengrid._orders(k)
    pairs = list(combinations(range(k), 2))
    for o, order in enumerate(every.tolist()):
        keys = np.empty(k)
        keys[order] = np.arange(k)  # the o-th order sorts these keys
        way = sum(1 << bit for bit, (a, b) in enumerate(pairs) if keys[a] > keys[b])
        assert number[way] == o
    assert np.count_nonzero(number >= 0) == len(every)


@pytest.mark.parametrize("variant", [Variant.B80, Variant.B75, Variant.B30])
def test_repeated_lines_count_like_sorting_every_line(variant):
    from bingo.engine._keys import line_codes, repeats

    for size in (50, 1680):
        cells = generate_card_set(variant, size, seed=11).cells.copy()
        cells[-1] = cells[0]  # a whole card again: every one of its lines repeats
        assert gengrid.repeated_lines(variant, cells) == repeats(line_codes(variant, cells).ravel())


def test_the_frozen_generator_is_what_the_pinned_fingerprints_say():
    """The oracle itself still gives the K series' pinned fingerprint (tests/engine/test_generate.py)."""
    cells, repeated = before.generate(Variant.B75, 1680, 1)
    card_set = CardSet(variant=Variant.B75, seed=1, algorithm="cards/1", cells=cells, repeated_lines=repeated)
    assert card_set.fingerprint == "9d24b3569fe1ab2900140ace7a182fec3464a3d7e79dfe25a4999f10553feeed"


def test_stream_rows_are_the_blocks_read_one_by_one():
    stream = Stream("bingo-cards|cards/1|75|20000|1")
    labels = [f"cards/search/0/{i}/2" for i in (5, 17, 19999)]
    rows = stream.u64_rows(labels, 1024)
    assert rows.shape == (3, 1024)
    for label, row in zip(labels, rows, strict=True):
        assert np.array_equal(row, stream.u64(label, 1024))
    assert stream.u64_rows([], 4).shape == (0, 4)


def test_distinct_counts_alike_by_sorting_and_by_counting():
    rng = np.random.default_rng(3)
    for size, space in [(0, 10), (1, 10), (50, 10_000), (5_000, 10_000), (200_000, 810_000)]:
        codes = rng.integers(0, space, size=size)
        assert gengrid._distinct(codes, space) == len(set(codes.tolist()))
