"""An independent verifier: re-checks a card set from its cards alone.

It shares nothing with the generator but the rule tables in ``variants`` (the regulation
itself), and counts repeated lines its own way, so a generator bug cannot hide behind a
verifier built from the same parts. Every violation names the card and the rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bingo.engine.cardset import Cells, fingerprint
from bingo.engine.variants import Variant, geometry, lines, unique_lines_possible

#: The rule that sets each variant's card layout.
_LAYOUT_RULE = {Variant.B90: "R14", Variant.B80: "R64-R65", Variant.B75: "R70-R71", Variant.B30: "R81-R82"}


@dataclass(frozen=True)
class Violation:
    """One broken rule: the card it is on (None for the whole set), the rule, and what is wrong."""

    card: int | None
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"card {self.card}: " if self.card is not None else ""
        return f"{where}{self.message} ({self.rule})"


@dataclass(frozen=True)
class Report:
    """What the verifier found: the violations (at most ``limit`` kept), their total, and counts."""

    variant: Variant
    size: int
    fingerprint: str
    repeated_lines: int
    violations: tuple[Violation, ...]
    total_violations: int

    @property
    def ok(self) -> bool:
        """True when no rule is broken."""
        return self.total_violations == 0


class _Findings:
    def __init__(self, limit: int) -> None:
        self.items: list[Violation] = []
        self.total = 0
        self.limit = limit

    def add(self, card: int | None, rule: str, message: str) -> None:
        self.total += 1
        if len(self.items) < self.limit:
            self.items.append(Violation(card, rule, message))


def verify_cards(
    variant: Variant,
    cells: Cells,
    *,
    strips: bool = False,
    declared_repeated: int | None = None,
    declared_fingerprint: str | None = None,
    limit: int = 50,
) -> Report:
    """Check every card and the set as a whole against the rules; never raises on bad cards."""
    geo = geometry(variant)
    found = _Findings(limit)
    raw = np.asarray(cells)
    if (
        raw.ndim != 3
        or raw.shape[1:] != (geo.rows, geo.cols)
        or raw.dtype.kind not in "ui"
        or (raw.size and (int(raw.min()) < 0 or int(raw.max()) > 255))
    ):
        found.add(
            None, _LAYOUT_RULE[variant], f"cards must be {geo.rows} x {geo.cols} grids of numbers 0-255"
        )
        return Report(variant, 0, "", 0, tuple(found.items), found.total)
    cells = raw.astype(np.uint8, copy=False)
    n = cells.shape[0]
    if n == 0:
        found.add(None, _LAYOUT_RULE[variant], "a set holds at least one card")
        return Report(variant, 0, "", 0, tuple(found.items), found.total)

    _check_cells(variant, cells, found)
    lo, hi = _line_masks(variant, cells)
    _check_distinct_cards(cells, found)
    repeated = sum(len(group) - 1 for group in _equal_groups(hi.ravel(), lo.ravel()))
    if variant is Variant.B90:
        _check_rows_unique(hi, lo, found)
    elif repeated and unique_lines_possible(variant, n):
        found.add(
            None,
            "R14",
            f"{repeated} line combinations repeat, yet a set of {n} cards can have every line different",
        )
    if strips:
        if variant is Variant.B90:
            _check_strips(cells, found)
        else:
            found.add(None, "strips", "strips of six exist only for 90-ball cards")
    if declared_repeated is not None and declared_repeated != repeated:
        found.add(
            None,
            "R14",
            f"the set declares {declared_repeated} repeated line combinations but holds {repeated}",
        )
    actual = fingerprint(cells) if int(cells.max()) < 100 else ""
    if declared_fingerprint is not None and declared_fingerprint != actual:
        found.add(
            None,
            "fingerprint",
            f"the cards give fingerprint {actual}, not the declared {declared_fingerprint}",
        )
    return Report(variant, n, actual, repeated, tuple(sorted(found.items, key=_order)), found.total)


def _order(v: Violation) -> tuple[int, str]:
    return (v.card if v.card is not None else 0, v.message)


# Bit v of a 128-bit set, split in two words: numbers 1-63 in the low word, 64-127 in the high.
_LOW_BIT = np.array([(1 << v) if 1 <= v <= 63 else 0 for v in range(256)], dtype=np.uint64)
_HIGH_BIT = np.array([(1 << (v - 64)) if 64 <= v <= 127 else 0 for v in range(256)], dtype=np.uint64)
U64 = npt.NDArray[np.uint64]


def _masks(values: Cells, axis: int | tuple[int, ...]) -> tuple[U64, U64]:
    """Sets of numbers as (low, high) bitmask words, OR-ed over ``axis``."""
    return (
        np.bitwise_or.reduce(_LOW_BIT[values], axis=axis),
        np.bitwise_or.reduce(_HIGH_BIT[values], axis=axis),
    )


def _line_masks(variant: Variant, cells: Cells) -> tuple[U64, U64]:
    """Every line's set of numbers as bitmask words: two arrays of shape (cards, lines)."""
    all_lines = lines(variant)
    lo = np.zeros((cells.shape[0], len(all_lines)), dtype=np.uint64)
    hi = np.zeros_like(lo)
    for j, line in enumerate(all_lines):
        rows = [r for r, _ in line.cells]
        cols = [c for _, c in line.cells]
        lo[:, j], hi[:, j] = _masks(cells[:, rows, cols], axis=1)
    return lo, hi


