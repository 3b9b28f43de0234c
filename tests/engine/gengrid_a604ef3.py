"""The 80/75/30-ball generator of algorithm ``cards/1`` exactly as it stood at commit a604ef3,
before it was made faster (issue 23), kept as the oracle the engine must match card for card.

``cards/1`` may never change what a seed gives (docs/cards.md): this copy, and the
``later_duplicates`` it used, are frozen. Only the module docstring and the imports differ
from the original; ``generate`` repeats ``bingo.engine.generate``'s attempts loop around it.
Its search constants are module globals, so a test can shrink them here and in the engine alike.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from itertools import combinations, permutations, product

import numpy as np
import numpy.typing as npt

from bingo.engine._keys import card_keys, line_codes, repeats
from bingo.engine.errors import GenerationError
from bingo.engine.generate import _GRID_ATTEMPTS
from bingo.engine.stream import Stream
from bingo.engine.variants import LineKind, Variant, geometry, lines, unique_lines_possible

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]

#: Random re-ordering rounds before the card-by-card search.
_RANDOM_ROUNDS = 12
#: Card-by-card passes at most, and passes in a row without a new best before giving up.
_SEARCH_PASSES = 200
_STALE_PASSES = 30
#: Candidate orders tried per card when there are too many to try them all.
_CANDIDATES = 256
#: Card-by-card evaluations at most in one generation (bounds time on huge, saturated sets).
_SEARCH_BUDGET = 100_000


@cache
def _column_sets(variant: Variant, col: int) -> I64:
    """Every set of numbers column ``col`` may hold, ascending, one per row: shape (sets, count)."""
    geo = geometry(variant)
    assert geo.column_counts is not None
    low, high = geo.column_ranges[col]
    return np.array(list(combinations(range(low, high + 1), geo.column_counts[col])), dtype=np.int64)


@cache
def _cell_rows(variant: Variant, col: int) -> tuple[int, ...]:
    """The rows of column ``col`` that hold numbers (all but the free centre)."""
    geo = geometry(variant)
    return tuple(r for r in range(geo.rows) if (r, col) not in geo.free_cells)


class _CrossIndex:
    """Rows and diagonals (one number per column) numbered densely: a line's code is its
    position among every set of numbers a line on those columns could hold, so codes fit a
    counting array (30-ball 1,000; 80-ball 160,000; 75-ball 810,000 codes)."""

    def __init__(self, variant: Variant) -> None:
        geo = geometry(variant)
        cross = [line for line in lines(variant) if line.kind is not LineKind.COLUMN]
        width = max(len(line.cells) for line in cross)
        self.rows = np.zeros((len(cross), width), dtype=np.int64)
        self.cols = np.zeros((len(cross), width), dtype=np.int64)
        self.strides = np.zeros((len(cross), width), dtype=np.int64)
        self.lows = np.zeros((len(cross), width), dtype=np.int64)
        self.base = np.zeros(len(cross), dtype=np.int64)
        spaces: dict[tuple[int, ...], tuple[int, int]] = {}  # columns -> (base, size)
        self.space = 0
        self.floor_demand: Counter[tuple[int, ...]] = Counter()
        for j, line in enumerate(cross):
            cells = sorted(line.cells, key=lambda cell: cell[1])
            signature = tuple(c for _, c in cells)
            if signature not in spaces:
                size = math.prod(geo.column_size(c) for c in signature)
                spaces[signature] = (self.space, size)
                self.space += size
            self.floor_demand[signature] += 1
            self.base[j] = spaces[signature][0]
            stride = 1
            for w, (r, c) in enumerate(cells):
                self.rows[j, w], self.cols[j, w] = r, c
                self.lows[j, w] = geo.column_ranges[c][0]
                self.strides[j, w] = stride
                stride *= geo.column_size(c)
        self.sizes = {sig: size for sig, (_, size) in spaces.items()}

    def codes(self, cells: U8) -> I64:
        """Codes of every row and diagonal of every card: shape (cards, cross lines)."""
        values = cells[:, self.rows, self.cols].astype(np.int64)
        codes: I64 = ((values - self.lows) * self.strides).sum(axis=2) + self.base
        return codes


@cache
def _cross(variant: Variant) -> _CrossIndex:
    return _CrossIndex(variant)


def lower_bound(variant: Variant, n: int) -> int:
    """The fewest repeated line combinations any set of ``n`` cards of ``variant`` can have.

    A column position can hold only so many different sets, and lines drawing on the same
    columns share a space of possible sets: beyond those sizes the excess must repeat.
    """
    geo = geometry(variant)
    total = sum(max(0, n - len(_column_sets(variant, col))) for col in range(geo.cols))
    index = _cross(variant)
    for signature, per_card in index.floor_demand.items():
        total += max(0, per_card * n - index.sizes[signature])
    return total


def _deal_column_sets(variant: Variant, stream: Stream, label: str, n: int) -> list[I64]:
    """For each column, ``n`` number sets dealt from shuffled decks of all possible sets."""
    dealt = []
    for col in range(geometry(variant).cols):
        sets = _column_sets(variant, col)
        decks = -(-n // len(sets))
        picks = [
            np.argsort(stream.keys(f"{label}/deck/{col}/{d}", (len(sets),)), kind="stable")
            for d in range(decks)
        ]
        dealt.append(sets[np.concatenate(picks)[:n]])
    return dealt


def _shuffle(stream: Stream, label: str, column: I64) -> I64:
    """Each row of ``column`` (cards x count) in a random order."""
    order = np.argsort(stream.keys(label, column.shape), axis=1, kind="stable")
    return np.take_along_axis(column, order, axis=1)


def _assemble(variant: Variant, columns: list[I64]) -> U8:
    """Cards from per-column numbers in top-to-bottom order."""
    geo = geometry(variant)
    n = columns[0].shape[0]
    cells = np.zeros((n, geo.rows, geo.cols), dtype=np.uint8)
    for col, values in enumerate(columns):
        cells[:, list(_cell_rows(variant, col)), col] = values
    return cells


def _split(variant: Variant, cells: U8) -> list[I64]:
    """Per-column numbers, top to bottom, from cards (the inverse of ``_assemble``)."""
    return [cells[:, list(_cell_rows(variant, col)), col].astype(np.int64) for col in range(cells.shape[2])]


@cache
def _all_orders(variant: Variant) -> tuple[I64, ...] | None:
    """Every way to order each column's numbers, when few enough to try them all (30-ball: 216).

    One array per column, shape (orders, count): row o of each gives the o-th combination.
    """
    geo = geometry(variant)
    assert geo.column_counts is not None
    total = math.prod(math.factorial(k) for k in geo.column_counts)
    if total > _CANDIDATES:
        return None
    combos = list(product(*(list(permutations(range(k))) for k in geo.column_counts)))
    return tuple(np.array([combo[c] for combo in combos], dtype=np.int64) for c in range(geo.cols))


def cards(variant: Variant, stream: Stream, label: str, n: int) -> tuple[U8, int]:
    """``n`` cards of ``variant`` with as few repeated lines as this search finds, and that count."""
    columns = [
        _shuffle(stream, f"{label}/order/{c}", sets)
        for c, sets in enumerate(_deal_column_sets(variant, stream, label, n))
    ]
    cells = _separate_equal_cards(variant, stream, label, _assemble(variant, columns))
    floor = lower_bound(variant, n)
    index = _cross(variant)

    # Random rounds: re-order, all at once, every card repeating an earlier card's row/diagonal.
    repeated = repeated_lines(variant, cells)
    stale = 0
    for round_ in range(_RANDOM_ROUNDS):
        if repeated <= floor or stale >= 3:
            break
        codes = index.codes(cells)
        bad = np.flatnonzero(later_duplicates(codes.ravel()).reshape(codes.shape).any(axis=1))
        trial = cells.copy()
        retry = [
            _shuffle(stream, f"{label}/retry/{round_}/{c}", v)
            for c, v in enumerate(_split(variant, trial[bad]))
        ]
        trial[bad] = _assemble(variant, retry)
        trial_repeated = repeated_lines(variant, trial)
        if trial_repeated < repeated:
            cells, repeated, stale = trial, trial_repeated, 0
        else:
            stale += 1
    if repeated > floor:
        cells = _search(variant, stream, label, cells)
        repeated = repeated_lines(variant, cells)
    return cells, repeated


def repeated_lines(variant: Variant, cells: U8) -> int:
    """Lines in ``cells`` whose set of numbers already appeared on an earlier line."""
    return repeats(line_codes(variant, cells).ravel())


def _separate_equal_cards(variant: Variant, stream: Stream, label: str, cells: U8) -> U8:
    """Swap the first column of any card equal to an earlier one with another card's."""
    for round_ in range(100):
        dup = np.flatnonzero(later_duplicates(card_keys(variant, cells)))
        if dup.size == 0:
            return cells
        partners = stream.below(f"{label}/swap/{round_}", cells.shape[0], (dup.size,))
        for i, j in zip(dup.tolist(), partners.tolist(), strict=True):
            cells[[i, j], :, 0] = cells[[j, i], :, 0]
    raise GenerationError(
        "could not make every card of the set different (R14); try another seed",
        code="cards_not_unique",
        params={},
    )


