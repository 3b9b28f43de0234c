"""90-ball card generation (R14): 3 x 9, five numbers a row, one or two a column, ascending.

A card is a *layout* (which of the 27 cells hold a number) filled with numbers. A layout is valid
when each row has 5 cells and each column 1 or 2, so exactly six columns hold two numbers. There
are 143,640 valid layouts: 84 choices of the six double columns times 1,710 layouts each. They
are enumerated once, in a fixed order, and a card picks one uniformly. Each column then gets one
or two different numbers of its range, uniformly, written top to bottom in ascending order.

Strips of six (optional): each block of six consecutive cards holds every number 1-90 exactly
once. Column c's numbers are shuffled and dealt to the six cards; how many each card gets (one or
two) is a 6 x 9 table whose card totals are 15 and column totals the column's size, built by
the Gale-Ryser greedy rule (each column, largest need first, goes to the cards that still need
the most, ties broken at random), which always succeeds for these totals.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from bingo.engine.stream import Stream
from bingo.engine.variants import Variant, geometry

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]

_GEO = geometry(Variant.B90)
#: First number of each column and how many numbers it may hold: 9, 10 x 7, 11.
COL_LOW = np.array([low for low, _ in _GEO.column_ranges], dtype=np.int64)
COL_SIZE = np.array([high - low + 1 for low, high in _GEO.column_ranges], dtype=np.int64)


@dataclass(frozen=True)
class Layouts:
    """Every valid 90-ball layout, grouped by which columns hold two numbers.

    ``top[i, c]`` / ``bottom[i, c]`` are the first and last row of column ``c`` holding a number
    in layout ``i`` (equal when the column holds one). Layouts ``start[p] .. start[p] + per``
    are those whose double columns form pattern ``p``; ``pattern_of[mask]`` maps a 9-bit mask of
    double columns to its pattern.
    """

    top: I64
    bottom: I64
    start: I64
    per_pattern: int
    pattern_of: I64

    @property
    def count(self) -> int:
        """Number of valid layouts (143,640)."""
        return int(self.top.shape[0])


@cache
def layouts() -> Layouts:
    """Enumerate the valid layouts (once per process)."""
    masks = np.array([sum(1 << c for c in cols) for cols in combinations(range(9), 5)], dtype=np.int16)
    x, y, z = masks[:, None, None], masks[None, :, None], masks[None, None, :]
    i, j, k = np.nonzero(((x | y | z) == 511) & ((x & y & z) == 0))
    rows = np.stack([masks[i], masks[j], masks[k]], axis=1).astype(np.int64)  # (L, 3) row masks
    doubles = (rows[:, 0] & rows[:, 1]) | (rows[:, 0] & rows[:, 2]) | (rows[:, 1] & rows[:, 2])
    order = np.argsort(doubles, kind="stable")
    rows, doubles = rows[order], doubles[order]

    # has[r][i, c] = 1 when row r of layout i holds a number in column c.
    has = [((rows[:, r, None] >> np.arange(9)) & 1).astype(np.int8) for r in range(3)]
    top = (1 - has[0]) * (2 - has[1])  # 0 if row 0 is filled, else 1 if row 1, else 2
    bottom = 2 - (1 - has[2]) * (2 - has[1])  # 2 if row 2 is filled, else 1 if row 1, else 0

    patterns, start, counts = np.unique(doubles, return_index=True, return_counts=True)
    if not np.all(counts == counts[0]):
        raise AssertionError("every double-column pattern has the same number of layouts")
    pattern_of = np.full(512, -1, dtype=np.int64)
    pattern_of[patterns] = np.arange(len(patterns))
    return Layouts(
        top=top.astype(np.int64),
        bottom=bottom.astype(np.int64),
        start=start.astype(np.int64),
        per_pattern=int(counts[0]),
        pattern_of=pattern_of,
    )


def _place(top: I64, bottom: I64, first: I64, second: I64) -> U8:
    """Cards from per-column rows and numbers: ``first`` goes to ``top``, ``second`` to ``bottom``.

    Single-number columns have ``top == bottom`` and ``first == second``.
    """
    n = top.shape[0]
    cells = np.zeros((n, 3, 9), dtype=np.uint8)
    card = np.arange(n)[:, None]
    col = np.arange(9)[None, :]
    cells[card, bottom, col] = second
    cells[card, top, col] = first
    return cells


def cards(stream: Stream, label: str, n: int) -> U8:
    """``n`` independent valid 90-ball cards from block ``label`` of ``stream``."""
    table = layouts()
    pick = stream.below(f"{label}/layout", table.count, (n,))
    top, bottom = table.top[pick], table.bottom[pick]
    # Two different positions in each column's range, uniformly, from one 64-bit draw:
    # a = x mod m, then b among the other m - 1 positions.
    x = stream.u64(f"{label}/numbers", n * 9).reshape(n, 9)
    size = COL_SIZE.astype(np.uint64)
    a = (x % size).astype(np.int64)
    b = ((x // size) % (size - np.uint64(1))).astype(np.int64)
    b = b + (b >= a)
    single = top == bottom
    low = np.minimum(a, b)
    first = np.where(single, a, low) + COL_LOW
    second = np.where(single, a, np.maximum(a, b)) + COL_LOW
    return _place(top, bottom, first, second)


#: How many extra (second) numbers each column spreads over the six cards of a strip.
_STRIP_EXTRAS = COL_SIZE - 6
#: Columns in the order the greedy rule fills them: largest need first (Gale-Ryser).
_STRIP_COLUMN_ORDER = np.argsort(-_STRIP_EXTRAS, kind="stable")


def strips(stream: Stream, label: str, count: int) -> U8:
    """``count`` strips (6 cards each) from block ``label``: each strip holds 1-90 exactly once."""
    table = layouts()
    # 1. Which cards get two numbers in which column: 6 extras per card, COL_SIZE - 6 per column.
    need = np.full((count, 6), 6, dtype=np.int64)
    extra = np.zeros((count, 6, 9), dtype=np.int64)
    ties = stream.below(f"{label}/ties", 1 << 20, (count, 9, 6))
    strip_index = np.arange(count)[:, None]
    for col in _STRIP_COLUMN_ORDER:
        wanted = int(_STRIP_EXTRAS[col])
        priority = need * (1 << 20) + ties[:, col, :]
        chosen = np.argsort(-priority, axis=1, kind="stable")[:, :wanted]
        extra[strip_index, chosen, col] = 1
        need[strip_index, chosen] -= 1
    if np.any(need != 0):
        raise AssertionError("the Gale-Ryser greedy rule left a strip incomplete")
    counts = extra + 1  # (count, 6, 9): 1 or 2 numbers per card and column

    # 2. A layout for each card among those with its double columns.
    double_mask = (extra << np.arange(9)).sum(axis=2)
    pattern = table.pattern_of[double_mask]
    pick = table.start[pattern] + stream.below(f"{label}/layout", table.per_pattern, (count, 6))
    top, bottom = table.top[pick], table.bottom[pick]

    # 3. Shuffle each column's numbers and deal them in card order.
    keys = stream.keys(f"{label}/shuffle", (count, 9, 11))
    keys[:, np.arange(11)[None, :] >= COL_SIZE[:, None]] = np.iinfo(np.uint64).max
    dealt = np.argsort(keys, axis=2, kind="stable")  # (count, 9, 11) positions in the column
    offsets = np.cumsum(counts, axis=1) - counts  # where each card's share starts
    first_pos = np.take_along_axis(dealt, offsets.transpose(0, 2, 1), axis=2).transpose(0, 2, 1)
    last_pos = np.take_along_axis(dealt, (offsets + counts - 1).transpose(0, 2, 1), axis=2).transpose(0, 2, 1)
    first = np.minimum(first_pos, last_pos) + COL_LOW
    second = np.maximum(first_pos, last_pos) + COL_LOW
    flat = _place(top.reshape(-1, 9), bottom.reshape(-1, 9), first.reshape(-1, 9), second.reshape(-1, 9))
    return flat
