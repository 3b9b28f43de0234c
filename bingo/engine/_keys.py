"""Vectorised keys the generator uses to find repeated cards and lines."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import numpy.typing as npt

from bingo.engine.variants import Variant, geometry, lines

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def later_duplicates(keys: IntArray) -> BoolArray:
    """True for every entry of 1-D ``keys`` equal to an earlier entry (the first stays False)."""
    n = keys.shape[0]
    if n < 2:
        return np.zeros(n, dtype=bool)
    order = np.argsort(keys)
    ordered = keys[order]
    starts_run = np.empty(n, dtype=bool)
    starts_run[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts_run[1:])
    runs = np.flatnonzero(starts_run)
    if runs.size == n:
        return np.zeros(n, dtype=bool)
    # In each run of equal keys the lowest index is the first; every other entry is a later one.
    # (One pass over the runs: picking the runs' members with np.unique and a lexsort took 30 s
    # for the 7,000,000 lines of a million 75-ball cards.)
    out = np.ones(n, dtype=bool)
    out[np.minimum.reduceat(order, runs)] = False
    return out


def later_duplicates_below(keys: IntArray, space: int) -> BoolArray:
    """``later_duplicates(keys)`` for keys in ``[0, space)``: each key's first index found by
    ``np.minimum.at`` over a counting array instead of sorting (the 7,000,000 lines of a
    million 75-ball cards in 0.1 s rather than 0.5 s)."""
    places = np.arange(keys.size)
    first = np.full(space, keys.size, dtype=np.int64)
    np.minimum.at(first, keys, places)
    out: BoolArray = first[keys] != places
    return out


def repeats(keys: IntArray) -> int:
    """How many entries of 1-D ``keys`` equal an earlier entry (size minus distinct values)."""
    if keys.size == 0:
        return 0
    ordered = np.sort(keys)
    return int(np.count_nonzero(ordered[1:] == ordered[:-1]))


@cache
def _column_code_tables(variant: Variant) -> tuple[IntArray, IntArray]:
    """Per-count offsets and per-column weights for ``card_keys``.

    A column holds at most 2 numbers (90-ball) or its fixed count, which keeps the product of
    the column radixes below 2**63 for every variant (75-ball, the largest: about 1.2e18).
    """
    geo = geometry(variant)
    biggest = 2 if geo.column_counts is None else max(geo.column_counts)
    offsets = np.zeros((geo.cols, biggest + 1), dtype=np.int64)
    radix = []
    for c in range(geo.cols):
        m = geo.column_size(c)
        allowed = 2 if geo.column_counts is None else geo.column_counts[c]
        running = 0
        for k in range(allowed + 1):
            offsets[c, k] = running
            running += math.comb(m, k)
        radix.append(running)
    if math.prod(radix) >= 2**63:
        raise AssertionError("card keys would overflow int64")
    weights = np.array([math.prod(radix[:c]) for c in range(geo.cols)], dtype=np.int64)
    return offsets, weights


def card_keys(variant: Variant, cells: npt.NDArray[np.uint8]) -> IntArray:
    """One exact int64 per card's set of numbers: equal keys exactly when the cards hold the same numbers.

    Each column's set of numbers is ranked among all sets of its size (colexicographic rank, after
    the counts of smaller sets), and the column ranks are read as digits of a mixed-radix number.
    """
    geo = geometry(variant)
    offsets, weights = _column_code_tables(variant)
    lows = np.array([low for low, _ in geo.column_ranges], dtype=np.int64)
    if geo.column_counts is None:
        return _card_keys_90(cells, lows, offsets, weights)
    keys = np.zeros(cells.shape[0], dtype=np.int64)
    for c, (low, high) in enumerate(geo.column_ranges):
        # The column's numbers as a bitmask (blanks left out), then its rank by table.
        mask = np.zeros(cells.shape[0], dtype=np.int64)
        for r in range(geo.rows):
            value = cells[:, r, c].astype(np.int64)
            mask |= np.where(value > 0, np.left_shift(1, np.maximum(value - low, 0)), 0)
        code = offsets[c, np.bitwise_count(mask)] + _colex_ranks(high - low + 1)[mask]
        keys += code * weights[c]
    return keys


@cache
def _colex_ranks(size: int) -> IntArray:
    """For every subset of ``range(size)``, by bitmask, its colexicographic rank among the
    subsets of its size: the sum of C(a, i) over its members a, the i-th smallest (from 1).
    (One table a column range: 80-ball, the widest, 2**20 entries.)"""
    masks = np.arange(1 << size, dtype=np.int64)
    binomial = np.array([[math.comb(a, i) for i in range(size + 2)] for a in range(size)], dtype=np.int64)
    rank = np.zeros(1 << size, dtype=np.int64)
    below = np.zeros(1 << size, dtype=np.int64)
    for a in range(size):
        member = (masks >> a) & 1
        below += member
        rank += member * binomial[a, below]
    rank.setflags(write=False)
    return rank


def _card_keys_90(
    cells: npt.NDArray[np.uint8], lows: IntArray, offsets: IntArray, weights: IntArray
) -> IntArray:
    """``card_keys`` for 90-ball columns of one or two numbers, from their smallest and largest."""
    values = cells.astype(np.int64)
    count = (values > 0).sum(axis=1)
    largest = values.max(axis=1) - lows
    smallest = np.where(values == 0, 255, values).min(axis=1) - lows
    pair_rank = smallest + largest * (largest - 1) // 2  # colex rank of {smallest, largest}
    codes = np.where(count == 1, offsets[:, 1] + largest, offsets[:, 2] + pair_rank)
    return np.asarray(codes @ weights, dtype=np.int64)


_BASE91 = 91 ** np.arange(9, dtype=np.int64)


def row_codes_90(cells: npt.NDArray[np.uint8]) -> IntArray:
    """90-ball rows as exact codes: a row's nine cells as digits in base 91, shape (cards, 3).

    Each number belongs to one column, so the cells of a row are fixed by its set of numbers.
    """
    return np.asarray(cells.astype(np.int64) @ _BASE91, dtype=np.int64)


def line_codes(variant: Variant, cells: npt.NDArray[np.uint8]) -> IntArray:
    """Every line of every card as one integer per set of numbers: shape (cards, lines).

    A line's numbers, sorted and padded in front with zeros to 5 places, are read as the digits
    of a base-91 number, so two lines get the same code exactly when they hold the same numbers.
    Every line of every variant holds at most 5 numbers, and 91**5 fits an int64.
    """
    n = cells.shape[0]
    all_lines = lines(variant)
    width = max(5, *(len(line.cells) for line in all_lines))
    gathered = np.zeros((n, len(all_lines), width), dtype=np.int64)
    for j, line in enumerate(all_lines):
        rows = [r for r, _ in line.cells]
        cols = [c for _, c in line.cells]
        gathered[:, j, : len(rows)] = cells[:, rows, cols]
    gathered.sort(axis=2)
    # Blanks (zeros) sort first; the numbers are the last 5 places.
    top = gathered[:, :, -5:]
    return np.asarray(top @ _BASE91[:5], dtype=np.int64)