def _equal_groups(high: U64, low: U64) -> list[list[int]]:
    """Indexes of equal (high, low) pairs, one ascending list per group of two or more."""
    if high.size == 0:
        return []
    mixed = low * np.uint64(0x9E3779B97F4A7C15) ^ (high + np.uint64(0x632BE59BD9B4E019))
    order = np.argsort(mixed)
    ordered = mixed[order]
    equal = np.flatnonzero(ordered[1:] == ordered[:-1])
    if equal.size == 0:
        return []
    # Equal mixes are candidates; group them by their exact words.
    buckets: dict[tuple[int, int], list[int]] = {}
    for i in order[np.unique(np.concatenate([equal, equal + 1]))].tolist():
        buckets.setdefault((int(high[i]), int(low[i])), []).append(i)
    return [sorted(group) for group in buckets.values() if len(group) > 1]


def _check_cells(variant: Variant, cells: Cells, found: _Findings) -> None:
    """Ranges, blanks, counts per row and column, ascending columns, repeated numbers."""
    geo = geometry(variant)
    rule = _LAYOUT_RULE[variant]
    filled = cells != 0
    for c, (low, high) in enumerate(geo.column_ranges):
        column = cells[:, :, c]
        wrong = filled[:, :, c] & ((column < low) | (column > high))
        for card, row in zip(*np.nonzero(wrong), strict=True):
            found.add(
                int(card) + 1,
                rule,
                f"{column[card, row]} in row {row + 1}, column {c + 1} is outside that column's {low}-{high}",
            )

    if variant is Variant.B90:
        for card, row in zip(*np.nonzero(filled.sum(axis=2) != 5), strict=True):
            count = int(filled[card, row].sum())
            found.add(int(card) + 1, rule, f"row {row + 1} holds {count} numbers; every row holds 5")
        per_column = filled.sum(axis=1)
        for card, col in zip(*np.nonzero((per_column < 1) | (per_column > 2)), strict=True):
            found.add(
                int(card) + 1,
                rule,
                f"column {col + 1} holds {per_column[card, col]} numbers; 1 or 2, never 0 or 3",
            )
        for card, col in zip(*np.nonzero(_not_ascending(cells)), strict=True):
            found.add(int(card) + 1, rule, f"column {col + 1} is not in ascending order from top to bottom")
    else:
        free = np.zeros((geo.rows, geo.cols), dtype=bool)
        for r, c in geo.free_cells:
            free[r, c] = True
        for card, row, col in zip(*np.nonzero(~filled & ~free), strict=True):
            found.add(int(card) + 1, rule, f"the cell in row {row + 1}, column {col + 1} is blank")
        for card, row, col in zip(*np.nonzero(filled & free), strict=True):
            found.add(
                int(card) + 1, "R71 c)", f"the centre (row {row + 1}, column {col + 1}) must be the free cell"
            )

    # A number printed twice: the card's set of numbers is smaller than its count of numbers.
    lo, hi = _masks(cells.reshape(cells.shape[0], -1), axis=1)
    distinct = np.bitwise_count(lo).astype(np.int64) + np.bitwise_count(hi).astype(np.int64)
    for card in np.flatnonzero(distinct < filled.reshape(cells.shape[0], -1).sum(axis=1)).tolist():
        held = [int(v) for v in cells[card].ravel() if v]
        twice = sorted({v for v in held if held.count(v) > 1})
        if twice:  # numbers past 127 are not in the masks; they are reported as out of range
            found.add(card + 1, rule, f"{', '.join(map(str, twice))} printed more than once")


