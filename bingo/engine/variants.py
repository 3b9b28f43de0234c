"""The four variants of the game: card geometry, column ranges and winning lines.

These tables are the regulation itself (R14, R16, R63-R66, R69-R72, R79-R84), shared by the
generator, the verifier and winner detection.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from functools import cache


class Variant(StrEnum):
    """A game variant, named by its number of balls (R1)."""

    B90 = "90"
    B80 = "80"
    B75 = "75"
    B30 = "30"


class LineKind(StrEnum):
    """The kinds of line a card offers for a line prize (R5, R66, R74, R84)."""

    ROW = "row"
    COLUMN = "column"
    DIAGONAL = "diagonal"


@dataclass(frozen=True)
class Line:
    """One winning line of a card: its kind and the cells (row, column) that must be marked.

    Free cells are left out: the 75-ball free centre counts as marked (R72).
    """

    kind: LineKind
    index: int
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Geometry:
    """The shape of a variant's card and where each number may go."""

    variant: Variant
    balls: int
    rows: int
    cols: int
    #: Inclusive (low, high) range of numbers allowed in each column.
    column_ranges: tuple[tuple[int, int], ...]
    #: How many numbers each column holds; None for 90-ball, whose columns hold 1 or 2 (R14).
    column_counts: tuple[int, ...] | None
    #: Cells that carry no number and count as marked (the 75-ball centre, R71 c), R72).
    free_cells: frozenset[tuple[int, int]]
    #: Column headings printed on the card (75-ball: B I N G O, R70).
    headers: tuple[str, ...] | None
    #: Kinds of line a card of this variant offers. 90-ball: rows only (R5 a).
    line_kinds: tuple[LineKind, ...]

    @property
    def cells(self) -> int:
        """Cells in the grid, blanks and free cells included."""
        return self.rows * self.cols

    @property
    def numbers_per_card(self) -> int:
        """How many numbers a card carries (90: 15, 80: 16, 75: 24, 30: 9)."""
        if self.column_counts is None:
            return 15
        return sum(self.column_counts)

    def column_size(self, col: int) -> int:
        """How many different numbers column ``col`` may hold."""
        low, high = self.column_ranges[col]
        return high - low + 1

    def column_of(self, number: int) -> int:
        """The column a ball number belongs to; ValueError if it is not on this variant's cards."""
        for col, (low, high) in enumerate(self.column_ranges):
            if low <= number <= high:
                return col
        raise ValueError(f"{number} is not a {self.variant}-ball number")


_GEOMETRIES = {
    # R14: 3 rows x 9 columns; column 1 holds 1-9, column 2 10-19, ... column 9 80-90.
    Variant.B90: Geometry(
        variant=Variant.B90,
        balls=90,
        rows=3,
        cols=9,
        column_ranges=((1, 9), *((10 * c, 10 * c + 9) for c in range(1, 8)), (80, 90)),
        column_counts=None,
        free_cells=frozenset(),
        headers=None,
        line_kinds=(LineKind.ROW,),
    ),
    # R64-R65: 4 x 4, four numbers per column from 1-20, 21-40, 41-60, 61-80. R66: lines are rows,
    # diagonals and columns.
    Variant.B80: Geometry(
        variant=Variant.B80,
        balls=80,
        rows=4,
        cols=4,
        column_ranges=tuple((20 * c + 1, 20 * c + 20) for c in range(4)),
        column_counts=(4, 4, 4, 4),
        free_cells=frozenset(),
        headers=None,
        line_kinds=(LineKind.ROW, LineKind.COLUMN, LineKind.DIAGONAL),
    ),
    # R70-R71: 5 x 5 under B I N G O, 15 numbers per column range, N has 4 and the free centre.
    Variant.B75: Geometry(
        variant=Variant.B75,
        balls=75,
        rows=5,
        cols=5,
        column_ranges=tuple((15 * c + 1, 15 * c + 15) for c in range(5)),
        column_counts=(5, 5, 4, 5, 5),
        free_cells=frozenset({(2, 2)}),
        headers=("B", "I", "N", "G", "O"),
        line_kinds=(LineKind.ROW, LineKind.COLUMN, LineKind.DIAGONAL),
    ),
    # R81-R82: 3 x 3, three numbers per column from 1-10, 11-20, 21-30. R84: lines, columns.
    Variant.B30: Geometry(
        variant=Variant.B30,
        balls=30,
        rows=3,
        cols=3,
        column_ranges=tuple((10 * c + 1, 10 * c + 10) for c in range(3)),
        column_counts=(3, 3, 3),
        free_cells=frozenset(),
        headers=None,
        line_kinds=(LineKind.ROW, LineKind.COLUMN, LineKind.DIAGONAL),
    ),
}

#: Standard series sizes by letter (R16). Other sizes need an authorization (R19).
SERIES_SIZES: dict[str, int] = {
    "A": 90,
    "B": 120,
    "C": 150,
    "D": 180,
    "E": 240,
    "F": 300,
    "G": 360,
    "H": 420,
    "I": 660,
    "J": 840,
    "K": 1680,
}


def parse_variant(value: str | int) -> Variant:
    """The variant named by ``value`` ("90", 75, ...); ValueError naming the allowed ones otherwise."""
    try:
        return Variant(str(value).strip())
    except ValueError:
        allowed = ", ".join(v.value for v in Variant)
        raise ValueError(f"unknown variant {value!r}: choose one of {allowed}") from None


def geometry(variant: Variant) -> Geometry:
    """The card geometry of ``variant``."""
    return _GEOMETRIES[variant]


@cache
def lines(variant: Variant) -> tuple[Line, ...]:
    """Every line a card of ``variant`` offers, free cells left out (R72).

    Rows first (top to bottom), then columns (left to right), then the two diagonals
    (top-left to bottom-right, then top-right to bottom-left), restricted to the variant's kinds.
    """
    geo = geometry(variant)
    found: list[Line] = []

    def keep(cells: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
        return tuple(cell for cell in cells if cell not in geo.free_cells)

    if LineKind.ROW in geo.line_kinds:
        for r in range(geo.rows):
            found.append(Line(LineKind.ROW, r, keep([(r, c) for c in range(geo.cols)])))
    if LineKind.COLUMN in geo.line_kinds:
        for c in range(geo.cols):
            found.append(Line(LineKind.COLUMN, c, keep([(r, c) for r in range(geo.rows)])))
    if LineKind.DIAGONAL in geo.line_kinds:
        n = geo.rows
        found.append(Line(LineKind.DIAGONAL, 0, keep([(i, i) for i in range(n)])))
        found.append(Line(LineKind.DIAGONAL, 1, keep([(i, n - 1 - i) for i in range(n)])))
    return tuple(found)


def unique_lines_possible(variant: Variant, size: int) -> bool:
    """Whether ``size`` cards of ``variant`` can have every winning line different (R14 adapted).

    Always for 90-ball (its rows must be unique). Otherwise a column position offers only
    C(range, count) different sets, and lines taking one number per column from the same
    columns share a space of (range sizes multiplied) sets; past either, lines must repeat.
    """
    geo = geometry(variant)
    if geo.column_counts is None:
        return True
    for col, count in enumerate(geo.column_counts):
        if size > math.comb(geo.column_size(col), count):
            return False
    demand: Counter[tuple[int, ...]] = Counter(
        tuple(sorted(c for _, c in line.cells)) for line in lines(variant) if line.kind is not LineKind.COLUMN
    )
    return all(
        per_card * size <= math.prod(geo.column_size(c) for c in cols) for cols, per_card in demand.items()
    )
