"""The card set value and its fingerprint.

Fingerprint (documented in docs/cards.md so anyone can recompute it): the SHA-256, in lower-case
hex, of the UTF-8 text made of one line per card in number order, ``"{number}:{cells}\\n"``,
where ``cells`` are the card's cells row by row, separated by commas, with blank and free cells
written as ``0``. Card 1 of a 30-ball set might give the line ``"1:3,17,25,9,12,30,1,20,22\\n"``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache

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
        if not 1 <= number <= self.size:
            raise IndexError(f"card {number} is not in this set of {self.size}")
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
        if (
            not isinstance(grid, list)
            or len(grid) != geo.rows
            or any(not isinstance(row, list) or len(row) != geo.cols for row in grid)
        ):
            raise ValueError(f"card {i + 1}: a {variant}-ball card has {geo.rows} rows of {geo.cols} cells")
        for r, row in enumerate(grid):
            for c, value in enumerate(row):
                if value is None:
                    continue
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
                    raise ValueError(f"card {i + 1}: cell ({r + 1}, {c + 1}) holds {value!r}, not a number")
                out[i, r, c] = value
    return out


def _tokens() -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
    """For each cell value 0-99, four bytes packed in one word: its text (tens, ones, comma,
    padding) and which of those bytes belong in the output (the tens only from 10 up)."""
    text = np.zeros((100, 4), dtype=np.uint8)
    keep = np.zeros((100, 4), dtype=np.uint8)
    for value in range(100):
        text[value, :3] = (ord("0") + value // 10, ord("0") + value % 10, ord(","))
        keep[value, :3] = (value >= 10, 1, 1)
    return text.view(np.uint32).ravel(), keep.view(np.uint32).ravel()


_CELL_TEXT, _CELL_KEEP = _tokens()


@lru_cache(maxsize=4)
def _number_prefixes(n: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Text and keep-bytes of ``"{number}:"`` for cards 1..n: 7 right-aligned digits and a colon."""
    numbers = np.arange(1, n + 1, dtype=np.int64)[:, None]
    powers = 10 ** np.arange(6, -1, -1, dtype=np.int64)
    text = np.full((n, 8), ord(":"), dtype=np.uint8)
    keep = np.ones((n, 8), dtype=np.uint8)
    text[:, :7] = (numbers // powers) % 10 + ord("0")
    keep[:, :7] = numbers >= powers
    text.setflags(write=False)
    keep.setflags(write=False)
    return text, keep


def fingerprint(cells: Cells) -> str:
    """SHA-256 hex of the set's canonical text (see the module docstring), built without a loop."""
    n = int(cells.shape[0])
    if cells.dtype != np.uint8:
        raise ValueError("cells must be unsigned bytes (uint8)")
    if n >= 10_000_000:
        raise ValueError("card numbers are written in at most 7 digits")
    if n == 0:
        return hashlib.sha256(b"").hexdigest()
    flat = cells.reshape(n, -1)
    if int(flat.max()) >= 100:
        raise ValueError("cells above 99 cannot be fingerprinted")
    width = 8 + 4 * flat.shape[1]
    text = np.empty((n, width), dtype=np.uint8)
    keep = np.empty((n, width), dtype=np.uint8)
    text[:, :8], keep[:, :8] = _number_prefixes(n)
    # Each cell's four bytes from the tables; the last cell ends the line with "\n", not ",".
    text[:, 8:] = np.take(_CELL_TEXT, flat).view(np.uint8).reshape(n, -1)
    keep[:, 8:] = np.take(_CELL_KEEP, flat).view(np.uint8).reshape(n, -1)
    text[:, -2] = ord("\n")
    return hashlib.sha256(text[keep.view(bool)].tobytes()).hexdigest()
