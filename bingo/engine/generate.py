"""Card-set generation: deterministic from (variant, size, seed, algorithm).

The same four inputs give the same cards on any machine, so an inspector can regenerate a set
from the record and compare fingerprints. With no seed, one is drawn from ``secrets`` and
recorded in the result.

What an algorithm gives for a seed never changes: a faster or different generator gets a new
name, and the old names keep regenerating the sets recorded with them. New sets of plain cards
use ``cards/2`` (issue 23): the ``cards/1`` steps, fed by AES-256-CTR instead of SHAKE-256 and,
on 80/75/30-ball cards, drawing each order inside a column from one 32-bit value instead of
sorting 64-bit keys (``bingo.engine.gengrid``); for 90-ball cards only the stream differs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

import numpy as np

from bingo.engine import gen90, gengrid
from bingo.engine._keys import card_keys, later_duplicates, row_codes_90
from bingo.engine.cardset import MAX_CARDS, CardSet
from bingo.engine.errors import GenerationError
from bingo.engine.stream import SEED_LIMIT, CounterStream, Stream, new_seed
from bingo.engine.variants import Variant, geometry, unique_lines_possible

#: Independent cards (every variant), as first made: SHAKE-256 and 64-bit sort keys. Sets
#: recorded with it regenerate as they always did; new sets use ``ALGORITHM_CARDS``.
ALGORITHM_CARDS_1 = "cards/1"
#: Independent cards (every variant) from AES-256-CTR and 32-bit order draws (issue 23).
ALGORITHM_CARDS_2 = "cards/2"
#: What new sets of independent cards use.
ALGORITHM_CARDS = ALGORITHM_CARDS_2
#: 90-ball strips of six cards holding 1-90 exactly once each.
ALGORITHM_STRIPS = "strips/1"
ALGORITHMS = (ALGORITHM_CARDS_1, ALGORITHM_CARDS_2, ALGORITHM_STRIPS)

#: Repair rounds for 90-ball sets before giving up (a K series needs one, 100,000 cards about four).
_ROUNDS_90 = 50
#: Strips are redrawn whole, which stops converging in very large sets: beyond this, refuse.
MAX_STRIP_CARDS = 180_000
#: 80/75/30-ball sets draw from the variant's different cards; past a quarter of them the
#: draws collide too often (30-ball: 432,000 cards), so larger requests are refused.
_GRID_SHARE = 4
#: Fresh attempts (deterministic sub-streams) when lines could be unique but the search
#: left one repeated (about 1 seed in 150 for 120 30-ball cards).
_GRID_ATTEMPTS = 5


def algorithm_for(*, strips: bool) -> str:
    """The algorithm a new set of plain cards or 90-ball strips uses."""
    return ALGORITHM_STRIPS if strips else ALGORITHM_CARDS


@cache
def capacity(variant: Variant) -> int:
    """How many different cards (sets of numbers) a set of ``variant`` could hold at most."""
    geo = geometry(variant)
    if geo.column_counts is None:
        # 90-ball: every row must be new, so at most a third of the possible rows' count.
        rows = 0
        sizes = [geo.column_size(c) for c in range(geo.cols)]
        for mask in range(1 << geo.cols):
            if bin(mask).count("1") == 5:
                rows += math.prod(sizes[c] for c in range(geo.cols) if mask >> c & 1)
        return rows // 3
    return math.prod(math.comb(geo.column_size(c), k) for c, k in enumerate(geo.column_counts))


def check_request(variant: Variant, size: int, seed: int, algorithm: str) -> None:
    """Raise GenerationError, naming the reason, unless the request can be met."""
    if algorithm not in ALGORITHMS:
        raise GenerationError(
            f"unknown algorithm {algorithm!r}: this engine knows {', '.join(ALGORITHMS)}",
            code="unknown_algorithm",
            params={"algorithm": algorithm, "known": ", ".join(ALGORITHMS)},
        )
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise GenerationError(
            f"size must be a whole number of cards above 0, not {size!r}",
            code="size_invalid",
            params={"size": size},
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise GenerationError(
            "seed must be a whole number from 0 to 2**256 - 1", code="seed_invalid", params={}
        )
    if size > capacity(variant):
        raise GenerationError(
            f"impossible: a {variant}-ball set can hold at most {capacity(variant):,} different cards (R14)",
            code="over_capacity",
            params={"variant": variant.value, "capacity": capacity(variant)},
        )
    if size > MAX_CARDS:
        raise GenerationError(
            f"a card set holds at most {MAX_CARDS:,} cards",
            code="over_max_cards",
            params={"max_cards": MAX_CARDS},
        )
    if variant is not Variant.B90 and size > capacity(variant) // _GRID_SHARE:
        raise GenerationError(
            f"a {variant}-ball set holds at most {capacity(variant) // _GRID_SHARE:,} cards "
            "(a quarter of all different cards, so that enough stay free to draw from)",
            code="over_grid_share",
            params={"variant": variant.value, "max_cards": capacity(variant) // _GRID_SHARE},
        )
    if algorithm == ALGORITHM_STRIPS:
        if variant is not Variant.B90:
            raise GenerationError(
                "strips of six exist only for 90-ball cards", code="strips_only_90", params={}
            )
        if size % 6:
            raise GenerationError(
                f"strips need a size that is a multiple of 6, not {size}",
                code="strips_size_not_multiple",
                params={"size": size},
            )
        if size > MAX_STRIP_CARDS:
            raise GenerationError(
                f"a set of strips holds at most {MAX_STRIP_CARDS:,} cards",
                code="strips_over_max",
                params={"max_cards": MAX_STRIP_CARDS},
            )


def generate_card_set(
    variant: Variant,
    size: int,
    seed: int | None = None,
    *,
    algorithm: str = ALGORITHM_CARDS,
    seed_source: Callable[[], int] = new_seed,
) -> CardSet:
    """Generate cards 1..size of ``variant``; GenerationError if the request cannot be met."""
    if seed is None:
        seed = seed_source()
    check_request(variant, size, seed, algorithm)
    source = CounterStream if algorithm == ALGORITHM_CARDS_2 else Stream
    stream = source(f"bingo-cards|{algorithm}|{variant.value}|{size}|{seed}")
    version: gengrid.Version = 2 if algorithm == ALGORITHM_CARDS_2 else 1
    if variant is Variant.B90:
        cells = _ninety(stream, size, strips=algorithm == ALGORITHM_STRIPS)
        repeated = 0
    else:
        for attempt in range(_GRID_ATTEMPTS):
            label = "cards" if attempt == 0 else f"cards/attempt{attempt}"
            cells, repeated = gengrid.cards(variant, stream, label, size, version=version)
            if repeated == 0 or not unique_lines_possible(variant, size):
                break
        else:
            raise GenerationError(
                "could not make every line of the set different (R14); try another seed",
                code="lines_not_unique",
                params={},
            )
    return CardSet(variant=variant, seed=seed, algorithm=algorithm, cells=cells, repeated_lines=repeated)


def _ninety(stream: Stream, size: int, *, strips: bool) -> gen90.U8:
    """90-ball cards with no repeated card or row (R14), redrawing offenders until none is left.

    Later cards are redrawn, earlier ones kept; with strips the whole strip of an offender is
    redrawn, so every strip stays complete.
    """
    block = 6 if strips else 1
    cells = gen90.strips(stream, "r0", size // 6) if strips else gen90.cards(stream, "r0", size)
    rows, cards = row_codes_90(cells), card_keys(Variant.B90, cells)
    for round_ in range(1, _ROUNDS_90 + 1):
        bad = later_duplicates(rows.ravel()).reshape(size, 3).any(axis=1) | later_duplicates(cards)
        if not bad.any():
            return cells
        blocks = np.unique(np.flatnonzero(bad) // block)
        label = f"r{round_}"
        fresh = (
            gen90.strips(stream, label, blocks.size) if strips else gen90.cards(stream, label, blocks.size)
        )
        where = (blocks[:, None] * block + np.arange(block)).ravel()
        cells[where] = fresh
        rows[where], cards[where] = row_codes_90(fresh), card_keys(Variant.B90, fresh)
    raise GenerationError(
        "could not make every row of the set different; try another seed", code="rows_not_unique", params={}
    )
