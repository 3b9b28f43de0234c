"""The card set value and its fingerprint.

Fingerprint (documented in docs/cards.md so anyone can recompute it): the SHA-256, in lower-case
hex, of the UTF-8 text made of one line per card in number order, ``"{number}:{cells}\\n"``,
where ``cells`` are the card's cells row by row, separated by commas, with blank and free cells
written as ``0``. Card 1 of a 30-ball set might give the line ``"1:3,17,25,9,12,30,1,20,22\\n"``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from bingo.engine.variants import Variant, geometry

Cells = npt.NDArray[np.uint8]

#: Largest card set the engine builds (memory and time stay bounded; far above any series).
MAX_CARDS = 1_000_000


@dataclass(frozen=True, eq=False)
class CardSet:
    """A numbered set of cards: ``cells[i]`` is card ``i + 1``, a rows x cols grid, 0 = blank/free."""

    variant: Variant
    seed: int
    algorithm: str
    cells: Cells
    #: Line combinations that repeat inside the set (0 whenever the size allows, R14 adapted).
    repeated_lines: int
    fingerprint: str = field(default="")

    def __post_init__(self) -> None:
        self.cells.setflags(write=False)
        if not self.fingerprint:
            object.__setattr__(self, "fingerprint", fingerprint(self.cells))

    @property
    def size(self) -> int:
        """Number of cards."""
        return int(self.cells.shape[0])

    @property
    def strips(self) -> bool:
        """Whether the set was built as 90-ball strips of six."""
        return self.algorithm.startswith("strips/")

    def card(self, number: int) -> list[list[int | None]]:
        """Card ``number`` (1-based) as rows of cells, ``None`` for a blank or the free centre."""
        if not 1 <= number <= self.size:
            raise IndexError(f"card {number} is not in this set of {self.size}")
        return grid_of(self.cells[number - 1])

    def numbers(self, number: int) -> frozenset[int]:
        """The numbers printed on card ``number``."""
        row = self.cells[number - 1]
        return frozenset(int(v) for v in row.ravel() if v)


def grid_of(card: Cells) -> list[list[int | None]]:
    """One card's cells as nested lists, ``None`` where no number is printed."""
    return [[int(v) if v else None for v in row] for row in card.tolist()]


def cells_from_grids(variant: Variant, grids: list[list[list[int | None]]]) -> Cells:
    """Cells array from nested lists (``None`` or 0 for blanks); ValueError on a wrong shape or value."""
    geo = geometry(variant)
    out = np.zeros((len(grids), geo.rows, geo.cols), dtype=np.uint8)
    for i, grid in enumerate(grids):
        if len(grid) != geo.rows or any(len(row) != geo.cols for row in grid):
            raise ValueError(f"card {i + 1}: a {variant}-ball card has {geo.rows} rows of {geo.cols} cells")
        for r, row in enumerate(grid):
            for c, value in enumerate(row):
                if value is None:
                    continue
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
                    raise ValueError(f"card {i + 1}: cell ({r + 1}, {c + 1}) holds {value!r}, not a number")
                out[i, r, c] = value
    return out


def _tokens() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """For each cell value 0-99: its text as 3 bytes (tens, ones, comma) and which bytes count."""
    text = np.zeros((100, 3), dtype=np.uint8)
    keep = np.ones((100, 3), dtype=bool)
    for value in range(100):
        text[value] = (ord("0") + value // 10, ord("0") + value % 10, ord(","))
        keep[value, 0] = value >= 10
    return text, keep


_CELL_TEXT, _CELL_KEEP = _tokens()
_POWERS = 10 ** np.arange(6, -1, -1, dtype=np.int64)


def fingerprint(cells: Cells) -> str:
    """SHA-256 hex of the set's canonical text (see the module docstring), built without a loop."""
    n = int(cells.shape[0])
    if n == 0:
        return hashlib.sha256(b"").hexdigest()
    flat = cells.reshape(n, -1)
    if int(flat.max()) >= 100:
        raise ValueError("cells above 99 cannot be fingerprinted")
    per_card = flat.shape[1]
    width = 8 + 3 * per_card
    text = np.empty((n, width), dtype=np.uint8)
    keep = np.empty((n, width), dtype=bool)

    # The card number in 7 right-aligned digits, leading zeros dropped, then ":".
    numbers = np.arange(1, n + 1, dtype=np.int64)[:, None]
    text[:, :7] = (numbers // _POWERS) % 10 + ord("0")
    keep[:, :7] = numbers >= _POWERS
    text[:, 7] = ord(":")
    keep[:, 7] = True
    # Each cell from the table; the last cell ends the line with "\n" instead of ",".
    text[:, 8:] = _CELL_TEXT[flat].reshape(n, -1)
    keep[:, 8:] = _CELL_KEEP[flat].reshape(n, -1)
    text[:, -1] = ord("\n")
    return hashlib.sha256(text[keep].tobytes()).hexdigest()
