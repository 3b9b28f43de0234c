"""The cards and balls winner detection works with, and its refusal (R14, R65, R71-R72, R82).

Detection relies on a few facts about each card, checked once as the cards come in: each number
in its column's range (R14, R65, R71, R82), so a ball is looked for in one column; no number
printed twice; five numbers in each 90-ball row (R14); the free cells blank (R71 c), R72) and,
off 90-ball, no other blank. A ball is a number of the variant's range, drawn once. The checks
are the package's own (``card`` and ``detector`` call them); ``DetectionError`` is public.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from types import MappingProxyType

import numpy as np

from bingo.engine.cardset import Cells
from bingo.engine.errors import EngineError
from bingo.engine.variants import Variant, geometry


class DetectionError(EngineError):
    """Cards or balls winner detection cannot work with; the message names the card or ball."""

    codes = frozenset(
        {
            "cells_shape",
            "number_out_of_column",
            "number_repeated",
            "free_cell_not_blank",
            "blank_cell",
            "row_count",
            "card_number_invalid",
            "card_sold_twice",
            "card_not_sold",
            "ball_invalid",
            "ball_repeated",
        }
    )


def check_balls(variant: Variant, balls: Iterable[int]) -> tuple[int, ...]:
    """The balls as a tuple of ints; DetectionError for one that is not a ball or drawn twice."""
    top = geometry(variant).balls
    out: list[int] = []
    seen: set[int] = set()
    for value in balls:
        ball = check_ball(variant, value)
        if ball in seen:
            raise DetectionError(
                f"ball {ball} is drawn twice", code="ball_repeated", params={"ball": ball, "balls": top}
            )
        seen.add(ball)
        out.append(ball)
    return tuple(out)


def check_ball(variant: Variant, value: object) -> int:
    """``value`` as a ball number of ``variant``; DetectionError otherwise."""
    top = geometry(variant).balls
    try:
        ball = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        ball = -1
    if isinstance(value, bool) or not 1 <= ball <= top:
        raise DetectionError(
            f"{value!r} is not a ball of the {variant}-ball game (1 to {top})",
            code="ball_invalid",
            params={"ball": repr(value), "balls": top},
        )
    return ball


@dataclass(frozen=True)
class Where:
    """A card named in a refusal: English words and the params an adapter translates."""

    text: str
    params: Mapping[str, object]


LONE_CARD = Where("the card", MappingProxyType({"series": None, "card": None}))


def check_cells(variant: Variant, cells: Cells, where: Callable[[int], Where]) -> None:
    """Refuse cells that are not cards of ``variant``: shape, column ranges, repeats, free cells.

    Only what detection relies on: each number in its column's range (R14, R65, R71, R82), so
    a ball is looked for in one column; no number twice on a card; five numbers in each 90-ball
    row (R14); free cells blank and, off 90-ball, no other blank. ``where(i)`` names card ``i``
    in messages: English words, and the params ``series`` and ``card`` (None for a lone card).
    """
    geo = geometry(variant)
    shape = (geo.rows, geo.cols)
    if (
        not isinstance(cells, np.ndarray)
        or cells.dtype != np.uint8
        or cells.ndim != 3
        or cells.shape[1:] != shape
    ):
        got = getattr(cells, "shape", None), getattr(cells, "dtype", None)
        raise DetectionError(
            f"{variant}-ball cells are a uint8 array of shape (cards, {geo.rows}, {geo.cols}), not {got}",
            code="cells_shape",
            params={"rows": geo.rows, "cols": geo.cols},
        )

    for c, (low, high) in enumerate(geo.column_ranges):
        column = cells[:, :, c]
        bad = (column != 0) & ((column < low) | (column > high))
        if bad.any():
            i, r = (int(x[0]) for x in np.nonzero(bad))
            value = int(cells[i, r, c])
            raise DetectionError(
                f"{where(i).text}: {value} cannot stand in column {c + 1} ({low}-{high})",
                code="number_out_of_column",
                params={**where(i).params, "number": value, "column": c + 1},
            )
        for r1, r2 in combinations(range(geo.rows), 2):
            same = (column[:, r1] == column[:, r2]) & (column[:, r1] != 0)
            if same.any():
                i = int(np.flatnonzero(same)[0])
                value = int(cells[i, r1, c])
                raise DetectionError(
                    f"{where(i).text}: {value} is printed twice",
                    code="number_repeated",
                    params={**where(i).params, "number": value},
                )
    if geo.column_counts is None:
        per_row = geo.numbers_per_card // geo.rows
        counts = np.count_nonzero(cells, axis=2)
        if (counts != per_row).any():
            i, r = (int(x[0]) for x in np.nonzero(counts != per_row))
            raise DetectionError(
                f"{where(i).text}: row {r + 1} holds {int(counts[i, r])} numbers, not {per_row} (R14)",
                code="row_count",
                params={**where(i).params, "row": r + 1, "count": int(counts[i, r])},
            )
    for r, c in sorted(geo.free_cells):
        if cells[:, r, c].any():
            i = int(np.flatnonzero(cells[:, r, c])[0])
            raise DetectionError(
                f"{where(i).text}: the free cell ({r + 1}, {c + 1}) must be blank (R71 c), R72)",
                code="free_cell_not_blank",
                params={**where(i).params, "row": r + 1, "column": c + 1},
            )
    if geo.column_counts is not None:
        blank = cells == 0
        for r, c in geo.free_cells:
            blank[:, r, c] = False
        if blank.any():
            i, r, c = (int(x[0]) for x in np.nonzero(blank))
            raise DetectionError(
                f"{where(i).text}: cell ({r + 1}, {c + 1}) carries no number",
                code="blank_cell",
                params={**where(i).params, "row": r + 1, "column": c + 1},
            )
