"""80-, 75- and 30-ball card generation (R64-R65, R70-R72, R81-R82) with unique lines (R14 adapted).

Every column of these cards holds a fixed count of numbers from its range, in any order. The
lines that can win (rows, columns, diagonals) should not repeat inside a set wherever the size
allows it (R14 applied "with the necessary adaptations", R62, R68, R78):

* Columns. Column ``c`` can hold only C(range, count) different sets of numbers (80-ball 4,845;
  75-ball 3,003, or 1,365 for the N column; 30-ball 120). Each column position gets its sets by
  dealing shuffled decks of all possible sets, so no set repeats until all have been used, and
  a set repeats at most once more than any other: the fewest repeats any set of that size can have.
* Rows and diagonals take one number from each column, so their numbers depend on the order
  inside columns. Orders are drawn at random, then cards whose rows or diagonals repeat an
  earlier card's are re-ordered: first all at once at random, then one card at a time choosing,
  among candidate orders, the one that meets the fewest lines already present, until nothing
  repeats, the count reaches its lower bound, or a pass improves nothing.
* Whole cards. Two cards with the same numbers would need every column set to repeat; should it
  happen, the later card swaps its first column with another card's, which keeps the column
  repeats unchanged.

The count of repeated line combinations that remains is returned and recorded with the set.

What a seed gives is fixed for good (``cards/1``, docs/cards.md), so speed comes only from doing
the same work in fewer, larger numpy steps: the search takes cards one at a time, as it must
(each choice sees the lines the cards before it left), but works out every card's candidate
orders and their line codes a chunk of cards at once, and reads each candidate's order from
how its keys compare in pairs rather than sorting 256 rows of keys per column per card. A copy
of the generator as it was (tests/engine/gengrid_a604ef3.py) holds it to the same cards.
What is left at a million cards is mostly SHAKE-256 itself: the search reads 48 kB of key
stream per card it re-orders, 4.9 GB for its 100,000 evaluations.

``cards/2`` (``version=2``, issue 23) takes the same steps on an AES-256-CTR stream with one
32-bit draw per order (``_order_draws``; 5 kB a card the search takes), redraws at random only
lines whose space has room for all of them to differ, and stops the search at the lower bound:
a million 75-ball cards in under 4 s instead of over 20, as few repeated lines or fewer.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from itertools import combinations, permutations, product
from typing import Literal

import numpy as np
import numpy.typing as npt

from bingo.engine._keys import card_keys, later_duplicates, later_duplicates_below
from bingo.engine.errors import GenerationError
from bingo.engine.stream import Stream
from bingo.engine.variants import LineKind, Variant, geometry, lines

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
SortKind = Literal["quicksort", "mergesort", "heapsort", "stable"]
#: 1: ``cards/1`` (SHAKE-256, 64-bit sort keys); 2: ``cards/2`` (AES-256-CTR, one 32-bit draw per order).
Version = Literal[1, 2]

#: Random re-ordering rounds before the card-by-card search.
_RANDOM_ROUNDS = 12
#: Card-by-card passes at most, and passes in a row without a new best before giving up.
_SEARCH_PASSES = 200
_STALE_PASSES = 30
#: Candidate orders tried per card when there are too many to try them all.
_CANDIDATES = 256
#: Card-by-card evaluations at most in one generation (bounds time on huge, saturated sets).
_SEARCH_BUDGET = 100_000
#: Cards whose candidate orders the search works out at once (memory: about 60 kB a card).
_CHUNK = 512


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
        self.base = np.zeros(len(cross), dtype=np.int64)
        #: signature[j]: the columns line j draws on, in order.
        self.signature: list[tuple[int, ...]] = []
        #: terms[j]: line j's cells, by column, as (row, column, place among the column's
        #: numbers from the top, the column's lowest number, stride).
        self.terms: list[list[tuple[int, int, int, int, int]]] = []
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
            self.signature.append(signature)
            self.base[j] = spaces[signature][0]
            terms, stride = [], 1
            for r, c in cells:
                terms.append((r, c, _cell_rows(variant, c).index(r), geo.column_ranges[c][0], stride))
                stride *= geo.column_size(c)
            self.terms.append(terms)
        self.sizes = {sig: size for sig, (_, size) in spaces.items()}

    def floor(self, n: int) -> int:
        """The fewest repeated rows and diagonals ``n`` cards can have (see ``lower_bound``)."""
        return sum(max(0, per_card * n - self.sizes[sig]) for sig, per_card in self.floor_demand.items())

    def room(self, n: int) -> npt.NDArray[np.bool_]:
        """For each row and diagonal, whether its space holds as many sets of numbers as ``n``
        cards put there: only there can every one of those lines be different."""
        return np.array([self.floor_demand[sig] * n <= self.sizes[sig] for sig in self.signature])

    def codes(self, cells: U8) -> I64:
        """Codes of every row and diagonal of every card: shape (cards, cross lines)."""
        codes = np.empty((cells.shape[0], self.base.size), dtype=np.int64)
        for j, terms in enumerate(self.terms):
            code = np.full(cells.shape[0], self.base[j], dtype=np.int64)
            for row, col, _place, low, stride in terms:
                code += (cells[:, row, col].astype(np.int64) - low) * stride
            codes[:, j] = code
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
    return total + _cross(variant).floor(n)


def _deal_column_sets(variant: Variant, stream: Stream, label: str, n: int, version: Version) -> list[I64]:
    """For each column, ``n`` number sets dealt from shuffled decks of all possible sets.

    A deck is shuffled by the stable argsort of one 64-bit key per set: in ``cards/1`` each deck
    ``d`` of column ``c`` reads block ``{label}/deck/{c}/{d}``, in ``cards/2`` the decks of a
    column read one block ``{label}/deck/{c}`` one after the other.
    """
    dealt = []
    for col in range(geometry(variant).cols):
        sets = _column_sets(variant, col)
        decks = -(-n // len(sets))
        if version == 1:
            picks = np.concatenate(
                [
                    np.argsort(stream.keys(f"{label}/deck/{col}/{d}", (len(sets),)), kind="stable")
                    for d in range(decks)
                ]
            )
        else:
            keys = stream.keys(f"{label}/deck/{col}", (decks, len(sets)))
            picks = np.argsort(keys, axis=1, kind="stable").ravel()
        dealt.append(sets[picks[:n]])
    return dealt


def _shuffle(stream: Stream, label: str, column: I64, version: Version) -> I64:
    """Each row of ``column`` (cards x count) in a random order: in ``cards/1`` the stable argsort
    of its keys, in ``cards/2`` the order numbered by one 32-bit draw (``_order_draws``)."""
    every, _number = _orders(column.shape[1])
    if version == 1:
        ids = _sorting_orders(stream.keys(label, column.shape), kind="stable")
    else:
        ids = _order_draws(stream.u32(label, column.shape[0]), every.shape[0])
    return np.take_along_axis(column, every[ids], axis=1)


def _order_draws(draws: npt.NDArray[np.uint32], orders: int) -> npt.NDArray[np.intp]:
    """``cards/2``'s orders: 32-bit draw ``x`` picks order ``x mod orders`` of ``_orders(k)``.

    ``orders`` is k! (at most 120), so some orders have one draw more than others out of 2**32:
    each order's chance is within 2**-32 of 1/k!, a relative bias below 120 / 2**32 < 2**-25
    (3e-8), far below anything a test or a player could detect, for a quarter of the key stream
    (and no sorting) of ``cards/1``'s five 64-bit sort keys per order.
    """
    return (draws % np.uint32(orders)).astype(np.intp)


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


def cards(variant: Variant, stream: Stream, label: str, n: int, *, version: Version = 1) -> tuple[U8, int]:
    """``n`` cards of ``variant`` with as few repeated lines as this search finds, and that count.

    ``version`` 1 is ``cards/1``, 2 ``cards/2``: the same steps, drawing their orders from less
    key stream (``_order_draws``), fed by a ``CounterStream`` (bingo.engine.generate).
    """
    columns = [
        _shuffle(stream, f"{label}/order/{c}", sets, version)
        for c, sets in enumerate(_deal_column_sets(variant, stream, label, n, version))
    ]
    cells = _separate_equal_cards(variant, stream, label, _assemble(variant, columns))
    floor = lower_bound(variant, n)
    index = _cross(variant)

    # Random rounds: re-order, all at once, every card repeating an earlier card's row/diagonal;
    # in cards/2 only on lines whose space has room for all of them to differ: where it has not,
    # nearly every card repeats one and a round is a fresh random draw (a million 75-ball
    # cards: four rounds of 1.5 s that gained 138 of 11,180,664), which the search does better.
    room = index.room(n) if version == 2 else np.ones(index.base.size, dtype=bool)
    repeated = repeated_lines(variant, cells)
    stale = 0
    for round_ in range(_RANDOM_ROUNDS):
        if repeated <= floor or stale >= 3:
            break
        codes = index.codes(cells)
        later = later_duplicates_below(codes.ravel(), index.space).reshape(codes.shape)
        bad = np.flatnonzero(later[:, room].any(axis=1))
        if bad.size == 0:  # then a round changes nothing (and its draws are never read)
            break
        trial = cells.copy()
        retry = [
            _shuffle(stream, f"{label}/retry/{round_}/{c}", v, version)
            for c, v in enumerate(_split(variant, trial[bad]))
        ]
        trial[bad] = _assemble(variant, retry)
        trial_repeated = repeated_lines(variant, trial)
        if trial_repeated < repeated:
            cells, repeated, stale = trial, trial_repeated, 0
        else:
            stale += 1
    if repeated > floor:
        cells = _search(variant, stream, label, cells, version)
        repeated = repeated_lines(variant, cells)
    return cells, repeated


def repeated_lines(variant: Variant, cells: U8) -> int:
    """Lines in ``cells`` whose set of numbers already appeared on an earlier line.

    Two lines can hold the same numbers only if they draw them from the same columns: a column
    line's numbers all come from its column's range, a row's or diagonal's one from each column
    it crosses. So the repeats are counted within each such space, where every set of numbers
    has one code (a column's set as a bitmask, a row's or diagonal's ``_CrossIndex`` code), by
    counting the distinct codes: the same count as sorting every line's numbers (the engine's
    first way, ``_keys.line_codes``; the tests hold the two equal), in a counting pass for a
    large set and by sorting the few codes of a small one.
    """
    geo = geometry(variant)
    n = cells.shape[0]
    if n == 0:
        return 0
    index = _cross(variant)
    codes = index.codes(cells)
    repeated = codes.size - _distinct(codes.ravel(), index.space)
    if LineKind.COLUMN in geo.line_kinds:
        for col, (low, high) in enumerate(geo.column_ranges):
            mask = np.zeros(n, dtype=np.int64)
            for row in _cell_rows(variant, col):
                mask |= np.left_shift(1, cells[:, row, col].astype(np.int64) - low)
            repeated += n - _distinct(mask, 1 << (high - low + 1))
    return repeated


def _distinct(codes: I64, space: int) -> int:
    """How many different values ``codes`` (each in ``[0, space)``) holds."""
    if codes.size * 16 < space:  # few codes: sort them (np.unique's hashing is slower here)
        ordered = np.sort(codes)
        return int(np.count_nonzero(ordered[1:] != ordered[:-1])) + int(ordered.size > 0)
    return int(np.count_nonzero(np.bincount(codes, minlength=space)))


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


def _search(variant: Variant, stream: Stream, label: str, cells: U8, version: Version) -> U8:
    """Min-conflicts search: re-order one card at a time to the order whose rows and diagonals
    meet the fewest others, moving sideways among equally good orders (chosen at random) to
    leave plateaus. Stops when nothing repeats, after ``_STALE_PASSES`` passes without a new
    best, or when the evaluation budget is spent; in ``cards/2`` also as soon as the rows and
    diagonals repeat no more than they must (``_CrossIndex.floor``), which at a million 75-ball
    cards comes after about a tenth of the budget that ``cards/1`` spends whole.

    The cards are taken one at a time, each against the lines the cards before it left; what
    does not depend on those lines (each card's candidate orders and their line codes) is
    worked out for ``_CHUNK`` cards at once (``_Candidates``).
    """
    index = _cross(variant)
    cells = cells.copy()
    codes = index.codes(cells)
    counts = np.bincount(codes.ravel(), minlength=index.space)
    # present[code]: whether any card holds that line now (counts > 0), the cost's measure.
    present = (counts > 0).view(np.uint8)
    best_cells, best_total = cells.copy(), int(np.maximum(counts - 1, 0).sum())
    # The same count kept as cards change: a card's lines are all different, so one whose
    # lines met ``keep`` others and now meet ``least`` leaves ``keep - least`` fewer repeats.
    total = best_total
    enough = index.floor(cells.shape[0]) if version == 2 else -1
    budget, stale = _SEARCH_BUDGET, 0
    for pass_ in range(_SEARCH_PASSES):
        todo = np.flatnonzero((counts[codes] > 1).any(axis=1))[:budget]
        if todo.size == 0:
            break
        budget -= todo.size
        picks = stream.u64(f"{label}/search/{pass_}/ties", todo.size).tolist()
        for start in range(0, todo.size, _CHUNK):
            chunk = todo[start : start + _CHUNK]
            found = _Candidates(variant, stream, f"{label}/search/{pass_}", cells, chunk, start, version)
            chosen = np.full(chunk.size, -1, dtype=np.intp)
            for b, i in enumerate(chunk.tolist()):
                mine = codes[i]
                left = counts[mine] - 1
                counts[mine] = left
                present[mine] = left > 0
                options = found.codes[b]
                cost = present.take(options).sum(axis=0)
                least = cost.min()
                keep = present.take(mine).sum()
                if least <= keep:
                    ties = np.flatnonzero(cost == least)
                    chosen[b] = ties[picks[start + b] % ties.size]
                    codes[i] = options[:, chosen[b]]
                    total -= int(keep - least)
                counts[codes[i]] += 1
                present[codes[i]] = 1
                if total <= enough:
                    break
            found.apply(cells, chosen)
            if total <= enough:
                break
        if total < best_total:
            best_cells, best_total, stale = cells.copy(), total, 0
        else:
            stale += 1
        if stale >= _STALE_PASSES or budget <= 0 or total <= enough:
            break
    return best_cells


@cache
def _orders(k: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Every order of ``k`` things, shape (k!, k); and, for each way ``k`` different keys can
    compare (bit ``p`` set when the ``p``-th pair of ``combinations(range(k), 2)`` is in
    descending order), the number of the order that sorts them (-1 for impossible ways)."""
    every = np.array(list(permutations(range(k))), dtype=np.intp)
    pairs = list(combinations(range(k), 2))
    number = np.full(1 << len(pairs), -1, dtype=np.intp)
    for o, order in enumerate(every.tolist()):
        rank = [0] * k
        for place, item in enumerate(order):
            rank[item] = place
        number[sum(1 << bit for bit, (a, b) in enumerate(pairs) if rank[a] > rank[b])] = o
    return every, number


def _sorting_orders(keys: npt.NDArray[np.uint64], kind: SortKind | None = None) -> npt.NDArray[np.intp]:
    """For each row of ``keys`` (..., k), the number in ``_orders(k)`` of ``np.argsort(row, kind=kind)``.

    Rows of different keys have one sorting order, read from how each pair compares (k(k-1)/2
    comparisons of whole arrays instead of a sort per row), here of the keys' upper 32 bits.
    Rows where two of those are equal (about one in 400 million; equal 64-bit keys all but
    never) are sorted by ``np.argsort`` on the whole keys, with ``kind``, as they always were.
    """
    k = keys.shape[-1]
    every, number = _orders(k)
    pairs = list(combinations(range(k), 2))
    upper = keys.astype("<u8", copy=False).view("<u4")[..., 1::2].reshape(-1, k)
    columns = np.ascontiguousarray(upper.T)  # (k, rows)
    way = np.zeros(columns.shape[1], dtype=np.intp)
    tied = np.zeros(columns.shape[1], dtype=bool)
    greater = np.empty(columns.shape[1], dtype=bool)
    for bit, (a, b) in enumerate(pairs):
        np.greater(columns[a], columns[b], out=greater)
        way += greater.view(np.uint8).astype(np.intp) << bit
        tied |= columns[a] == columns[b]
    found: npt.NDArray[np.intp] = number[way]
    if tied.any():
        digits = k ** np.arange(k - 1, -1, -1)
        lookup = {int(code): o for o, code in enumerate((every @ digits).tolist())}
        sorted_rows = np.argsort(keys.reshape(-1, k)[tied], axis=-1, kind=kind)
        found[tied] = [lookup[int(code)] for code in (sorted_rows @ digits).tolist()]
    return found.reshape(keys.shape[:-1])


class _Candidates:
    """The candidate orders of a chunk of cards and the codes of their rows and diagonals.

    Candidate ``o`` of card ``b`` orders column ``c`` as ``_orders(k)[0][ids[c][b, o]]``. In
    ``cards/1`` that is the argsort of the card's keys of block ``{label}/{card}/{c}``
    (``_CANDIDATES`` rows of ``k``). In ``cards/2`` it is ``_order_draws`` of one 32-bit draw
    of block ``{label}/orders``, where the ``t``-th card the pass takes (``first + b``) reads
    draws ``t * cols * _CANDIDATES`` on, column by column: 1,024 bytes a column instead of
    ``cards/1``'s 10,240 (five numbers), from one block per pass rather than one per card and column.
    Where every combination can be tried (30-ball), both take the ``o``-th of ``_all_orders``.
    ``codes[b]`` has shape (cross lines, candidates): what ``_CrossIndex.codes`` gives for the
    candidate cards, summed line by line from the numbers each order puts on the line.
    """

    def __init__(
        self,
        variant: Variant,
        stream: Stream,
        label: str,
        cells: U8,
        chunk: I64,
        first: int,
        version: Version,
    ) -> None:
        index = _cross(variant)
        geo = geometry(variant)
        every_order = _all_orders(variant)
        self.variant = variant
        self.chunk = chunk
        self.values: list[U8] = []
        self.ids: list[npt.NDArray[np.intp]] = []
        size = chunk.size
        mine = cells[chunk]
        if every_order is None and version == 2:
            per_card = geo.cols * _CANDIDATES
            draws = stream.u32(f"{label}/orders", size * per_card, first * per_card)
            draws = draws.reshape(size, geo.cols, _CANDIDATES)
        # placed[c][p]: the number each candidate puts at place p of column c (top to bottom).
        placed: list[list[npt.NDArray[np.int32]]] = []
        for col in range(geo.cols):
            values = mine[:, list(_cell_rows(variant, col)), col]
            k = values.shape[1]
            every, _number = _orders(k)
            if every_order is None and version == 1:
                labels = [f"{label}/{i}/{col}" for i in chunk.tolist()]
                keys = stream.u64_rows(labels, _CANDIDATES * k).reshape(size, _CANDIDATES, k)
                ids = _sorting_orders(keys)
            elif every_order is None:
                ids = _order_draws(draws[:, col, :], every.shape[0])
            else:
                ids = np.broadcast_to(_all_order_ids(variant)[col], (size, every_order[col].shape[0]))
            self.values.append(values)
            self.ids.append(ids)
            rows = ids + (np.arange(size) * every.shape[0])[:, None]
            # ordered[p]: for each card and order, the number at place p, flat (cards * k!).
            ordered = values[:, every].transpose(2, 0, 1).reshape(k, -1)
            placed.append([ordered[p].take(rows).astype(np.int32) for p in range(k)])
        self.codes = np.empty((size, index.base.size, placed[0][0].shape[1]), dtype=np.int32)
        for j, terms in enumerate(index.terms):
            code = np.full(placed[0][0].shape, index.base[j], dtype=np.int32)
            for _row, col, place, low, stride in terms:
                code += (placed[col][place] - low) * stride
            self.codes[:, j, :] = code

    def apply(self, cells: U8, chosen: npt.NDArray[np.intp]) -> None:
        """Re-order the cards whose ``chosen`` candidate is not -1 to that candidate."""
        moved = np.flatnonzero(chosen >= 0)
        if moved.size == 0:
            return
        for col, (values, ids) in enumerate(zip(self.values, self.ids, strict=True)):
            every, _number = _orders(values.shape[1])
            order = every[ids[moved, chosen[moved]]]
            cells[self.chunk[moved][:, None], list(_cell_rows(self.variant, col)), col] = np.take_along_axis(
                values[moved], order, axis=1
            )


@cache
def _all_order_ids(variant: Variant) -> tuple[npt.NDArray[np.intp], ...]:
    """``_all_orders(variant)`` as numbers in ``_orders(k)``, one array per column."""
    every_order = _all_orders(variant)
    assert every_order is not None
    found = []
    for orders in every_order:
        k = orders.shape[1]
        lookup = {tuple(order): o for o, order in enumerate(_orders(k)[0].tolist())}
        found.append(np.array([lookup[tuple(order)] for order in orders.tolist()], dtype=np.intp))
    return tuple(found)
