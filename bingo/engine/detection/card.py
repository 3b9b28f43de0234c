"""One claimed card checked against the balls drawn in this game (R43, R49, R72).

``card_check`` is what the caller's screen shows when a player claims (R43): the card with its
marks (numbers drawn, and the free centre, R72), each prize the game pays with every target's
missing numbers, and the ball at which each target completed. A target counts whenever it
completed, even balls before the claim (R49).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from bingo.engine.cardset import Cells, cells_from_grids
from bingo.engine.detection.inputs import LONE_CARD, DetectionError, check_balls, check_cells
from bingo.engine.detection.layout import from_scratch, layout_of
from bingo.engine.detection.rules import PrizeRules, Target
from bingo.engine.prizes import PrizeKind
from bingo.engine.variants import geometry


@dataclass(frozen=True)
class TargetCheck:
    """One target of a checked card: the numbers it still needs and when it completed."""

    target: Target
    missing: int
    #: The ball count (1 = first ball) at which the target completed; None while incomplete.
    completed_at: int | None


@dataclass(frozen=True)
class PrizeCheck:
    """One prize on a checked card."""

    prize: PrizeKind
    #: Every target of the prize on this card, in the rules' order.
    targets: tuple[TargetCheck, ...]

    @property
    def missing(self) -> int:
        """Numbers the card still needs for its nearest target of this prize (0: it holds it)."""
        return min(t.missing for t in self.targets)

    @property
    def holds(self) -> bool:
        """Whether the card holds the prize with the balls drawn (R49: whenever it completed)."""
        return self.missing == 0

    @property
    def hits(self) -> tuple[TargetCheck, ...]:
        """The completed targets, earliest first."""
        done = [t for t in self.targets if t.completed_at is not None]
        return tuple(sorted(done, key=lambda t: t.completed_at or 0))

    @property
    def completed_at(self) -> int | None:
        """The ball count at which the card first held the prize; None if it does not."""
        hits = self.hits
        return hits[0].completed_at if hits else None


@dataclass(frozen=True)
class CardCheck:
    """A card checked against the balls drawn in this game (R43, R49)."""

    rules: PrizeRules
    balls: tuple[int, ...]
    #: The card, ``None`` for a blank or the free centre.
    grid: tuple[tuple[int | None, ...], ...]
    #: Marked cells: numbers drawn, and the free centre (R72). Blanks are not marked.
    marks: tuple[tuple[bool, ...], ...]
    prizes: tuple[PrizeCheck, ...]

    def prize(self, prize: PrizeKind) -> PrizeCheck:
        """The check of ``prize``; KeyError if the game does not pay it."""
        for check in self.prizes:
            if check.prize is prize:
                return check
        raise KeyError(prize)

    @property
    def held(self) -> tuple[PrizeKind, ...]:
        """The prizes this card holds now."""
        return tuple(p.prize for p in self.prizes if p.holds)


def card_check(rules: PrizeRules, cells: Cells | list[list[int | None]], balls: Iterable[int]) -> CardCheck:
    """Check one card against the balls drawn, in draw order: marks, prizes held and when.

    ``cells`` is the card's (rows, cols) uint8 array (0 = blank or free) or its rows as lists
    (None = blank). A target counts whenever it completed, even balls before the claim (R49).
    DetectionError for a card that is not one of the variant's or for a wrong ball.
    """
    variant = rules.variant
    geo = geometry(variant)
    drawn = check_balls(variant, balls)
    if isinstance(cells, np.ndarray):
        block = cells.reshape(1, *cells.shape) if cells.ndim == 2 else cells
    else:
        try:
            block = cells_from_grids(variant, [cells])
        except ValueError as exc:
            raise DetectionError(
                str(exc), code="cells_shape", params={"rows": geo.rows, "cols": geo.cols}
            ) from None
    check_cells(variant, block, lambda _: LONE_CARD)
    if block.shape[0] != 1:
        raise DetectionError(
            "card_check checks one card", code="cells_shape", params={"rows": geo.rows, "cols": geo.cols}
        )
    layout = layout_of(rules)
    flat = block.reshape(1, -1)
    scratch = from_scratch(layout, flat, drawn)
    checks = [
        TargetCheck(target, int(scratch.missing[t][0]), int(scratch.at[t][0]) or None)
        for t, target in enumerate(rules.targets)
    ]
    prizes = tuple(
        PrizeCheck(prize, tuple(checks[t] for t in layout.by_prize[k]))
        for k, prize in enumerate(rules.prizes)
    )
    drawn_set = set(drawn)
    card = block[0]
    grid = tuple(tuple(int(v) or None for v in row) for row in card.tolist())
    marks = tuple(
        tuple(
            (r, c) in geo.free_cells or (value is not None and value in drawn_set)
            for c, value in enumerate(row)
        )
        for r, row in enumerate(grid)
    )
    return CardCheck(rules=rules, balls=drawn, grid=grid, marks=marks, prizes=prizes)
