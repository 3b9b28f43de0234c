"""The shared maths of detection: the rules flattened for numpy, and worked out over a block of cards (R49).

``layout_of`` turns a game's ``PrizeRules`` into the flat cell positions of each target and the
targets of each cell position. ``from_scratch`` works out every target of a block of cards
against the balls drawn, in one numpy pass: the numbers each target still misses, and the ball
at which it completed — the latest draw position among its cells, whenever that was (R49).
``card_check`` uses it for one card, the ``Detector`` to start from the balls already drawn.
The package's own: nothing outside ``bingo.engine.detection`` imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from bingo.engine.cardset import Cells
from bingo.engine.detection.rules import PrizeRules
from bingo.engine.variants import geometry

Indices = npt.NDArray[np.int64]
Counts = npt.NDArray[np.uint8]


#: Rank of an undrawn number in a "rank of each cell" array; balls drawn rank 1..90, blanks 0.
_UNDRAWN = 255


@dataclass(frozen=True, eq=False)
class Layout:
    """The rules flattened for numpy: flat cell positions of each target, targets of each cell."""

    rules: PrizeRules
    positions: tuple[npt.NDArray[np.intp], ...]
    prize_of: tuple[int, ...]
    by_prize: tuple[tuple[int, ...], ...]
    targets_at: tuple[tuple[int, ...], ...]
    #: capacity[t]: the numbers target t holds on a card of the variant.
    capacity: tuple[int, ...]


@cache
def layout_of(rules: PrizeRules) -> Layout:
    """The flat layout of ``rules`` (cached)."""
    geo = geometry(rules.variant)
    targets = rules.targets
    positions = tuple(np.array([r * geo.cols + c for r, c in t.cells], dtype=np.intp) for t in targets)
    prize_of = tuple(rules.prizes.index(t.prize) for t in targets)
    by_prize = tuple(tuple(i for i, k in enumerate(prize_of) if k == p) for p in range(len(rules.prizes)))
    targets_at = tuple(
        tuple(i for i, pos in enumerate(positions) if p in pos.tolist()) for p in range(geo.cells)
    )
    if geo.column_counts is None:
        # R14: a 90-ball card holds five numbers in each row, the other cells blank.
        per_row = geo.numbers_per_card // geo.rows
        capacity = tuple(per_row * len({r for r, _ in t.cells}) for t in targets)
    else:
        capacity = tuple(len(t.cells) for t in targets)
    return Layout(rules, positions, prize_of, by_prize, targets_at, capacity)


def _ranks(drawn: Sequence[int]) -> npt.NDArray[np.uint8]:
    """Rank of each cell value: 0 for a blank, the ball's position in the draw, or _UNDRAWN."""
    rank = np.full(256, _UNDRAWN, dtype=np.uint8)
    rank[0] = 0
    rank[list(drawn)] = np.arange(1, len(drawn) + 1, dtype=np.uint8)
    return rank


@dataclass(frozen=True, eq=False)
class Scratch:
    """Targets of a block of cards against a list of balls, worked out in one pass."""

    #: missing[t][i]: numbers of target t card i still needs.
    missing: tuple[Counts, ...]
    #: at[t][i]: the ball count at which target t of card i completed; 0 if it has not.
    at: tuple[Counts, ...]


def from_scratch(layout: Layout, flat: Cells, drawn: Sequence[int]) -> Scratch:
    """Every target of every card (rows of ``flat``) against ``drawn``, from scratch.

    A cell's rank is the position of its number in the draw (blanks 0, undrawn _UNDRAWN): a
    target misses its undrawn cells and completed at the highest rank of its cells (R49).
    Worked out one cell position at a time, so that a million cards need a few arrays of a
    million bytes, not ranks of every cell at once (27 MB, and as much again per target).
    """
    rank_of = _ranks(drawn)
    missing: list[Counts] = []
    at: list[Counts] = []
    for pos in layout.positions:
        miss = np.zeros(flat.shape[0], dtype=np.uint8)
        done = np.zeros(flat.shape[0], dtype=np.uint8)
        for p in pos.tolist():
            rank = rank_of[flat[:, p]]
            miss += rank == _UNDRAWN
            np.maximum(done, rank, out=done)
        done[miss > 0] = 0
        missing.append(miss)
        at.append(done)
    return Scratch(tuple(missing), tuple(at))
