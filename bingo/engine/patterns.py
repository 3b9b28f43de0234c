"""The 75-ball patterns a game's bingo may be (R73 b)): a library of named figures, and custom ones.

R73 b) lets the bingo go to whoever fills «um determinado espaço geométrico pré-definido do
cartão»: one given figure, fixed before the game, which R76 lets the operator pre-draw on the
game's cards. Each entry of ``LIBRARY`` is such a figure: a stable ``key`` (stored with the game
and written in its acta), an English ``name`` (the screens translate it, bingo/common/patterns.py)
and its cells. A manager may also draw a figure of their own on the 5 x 5 grid (``CUSTOM``).

What the library leaves out, and why (docs/draw.md «Patterns»):

* «any line», «any postage stamp» and other figures that are *one of several* shapes: R73 b)
  names one given space, and «uma das linhas» is the line prize of R74 a), which the regulation
  pays only beside a full-card bingo. Each line is offered as a figure of its own instead
  (the top row, column B, a diagonal...), announced before the game.
* «full card within N balls»: the bingo of R73 a) has no ball limit (the game goes on until it
  is won, R44); a bingo within N balls is the progressive jackpot's condition (R9), set on the
  session. The full card is the bingo of R73 a), not a pattern.
* a pattern with a line or four corners beside it: R74 pays those only with a full-card bingo
  (``PrizeRules`` refuses it, ``pattern_with_extras``).

The free centre counts as marked (R72): a figure through the centre lists it, which changes
nothing about when a card wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from bingo.engine.detection.rules import Cell, PrizeRulesError, parse_pattern, pattern_text
from bingo.engine.variants import Variant, geometry

#: The key of a pattern drawn by hand rather than taken from the library.
CUSTOM = "custom"

_SIZE = 5
_GEO = geometry(Variant.B75)


@dataclass(frozen=True)
class Pattern:
    """A named 75-ball figure of the library (R73 b))."""

    key: str
    #: English; translated on the screens (bingo/common/patterns.py).
    name: str
    cells: frozenset[Cell]

    @property
    def text(self) -> str:
        """The cells as ``parse_pattern`` reads them (rows of X and '.', separated by '/')."""
        return pattern_text(self.cells)


def _row(r: int) -> set[Cell]:
    return {(r, c) for c in range(_SIZE)}


def _column(c: int) -> set[Cell]:
    return {(r, c) for r in range(_SIZE)}


_DOWN = {(i, i) for i in range(_SIZE)}
_UP = {(_SIZE - 1 - i, i) for i in range(_SIZE)}
_EDGE = {(r, c) for r in range(_SIZE) for c in range(_SIZE) if r in (0, _SIZE - 1) or c in (0, _SIZE - 1)}
_RING = {(r, c) for r in range(1, 4) for c in range(1, 4)} - {(2, 2)}

_FIGURES: tuple[tuple[str, str, set[Cell]], ...] = (
    ("four_corners", "Four corners", {(0, 0), (0, 4), (4, 0), (4, 4)}),
    ("x", "X", _DOWN | _UP),
    ("plus", "Plus sign", _row(2) | _column(2)),
    ("frame", "Frame", _EDGE),
    ("small_frame", "Small frame", _RING),
    ("diamond", "Diamond", {(0, 2), (1, 1), (1, 3), (2, 0), (2, 4), (3, 1), (3, 3), (4, 2)}),
    # The traditional stamp's corner: where a stamp goes on an envelope.
    ("postage_stamp", "Postage stamp (top right)", {(0, 3), (0, 4), (1, 3), (1, 4)}),
    ("letter_t", "Letter T", _row(0) | _column(2)),
    ("letter_l", "Letter L", _column(0) | _row(4)),
    ("letter_h", "Letter H", _column(0) | _column(4) | _row(2)),
    ("row_1", "Top row", _row(0)),
    ("row_2", "Second row", _row(1)),
    ("row_3", "Middle row", _row(2)),
    ("row_4", "Fourth row", _row(3)),
    ("row_5", "Bottom row", _row(4)),
    ("column_b", "Column B", _column(0)),
    ("column_i", "Column I", _column(1)),
    ("column_n", "Column N", _column(2)),
    ("column_g", "Column G", _column(3)),
    ("column_o", "Column O", _column(4)),
    ("diagonal_down", "Diagonal from the top left", _DOWN),
    ("diagonal_up", "Diagonal from the bottom left", _UP),
)

#: The library, in the order the screens offer it.
LIBRARY: Mapping[str, Pattern] = MappingProxyType(
    {key: Pattern(key, name, frozenset(cells)) for key, name, cells in _FIGURES}
)


def _numbered(cells: Iterable[Cell]) -> frozenset[Cell]:
    """The cells that carry a number: the free centre counts as marked either way (R72)."""
    return frozenset(cells) - _GEO.free_cells


_BY_CELLS: Mapping[frozenset[Cell], str] = MappingProxyType(
    {_numbered(p.cells): p.key for p in LIBRARY.values()}
)


def pattern_get(key: str) -> Pattern:
    """The library's pattern ``key``; PrizeRulesError ``pattern_unknown`` for another key."""
    found = LIBRARY.get(key)
    if found is None:
        raise PrizeRulesError(
            f"R73 b): there is no pattern {key!r} in the library; choose one of "
            f"{', '.join(LIBRARY)} or draw a custom one",
            code="pattern_unknown",
            params={"key": key},
        )
    return found


def pattern_choose(key: str | None, drawn: str | Iterable[Cell] | None) -> frozenset[Cell] | None:
    """The cells of the pattern chosen for a game's bingo: None for the full card (R73 a)).

    ``key`` names a library pattern, or ``CUSTOM`` for ``drawn``: the cells drawn by hand, or
    their text (``parse_pattern``). With no key, ``drawn`` alone is a custom pattern (games
    stored before the library, the old form). The cells are checked by ``PrizeRules`` (on the
    card, at least one numbered cell, no extra prize beside them: R73 b), R74).
    PrizeRulesError for an unknown key, or a library key with cells drawn too.
    """
    if key is not None and key != CUSTOM:
        pattern = pattern_get(key)
        if drawn:
            raise PrizeRulesError(
                "R73 b): choose a pattern of the library or draw one, not both",
                code="pattern_key_and_cells",
                params={"key": key},
            )
        return pattern.cells
    if isinstance(drawn, str):
        return parse_pattern(drawn, Variant.B75) if drawn else (frozenset() if key == CUSTOM else None)
    if drawn is None:
        return frozenset() if key == CUSTOM else None
    return frozenset((int(r), int(c)) for r, c in drawn)


def pattern_key_of(cells: Iterable[Cell]) -> str:
    """The key of the library pattern with these cells (the free centre aside, R72), else ``CUSTOM``."""
    return _BY_CELLS.get(_numbered(cells), CUSTOM)


def pattern_picture(cells: Iterable[Cell]) -> tuple[str, ...]:
    """The pattern as the screens draw it: five rows of five characters, ``X`` a cell of the
    pattern, ``.`` another, ``*`` the free centre (marked whatever the pattern, R72)."""
    chosen = set(cells)
    return tuple(
        "".join("*" if (r, c) in _GEO.free_cells else "X" if (r, c) in chosen else "." for c in range(_SIZE))
        for r in range(_SIZE)
    )