def _not_ascending(cells: Cells) -> npt.NDArray[np.bool_]:
    """(cards, columns): True where a column's numbers do not increase downwards (blanks skipped)."""
    values = cells.astype(np.int16)
    bad = np.zeros((cells.shape[0], cells.shape[2]), dtype=bool)
    rows = cells.shape[1]
    for upper in range(rows):
        for lower in range(upper + 1, rows):
            a, b = values[:, upper, :], values[:, lower, :]
            between = np.ones(a.shape, dtype=bool)
            for middle in range(upper + 1, lower):
                between &= values[:, middle, :] == 0
            bad |= (a != 0) & (b != 0) & between & (a >= b)
    return bad


def _check_distinct_cards(cells: Cells, found: _Findings) -> None:
    """No two cards with the same numbers (R14)."""
    lo, hi = _masks(cells.reshape(cells.shape[0], -1), axis=1)
    for group in _equal_groups(hi, lo):
        for other in group[1:]:
            found.add(other + 1, "R14", f"holds the same numbers as card {group[0] + 1}")


def _check_rows_unique(hi: U64, lo: U64, found: _Findings) -> None:
    """90-ball: no row's five numbers repeat anywhere in the set (R14)."""
    per_card = hi.shape[1]
    for group in _equal_groups(hi.ravel(), lo.ravel()):
        first_card, first_row = divmod(group[0], per_card)
        for other in group[1:]:
            card, row = divmod(other, per_card)
            found.add(card + 1, "R14", f"row {row + 1} repeats row {first_row + 1} of card {first_card + 1}")


def _check_strips(cells: Cells, found: _Findings) -> None:
    """Strips: every block of six cards holds each number 1-90 exactly once."""
    n = cells.shape[0]
    if n % 6:
        found.add(None, "strips", f"{n} cards do not split into strips of six")
        return
    blocks = cells.reshape(n // 6, -1)
    lo, hi = _masks(blocks, axis=1)
    every_lo, every_hi = _masks(np.arange(1, 91, dtype=np.uint8)[None, :], axis=1)
    wrong = (lo != every_lo[0]) | (hi != every_hi[0]) | ((blocks != 0).sum(axis=1) != 90)
    for block in np.flatnonzero(wrong).tolist():
        first = block * 6 + 1
        held = [int(v) for v in blocks[block] if v]
        missing = sorted(set(range(1, 91)) - set(held))
        twice = sorted({v for v in held if held.count(v) > 1})
        found.add(
            first,
            "strips",
            f"cards {first}-{first + 5} must hold each of 1-90 once: "
            f"missing {missing[:10]}, twice {twice[:10]}",
        )