def _search(variant: Variant, stream: Stream, label: str, cells: U8) -> U8:
    """Min-conflicts search: re-order one card at a time to the order whose rows and diagonals
    meet the fewest others, moving sideways among equally good orders (chosen at random) to
    leave plateaus. Stops when nothing repeats, after ``_STALE_PASSES`` passes without a new
    best, or when the evaluation budget is spent."""
    index = _cross(variant)
    every_order = _all_orders(variant)
    cells = cells.copy()
    codes = index.codes(cells)
    counts = np.bincount(codes.ravel(), minlength=index.space)
    best_cells, best_total = cells.copy(), int(np.maximum(counts - 1, 0).sum())
    budget, stale = _SEARCH_BUDGET, 0
    for pass_ in range(_SEARCH_PASSES):
        todo = np.flatnonzero((counts[codes] > 1).any(axis=1))[:budget]
        if todo.size == 0:
            break
        budget -= todo.size
        picks = stream.u64(f"{label}/search/{pass_}/ties", todo.size)
        for i, pick in zip(todo.tolist(), picks.tolist(), strict=True):
            mine = codes[i].copy()
            counts[mine] -= 1
            columns = _split(variant, cells[i : i + 1])
            if every_order is None:
                orders = tuple(
                    np.argsort(
                        stream.keys(f"{label}/search/{pass_}/{i}/{c}", (_CANDIDATES, v.shape[1])), axis=1
                    )
                    for c, v in enumerate(columns)
                )
            else:
                orders = every_order
            candidates = _assemble(variant, [v[0][order] for v, order in zip(columns, orders, strict=True)])
            candidate_codes = index.codes(candidates)
            cost = (counts[candidate_codes] > 0).sum(axis=1)
            least = int(cost.min())
            if least <= int((counts[mine] > 0).sum()):
                ties = np.flatnonzero(cost == least)
                choice = int(ties[pick % ties.size])
                cells[i] = candidates[choice]
                codes[i] = candidate_codes[choice]
            counts[codes[i]] += 1
        total = int(np.maximum(counts - 1, 0).sum())
        if total < best_total:
            best_cells, best_total, stale = cells.copy(), total, 0
        else:
            stale += 1
        if stale >= _STALE_PASSES or budget <= 0:
            break
    return best_cells


def later_duplicates(keys: I64) -> npt.NDArray[np.bool_]:
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


def generate(variant: Variant, size: int, seed: int) -> tuple[U8, int]:
    """The cells and repeated-line count ``generate_card_set(variant, size, seed)`` gave."""
    stream = Stream(f"bingo-cards|cards/1|{variant.value}|{size}|{seed}")
    for attempt in range(_GRID_ATTEMPTS):
        label = "cards" if attempt == 0 else f"cards/attempt{attempt}"
        cells, repeated = cards(variant, stream, label, size)
        if repeated == 0 or not unique_lines_possible(variant, size):
            return cells, repeated
    raise GenerationError("lines not unique", code="lines_not_unique", params={})
