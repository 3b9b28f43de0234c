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
    out = np.zeros(keys.shape[0], dtype=bool)
    order = np.argsort(keys)
    ordered = keys[order]
    equal = np.flatnonzero(ordered[1:] == ordered[:-1])
    if equal.size == 0:
        return out
    # Entries in a run of equal keys: all but the lowest index of each run are later duplicates.
    in_runs = np.unique(np.concatenate([equal, equal + 1]))
    values, where = ordered[in_runs], order[in_runs]
    by_value = np.lexsort((where, values))
    values, where = values[by_value], where[by_value]
    first = np.ones(values.shape[0], dtype=bool)
    first[1:] = values[1:] != values[:-1]
    out[where[~first]] = True
    return out


def repeats(keys: IntArray) -> int:
    """How many entries of 1-D ``keys`` equal an earlier entry (size minus distinct values)."""
    if keys.size == 0:
        return 0
    ordered = np.sort(keys)
    return int(np.count_nonzero(ordered[1:] == ordered[:-1]))


@cache
def _column_code_tables(variant: Variant) -> tuple[IntArray, IntArray, IntArray]:
    """Binomials, per-count offsets and per-column weights for ``card_keys``.

    A column holds at most 2 numbers (90-ball) or its fixed count, which keeps the product of
    the column radixes below 2**63 for every variant (75-ball, the largest: about 1.2e18).
    """
    geo = geometry(variant)
    most = max(geo.column_size(c) for c in range(geo.cols))
    biggest = 2 if geo.column_counts is None else max(geo.column_counts)
    binomial = np.array(
        [[math.comb(x, k) for k in range(biggest + 1)] for x in range(most + 1)], dtype=np.int64
    )
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
    return binomial, offsets, weights


def card_keys(variant: Variant, cells: npt.NDArray[np.uint8]) -> IntArray:
    """One exact int64 per card's set of numbers: equal keys exactly when the cards hold the same numbers.

    Each column's set of numbers is ranked among all sets of its size (colexicographic rank, after
    the counts of smaller sets), and the column ranks are read as digits of a mixed-radix number.
    """
    geo = geometry(variant)
    binomial, offsets, weights = _column_code_tables(variant)
    lows = np.array([low for low, _ in geo.column_ranges], dtype=np.int64)
    if geo.column_counts is None:
        return _card_keys_90(cells, lows, offsets, weights)
    values = np.sort(cells.astype(np.int64), axis=1)  # each column ascending, blanks first
    present = values > 0
    count = present.sum(axis=1)  # (n, cols)
    # Index of each number among its column's numbers: 0 for the smallest.
    place = np.cumsum(present, axis=1) - 1
    offset = np.where(present, values - lows[None, None, :], 0)
    ranks = np.where(present, binomial[offset, np.where(present, place + 1, 0)], 0).sum(axis=1)
    codes = offsets[np.arange(geo.cols)[None, :], count] + ranks
    return np.asarray(codes @ weights, dtype=np.int64)


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
