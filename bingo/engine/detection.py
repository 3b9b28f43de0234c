"""Winner detection: which cards hold which prize, and how close the others are (R43-R49, R66-R84).

A game's ``PrizeRules`` say which prizes it pays and what wins each one; ``rules.targets`` spells
them out as *targets*, the sets of cells a card must have marked (every row of the card, the
four corners, the full card, a pattern...). A card holds a prize when every number in one of
that prize's targets has been drawn in this game, whenever that happened (R49). Blank cells
(90-ball) carry no number and free cells (the 75-ball centre, R72) count as marked, so neither
is ever waited for.

Two tools:

* ``card_check`` checks one claimed card against the balls drawn: its marks, which prizes it
  holds and at which ball each target completed. It is what the caller's screen shows (R43).
* ``Detector`` follows every card sold in a game, built once when sales close and updated per
  ball. For each target of each card it keeps a counter of the numbers still missing; an index
  from ball number to the cards holding it lets a ball touch only those counters (for 90-ball
  cards one ball touches about one card in six), so a ball costs time in proportion to the
  cards that hold it, not to all cards sold. After each ball it knows, exactly, every card that
  holds each prize (the R46 "Mais alguma linha?" check) and how many cards are 1, 2, ... numbers
  away from it ("one to go" displays).

Detector is the one mutable object of the engine: copying its counters per ball would cost
more than the ball itself. Rebuilding it from the cards and the balls drawn so far (``drawn``)
gives the same state as following the draw ball by ball; the tests hold it to that.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from itertools import combinations, pairwise
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from bingo.engine.cardset import Cells, cells_from_grids
from bingo.engine.errors import EngineError
from bingo.engine.prizes import PrizeKind
from bingo.engine.variants import Line, LineKind, Variant, geometry, lines

#: A cell of a card: (row, column), from 0.
Cell = tuple[int, int]
Indices = npt.NDArray[np.int64]
Counts = npt.NDArray[np.uint8]

_LINE, _BINGO = PrizeKind.LINE, PrizeKind.BINGO
_CORNERS, _COLUMN = PrizeKind.FOUR_CORNERS, PrizeKind.COLUMN

#: The order prizes are listed in: the small ones first, the bingo that ends the game last (R44).
PRIZE_ORDER: tuple[PrizeKind, ...] = (_LINE, _COLUMN, _CORNERS, _BINGO)

#: The prizes each variant may pay (R5, R66, R73-R74, R83-R84).
VARIANT_PRIZES: Mapping[Variant, frozenset[PrizeKind]] = MappingProxyType(
    {
        Variant.B90: frozenset({_LINE, _BINGO}),  # R5
        Variant.B80: frozenset({_LINE, _BINGO}),  # R66
        Variant.B75: frozenset({_LINE, _CORNERS, _BINGO}),  # R73-R74
        Variant.B30: frozenset({_LINE, _COLUMN, _CORNERS, _BINGO}),  # R83-R84
    }
)

#: Need values whose card counts the detector keeps up to date after every ball: cards holding
#: a prize (0), one to go (1), two and three to go. Larger ones are counted when asked.
NEAR = 3

#: Rank of an undrawn number in a "rank of each cell" array; balls drawn rank 1..90, blanks 0.
_UNDRAWN = 255


class PrizeRulesError(EngineError):
    """Prize rules the regulation does not allow for the variant; the message cites the rule."""

    codes = frozenset(
        {
            "no_bingo",
            "prize_repeated",
            "prize_not_in_variant",
            "extra_prizes_30",
            "pattern_not_75",
            "pattern_with_extras",
            "pattern_outside_card",
            "pattern_empty",
            "pattern_text_invalid",
            "line_kinds_missing",
            "line_kinds_without_line",
            "line_kind_not_in_variant",
        }
    )


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


# --- prize rules ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One combination that wins a prize: the cells a card must have marked.

    Free cells are left out (R72); on 90-ball cards the cells of a row include its blanks,
    which carry no number and are never waited for.
    """

    prize: PrizeKind
    #: "row 1", "column 2", "diagonal 1" (top-left to bottom-right), "diagonal 2",
    #: "four corners", "full card" or "pattern".
    name: str
    cells: tuple[Cell, ...]
    #: The line, for line and column prizes.
    line: Line | None = None


@dataclass(frozen=True)
class PrizeRules:
    """Which prizes a game pays and what wins each one.

    Build with ``prize_rules`` for the regulation's defaults. ``prizes`` and ``line_kinds`` are
    kept in a fixed order (``PRIZE_ORDER``, the variant's line kinds), so equal rules compare
    equal. PrizeRulesError, citing the rule, for a combination the regulation does not allow:

    * every game pays a bingo (R5 b), R66 b), R73, R83);
    * 90 and 80-ball pay a line and the bingo (R5, R66); 75-ball adds four corners (R74 b));
      30-ball pays the bingo and at most one of line, column or four corners (R84);
    * the line prize counts the kinds of line in ``line_kinds``: 90-ball rows only (R5 a)),
      otherwise any of rows, columns, diagonals the operator allows (R67, R75, R84 a));
    * a 75-ball bingo may be a pattern, a set of cells, instead of the full card (R73 b)); the
      line and four corners are paid only with a full-card bingo (R74).
    """

    variant: Variant
    prizes: tuple[PrizeKind, ...]
    line_kinds: tuple[LineKind, ...] = ()
    #: The 75-ball bingo pattern (R73 b)); None for the full card. The free centre may be
    #: included or not: it counts as marked either way (R72).
    pattern: frozenset[Cell] | None = None

    def __post_init__(self) -> None:
        """Normalise the order of prizes and line kinds; refuse what the regulation does not allow."""
        variant = Variant(self.variant)
        geo = geometry(variant)
        prizes = [PrizeKind(p) for p in self.prizes]
        repeated = sorted({p.value for p in prizes if prizes.count(p) > 1})
        if repeated:
            raise PrizeRulesError(
                f"each prize may be named once; repeated: {', '.join(repeated)}",
                code="prize_repeated",
                params={"prizes": tuple(repeated)},
            )
        if _BINGO not in prizes:
            raise PrizeRulesError(
                "R5 b), R66 b), R73, R83: every game pays a bingo", code="no_bingo", params={}
            )
        for prize in prizes:
            if prize not in VARIANT_PRIZES[variant]:
                rule = {_CORNERS: "R74 b), R84 c)", _COLUMN: "R84 b)"}.get(prize, "R5")
                raise PrizeRulesError(
                    f"{rule}: a {variant}-ball game does not pay a {prize} prize",
                    code="prize_not_in_variant",
                    params={"variant": variant.value, "prize": prize.value},
                )
        extras = [p for p in prizes if p is not _BINGO]
        if variant is Variant.B30 and len(extras) > 1:
            raise PrizeRulesError(
                "R84: a 30-ball game pays the bingo and one more prize at most (line, column or "
                f"four corners), not {' and '.join(p.value for p in extras)}",
                code="extra_prizes_30",
                params={"prizes": tuple(p.value for p in extras)},
            )
        kinds = [LineKind(k) for k in self.line_kinds]
        if _LINE in prizes and not kinds:
            raise PrizeRulesError(
                "R67, R75: the line prize needs at least one kind of line (row, column, diagonal)",
                code="line_kinds_missing",
                params={},
            )
        if _LINE not in prizes and kinds:
            raise PrizeRulesError(
                "kinds of line are given but the game pays no line prize",
                code="line_kinds_without_line",
                params={},
            )
        for kind in kinds:
            if kind not in geo.line_kinds:
                raise PrizeRulesError(
                    f"R5 a): a {variant}-ball line is a {' or '.join(geo.line_kinds)}, not a {kind}",
                    code="line_kind_not_in_variant",
                    params={"variant": variant.value, "kind": kind.value},
                )
        pattern = None if self.pattern is None else frozenset((int(r), int(c)) for r, c in self.pattern)
        if pattern is not None:
            _check_pattern(variant, pattern, extras)
        object.__setattr__(self, "variant", variant)
        object.__setattr__(self, "prizes", tuple(p for p in PRIZE_ORDER if p in prizes))
        object.__setattr__(self, "line_kinds", tuple(k for k in geo.line_kinds if k in kinds))
        object.__setattr__(self, "pattern", pattern)

    @property
    def targets(self) -> tuple[Target, ...]:
        """Every target of these rules, prize by prize in ``prizes`` order."""
        return _targets(self)

    def targets_of(self, prize: PrizeKind) -> tuple[Target, ...]:
        """The targets that win ``prize`` (empty if the game does not pay it)."""
        return tuple(t for t in self.targets if t.prize is prize)


def _check_pattern(variant: Variant, pattern: frozenset[Cell], extras: list[PrizeKind]) -> None:
    """Refuse a pattern off the 75-ball card, with no numbered cell, or next to extra prizes."""
    geo = geometry(variant)
    if variant is not Variant.B75:
        raise PrizeRulesError(
            f"R73 b): only the 75-ball bingo may be a pattern, not the {variant}-ball one",
            code="pattern_not_75",
            params={"variant": variant.value},
        )
    if extras:
        raise PrizeRulesError(
            "R74: the line and four corners are paid only when the bingo is the full card, "
            "not with a pattern",
            code="pattern_with_extras",
            params={"prizes": tuple(p.value for p in extras)},
        )
    outside = sorted(cell for cell in pattern if not (0 <= cell[0] < geo.rows and 0 <= cell[1] < geo.cols))
    if outside:
        r, c = outside[0]
        raise PrizeRulesError(
            f"R73 b): pattern cell ({r + 1}, {c + 1}) is off the {geo.rows} x {geo.cols} card",
            code="pattern_outside_card",
            params={"row": r + 1, "column": c + 1},
        )
    if not pattern - geo.free_cells:
        raise PrizeRulesError(
            "R73 b): a pattern needs at least one numbered cell", code="pattern_empty", params={}
        )


@cache
def _targets(rules: PrizeRules) -> tuple[Target, ...]:
    """The targets of ``rules`` (cached: rules are frozen and hashable)."""
    geo = geometry(rules.variant)
    every = tuple((r, c) for r in range(geo.rows) for c in range(geo.cols) if (r, c) not in geo.free_cells)
    found: list[Target] = []
    for prize in rules.prizes:
        if prize is _LINE or prize is _COLUMN:
            kinds = rules.line_kinds if prize is _LINE else (LineKind.COLUMN,)
            found += [
                Target(prize, f"{line.kind} {line.index + 1}", line.cells, line)
                for line in lines(rules.variant)
                if line.kind in kinds
            ]
        elif prize is _CORNERS:
            last_r, last_c = geo.rows - 1, geo.cols - 1
            found.append(Target(prize, "four corners", ((0, 0), (0, last_c), (last_r, 0), (last_r, last_c))))
        elif rules.pattern is not None:
            found.append(Target(prize, "pattern", tuple(c for c in every if c in rules.pattern)))
        else:
            found.append(Target(prize, "full card", every))
    return tuple(found)


def prize_rules(
    variant: Variant,
    prizes: Iterable[PrizeKind] | None = None,
    *,
    line_kinds: Iterable[LineKind] | None = None,
    pattern: Iterable[Cell] | None = None,
) -> PrizeRules:
    """Prize rules for ``variant``, the regulation's defaults filling what is not given.

    ``prizes`` defaults to line and bingo (the bingo alone with a pattern); pass the kinds of the
    game's prize plan (``[kind for kind, _ in plan.shares]``) to match it. ``line_kinds``
    defaults to every kind the variant offers (R66 a), R74 a), R84 a)); the operator may narrow
    it (R67, R75). ``pattern`` makes the 75-ball bingo a pattern (R73 b)), see ``parse_pattern``.
    """
    cells = None if pattern is None else frozenset(pattern)
    if prizes is None:
        chosen: tuple[PrizeKind, ...] = (_BINGO,) if cells is not None else (_LINE, _BINGO)
    else:
        chosen = tuple(prizes)
    if line_kinds is None:
        kinds = geometry(variant).line_kinds if _LINE in chosen else ()
    else:
        kinds = tuple(line_kinds)
    return PrizeRules(variant=variant, prizes=chosen, line_kinds=kinds, pattern=cells)


def parse_pattern(text: str, variant: Variant = Variant.B75) -> frozenset[Cell]:
    """The cells of a pattern written row by row, ``X`` for a cell of it and ``.`` for the others.

    Rows are separated by ``/`` or new lines; spaces are ignored: ``"X...X/.X.X./..X../.X.X./X...X"``
    is the 75-ball X. ``pattern_text`` writes it back. PrizeRulesError on a wrong shape.
    """
    geo = geometry(variant)
    rows = [row.replace(" ", "").replace("\t", "") for row in text.replace("\n", "/").split("/")]
    rows = [row for row in rows if row]
    if len(rows) != geo.rows or any(len(row) != geo.cols for row in rows) or set("".join(rows)) - set("Xx."):
        raise PrizeRulesError(
            f"a {variant}-ball pattern is {geo.rows} rows of {geo.cols} cells, each X or '.', not {text!r}",
            code="pattern_text_invalid",
            params={"text": text},
        )
    return frozenset((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "Xx")


def pattern_text(pattern: Iterable[Cell], variant: Variant = Variant.B75) -> str:
    """A pattern written as ``parse_pattern`` reads it: rows of X and '.', separated by '/'."""
    geo = geometry(variant)
    cells = set(pattern)
    return "/".join(
        "".join("X" if (r, c) in cells else "." for c in range(geo.cols)) for r in range(geo.rows)
    )


# --- the shared maths: targets over a block of cards ---------------------------------------------


@dataclass(frozen=True, eq=False)
class _Layout:
    """The rules flattened for numpy: flat cell positions of each target, targets of each cell."""

    rules: PrizeRules
    positions: tuple[npt.NDArray[np.intp], ...]
    prize_of: tuple[int, ...]
    by_prize: tuple[tuple[int, ...], ...]
    targets_at: tuple[tuple[int, ...], ...]
    #: capacity[t]: the numbers target t holds on a card of the variant.
    capacity: tuple[int, ...]


@cache
def _layout(rules: PrizeRules) -> _Layout:
    """The flat layout of ``rules`` (cached)."""
    geo = geometry(rules.variant)
    targets = rules.targets
    positions = tuple(np.array([r * geo.cols + c for r, c in t.cells], dtype=np.intp) for t in targets)
    prize_of = tuple(rules.prizes.index(t.prize) for t in targets)
    by_prize = tuple(tuple(i for i, k in enumerate(prize_of) if k == p) for p in range(len(rules.prizes)))
    targets_at = tuple(
        tuple(i for i, pos in enumerate(positions) if p in pos.tolist()) for p in range(geo.cells)
    )
    if geo.column_counts is None:
        # R14: a 90-ball card holds five numbers in each row, the other cells blank.
        per_row = geo.numbers_per_card // geo.rows
        capacity = tuple(per_row * len({r for r, _ in t.cells}) for t in targets)
    else:
        capacity = tuple(len(t.cells) for t in targets)
    return _Layout(rules, positions, prize_of, by_prize, targets_at, capacity)


def _check_balls(variant: Variant, balls: Iterable[int]) -> tuple[int, ...]:
    """The balls as a tuple of ints; DetectionError for one that is not a ball or drawn twice."""
    top = geometry(variant).balls
    out: list[int] = []
    seen: set[int] = set()
    for value in balls:
        ball = _ball(variant, value)
        if ball in seen:
            raise DetectionError(
                f"ball {ball} is drawn twice", code="ball_repeated", params={"ball": ball, "balls": top}
            )
        seen.add(ball)
        out.append(ball)
    return tuple(out)


def _ball(variant: Variant, value: object) -> int:
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


def _ranks(drawn: Sequence[int]) -> npt.NDArray[np.uint8]:
    """Rank of each cell value: 0 for a blank, the ball's position in the draw, or _UNDRAWN."""
    rank = np.full(256, _UNDRAWN, dtype=np.uint8)
    rank[0] = 0
    rank[list(drawn)] = np.arange(1, len(drawn) + 1, dtype=np.uint8)
    return rank


@dataclass(frozen=True)
class _Where:
    """A card named in a refusal: English words and the params an adapter translates."""

    text: str
    params: Mapping[str, object]


_LONE_CARD = _Where("the card", MappingProxyType({"series": None, "card": None}))


def _check_cells(variant: Variant, cells: Cells, where: Callable[[int], _Where]) -> None:
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


@dataclass(frozen=True, eq=False)
class _Scratch:
    """Targets of a block of cards against a list of balls, worked out in one pass."""

    #: missing[t][i]: numbers of target t card i still needs.
    missing: tuple[Counts, ...]
    #: at[t][i]: the ball count at which target t of card i completed; 0 if it has not.
    at: tuple[Counts, ...]


def _scratch(layout: _Layout, flat: Cells, drawn: Sequence[int]) -> _Scratch:
    """Every target of every card (rows of ``flat``) against ``drawn``, from scratch.

    A cell's rank is the position of its number in the draw (blanks 0, undrawn _UNDRAWN): a
    target misses its undrawn cells and completed at the highest rank of its cells (R49).
    """
    rank = _ranks(drawn)[flat]
    missing: list[Counts] = []
    at: list[Counts] = []
    for pos in layout.positions:
        sub = rank[:, pos]
        miss = np.count_nonzero(sub == _UNDRAWN, axis=1).astype(np.uint8)
        done = sub.max(axis=1)
        done[miss > 0] = 0
        missing.append(miss)
        at.append(done.astype(np.uint8, copy=False))
    return _Scratch(tuple(missing), tuple(at))


# --- one claimed card ----------------------------------------------------------------------------


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
    drawn = _check_balls(variant, balls)
    if isinstance(cells, np.ndarray):
        block = cells.reshape(1, *cells.shape) if cells.ndim == 2 else cells
    else:
        try:
            block = cells_from_grids(variant, [cells])
        except ValueError as exc:
            raise DetectionError(
                str(exc), code="cells_shape", params={"rows": geo.rows, "cols": geo.cols}
            ) from None
    _check_cells(variant, block, lambda _: _LONE_CARD)
    if block.shape[0] != 1:
        raise DetectionError(
            "card_check checks one card", code="cells_shape", params={"rows": geo.rows, "cols": geo.cols}
        )
    layout = _layout(rules)
    flat = block.reshape(1, -1)
    scratch = _scratch(layout, flat, drawn)
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


# --- every card sold in a game -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SoldCards:
    """Consecutive cards of one series sold in a game: numbers ``first_number`` onwards.

    ``cells[i]`` is card ``first_number + i``; take them from the series' card set
    (``card_set.cells[first - 1 : last]``).
    """

    series_id: int
    first_number: int
    cells: Cells

    @property
    def count(self) -> int:
        """How many cards the block holds."""
        return int(self.cells.shape[0])

    def where(self, i: int) -> _Where:
        """How messages name the block's card ``i`` (from 0)."""
        number = self.first_number + i
        return _Where(f"card {number} of series {self.series_id}", {"series": self.series_id, "card": number})


@dataclass(frozen=True, order=True)
class CardRef:
    """A sold card: its series and its number in the series."""

    series_id: int
    number: int


@dataclass(frozen=True)
class Hit:
    """A target a card completed, and the ball count at which it did."""

    target: Target
    at: int


@dataclass(frozen=True)
class Winner:
    """A card holding a prize, with every target of that prize it completed, earliest first."""

    card: CardRef
    #: The card's position in the detector (0-based), for ``Detector.card_check`` and friends.
    index: int
    prize: PrizeKind
    hits: tuple[Hit, ...]

    @property
    def completed_at(self) -> int:
        """The ball count at which the card first held the prize."""
        return self.hits[0].at


@dataclass(frozen=True, eq=False)
class Completions:
    """Targets completed, as three parallel read-only arrays ordered by (at, target, card).

    ``cards`` are positions in the detector, ``targets`` indexes into ``rules.targets`` and
    ``at`` the ball count at which each completed. They are decoded, when first read, from
    ``keys``: sorted ``(at * targets + target) * cards + card`` with ``base = (targets, cards)``.
    """

    prize: PrizeKind
    keys: Indices
    base: tuple[int, int]

    def __len__(self) -> int:
        """How many targets completed."""
        return int(self.keys.size)

    @cached_property
    def _split(self) -> tuple[Indices, npt.NDArray[np.int16], Counts]:
        """The keys decoded into cards, targets and ball counts (once)."""
        targets, n = self.base
        rest, cards = np.divmod(self.keys, n)
        at, target = np.divmod(rest, targets)
        found = (cards, target.astype(np.int16), at.astype(np.uint8))
        for array in found:
            array.setflags(write=False)
        return found

    @property
    def cards(self) -> Indices:
        """The cards (positions in the detector)."""
        return self._split[0]

    @property
    def targets(self) -> npt.NDArray[np.int16]:
        """The targets completed (indexes into ``rules.targets``)."""
        return self._split[1]

    @property
    def at(self) -> Counts:
        """The ball count at which each completed."""
        return self._split[2]


@dataclass(frozen=True, eq=False)
class BallOutcome:
    """What one ball changed: the targets it completed, per prize."""

    ball: int
    #: Balls drawn so far, this one included.
    count: int
    new: Mapping[PrizeKind, Completions] = field(default_factory=dict)

    @property
    def won(self) -> tuple[PrizeKind, ...]:
        """The prizes this ball completed on at least one card."""
        return tuple(prize for prize, found in self.new.items() if len(found))


def _readonly(array: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
    """A read-only view of ``array``: callers may read the detector's state, never change it."""
    view = array.view()
    view.flags.writeable = False
    return view


class Detector:
    """Every card sold in a game, followed ball by ball: who holds each prize, who is close.

    Build it when the game's sales close from the blocks sold (any number of series and blocks,
    up to a million cards), or mid-game with the balls drawn so far in ``drawn``; then call
    ``draw`` for each ball. It holds, for each card and target, the numbers still missing
    (uint8), and for each ball number, per cell position, the cards that print it there.
    """

    def __init__(
        self,
        rules: PrizeRules,
        blocks: Iterable[SoldCards | tuple[int, int, Cells]],
        drawn: Iterable[int] = (),
    ) -> None:
        """Index the sold cards and apply the balls already drawn (in draw order).

        DetectionError for cards that are not the variant's, a card sold twice, or a wrong ball.
        """
        self.rules = rules
        self._layout = layout = _layout(rules)
        variant = rules.variant
        geo = geometry(variant)
        parts = [b if isinstance(b, SoldCards) else SoldCards(*b) for b in blocks]
        for part in parts:
            _check_cells(variant, part.cells, part.where)
        self._index_blocks(parts)
        if parts:
            cells = np.concatenate([p.cells for p in parts]) if len(parts) > 1 else np.array(parts[0].cells)
        else:
            cells = np.zeros((0, geo.rows, geo.cols), dtype=np.uint8)
        cells.setflags(write=False)
        self._cells = cells
        n = self.size = int(cells.shape[0])
        self._drawn: list[int] = list(_check_balls(variant, drawn))
        flat = cells.reshape(n, geo.cells)

        scratch = _scratch(layout, flat, self._drawn)
        self._counters = [m.copy() for m in scratch.missing]
        # need[k]: numbers each card still needs for prize k, the least over its targets; a
        # one-target prize reads its target's counter.
        self._need: list[Counts | None] = []
        self._near: list[list[int]] = []
        # Completed targets of each prize as sorted int64 keys (at * T + target) * N + card, one
        # array per ball: appended in ball order, their concatenation stays sorted.
        self._key_base = (len(layout.positions), max(n, 1))
        self._events: list[list[Indices]] = []
        for targets in layout.by_prize:
            if len(targets) == 1:
                self._need.append(None)
                need = self._counters[targets[0]]
            else:
                need = np.minimum.reduce([self._counters[t] for t in targets])
                self._need.append(need)
            self._near.append(np.bincount(need, minlength=NEAR + 1)[: NEAR + 1].tolist())
            keys = [self._keys(np.flatnonzero(scratch.at[t]), t, scratch.at[t]) for t in targets]
            found = np.sort(np.concatenate(keys)) if keys else _NO_KEYS
            self._events.append([found] if found.size else [])
        self._cache: dict[int, Completions] = {}
        self._counts: dict[int, tuple[int, ...]] = {}
        self._closed: set[PrizeKind] = set()
        self._skip: frozenset[int] = frozenset()

        # The inverted index: for each position p, cards sorted by the number printed there;
        # ball b's cards at p are one slice of it. Blanks (0) are dropped.
        self._by_ball: list[list[tuple[npt.NDArray[np.int32], tuple[int, ...]]]] = [
            [] for _ in range(geo.balls + 1)
        ]
        drawn_set = set(self._drawn)
        for p, targets in enumerate(layout.targets_at):
            if not targets or n == 0:
                continue
            values = np.ascontiguousarray(flat[:, p])
            order = np.argsort(values, kind="stable").astype(np.int32)
            ends = np.cumsum(np.bincount(values, minlength=geo.balls + 1))
            low, high = geo.column_ranges[p % geo.cols]
            for ball in range(low, high + 1):
                start, end = int(ends[ball - 1]), int(ends[ball])
                if end > start and ball not in drawn_set:
                    self._by_ball[ball].append((order[start:end].copy(), targets))

    # -- identity of the cards ---------------------------------------------------------------

    def _index_blocks(self, parts: list[SoldCards]) -> None:
        """Record where each block starts; DetectionError for a card sold twice in the game."""
        starts = [0]
        spans: dict[int, list[tuple[int, int, int]]] = {}
        for part in parts:
            if (
                isinstance(part.first_number, bool)
                or not isinstance(part.first_number, int)
                or part.first_number < 1
            ):
                raise DetectionError(
                    f"series {part.series_id}: card numbers start at 1, not {part.first_number!r}",
                    code="card_number_invalid",
                    params={"series": part.series_id, "number": repr(part.first_number)},
                )
            if part.count:
                spans.setdefault(part.series_id, []).append((part.first_number, part.count, starts[-1]))
            starts.append(starts[-1] + part.count)
        for series, found in spans.items():
            found.sort()
            for (first, count, _), (following, _, _) in pairwise(found):
                if following < first + count:
                    raise DetectionError(
                        f"series {series}: card {following} is sold twice in this game (R36, R38)",
                        code="card_sold_twice",
                        params={"series": series, "number": following},
                    )
        self._starts = np.array(starts, dtype=np.int64)
        self._block_series = np.array([p.series_id for p in parts], dtype=np.int64)
        self._block_first = np.array([p.first_number for p in parts], dtype=np.int64)
        self._spans = spans

    def card_index(self, series_id: int, number: int) -> int:
        """The position of a sold card in the detector; DetectionError if it was not sold."""
        found = self._spans.get(series_id, [])
        at = bisect.bisect_right(found, (number, float("inf"), 0)) - 1
        if at >= 0:
            first, count, start = found[at]
            if first <= number < first + count:
                return start + number - first
        raise DetectionError(
            f"card {number} of series {series_id} was not sold in this game",
            code="card_not_sold",
            params={"series": series_id, "number": number},
        )

    def card_ref(self, index: int) -> CardRef:
        """The series and number of the card at ``index``."""
        if not 0 <= index < self.size:
            raise IndexError(f"no card at {index}: the detector holds {self.size}")
        block = int(np.searchsorted(self._starts, index, side="right")) - 1
        number = int(self._block_first[block]) + index - int(self._starts[block])
        return CardRef(int(self._block_series[block]), number)

    def card_refs(self, indices: npt.ArrayLike) -> tuple[Indices, Indices]:
        """Series ids and card numbers of many cards at once, as two arrays."""
        where = np.asarray(indices, dtype=np.int64)
        block = np.searchsorted(self._starts, where, side="right") - 1
        return self._block_series[block], self._block_first[block] + where - self._starts[block]

    def card_cells(self, index: int) -> Cells:
        """The cells of the card at ``index`` (read-only)."""
        if not 0 <= index < self.size:
            raise IndexError(f"no card at {index}: the detector holds {self.size}")
        card: Cells = self._cells[index]
        return card

    def card_check(self, series_id: int, number: int) -> CardCheck:
        """``card_check`` of a sold card against this game's balls (the claim screen, R43)."""
        return card_check(self.rules, self._cells[self.card_index(series_id, number)], self._drawn)

    # -- the draw ----------------------------------------------------------------------------

    @property
    def drawn(self) -> tuple[int, ...]:
        """The balls drawn so far, in order."""
        return tuple(self._drawn)

    @property
    def count(self) -> int:
        """How many balls have been drawn."""
        return len(self._drawn)

    def draw(self, ball: int) -> BallOutcome:
        """Mark ``ball`` on every card; the targets it completed, per prize still open.

        DetectionError for a number that is not a ball of the game or was drawn already.
        """
        number = _ball(self.rules.variant, ball)
        if number in self._drawn:
            raise DetectionError(
                f"ball {number} is drawn twice",
                code="ball_repeated",
                params={"ball": number, "balls": geometry(self.rules.variant).balls},
            )
        self._drawn.append(number)
        count = len(self._drawn)
        self._cache.clear()
        self._counts.clear()
        prize_of = self._layout.prize_of
        fresh: list[list[Indices]] = [[] for _ in self.rules.prizes]
        for cards32, targets in self._by_ball[number]:
            cards = cards32.astype(np.intp)
            for t in targets:
                if t in self._skip:
                    continue
                done = self._mark(cards, t)
                if done.size:
                    fresh[prize_of[t]].append(self._keys(done, t, count))
        self._by_ball[number] = []  # never needed again: a ball is drawn once
        new: dict[PrizeKind, Completions] = {}
        for k, prize in enumerate(self.rules.prizes):
            if prize in self._closed:
                continue
            keys = _merge(fresh[k])
            if keys.size:
                self._events[k].append(keys)
            new[prize] = self._decode(prize, keys)
        return BallOutcome(ball=number, count=count, new=MappingProxyType(new))

    def close(self, prize: PrizeKind) -> None:
        """Stop following ``prize``: it was confirmed and the draw resumed, so later claims of it
        are refused (R47). Its holders and counts stay as they are now; the other prizes' balls
        get cheaper (after the 90-ball line, about half).
        """
        k = self._prize_index(prize)
        self._closed.add(prize)
        self._skip = frozenset(self._skip | set(self._layout.by_prize[k]))

    @property
    def closed(self) -> frozenset[PrizeKind]:
        """The prizes no longer followed (``close``)."""
        return frozenset(self._closed)

    def _keys(self, cards: npt.NDArray[np.intp], t: int, at: int | Counts) -> Indices:
        """Sort keys of completions: (at * T + target) * N + card."""
        targets, n = self._key_base
        at64 = at if isinstance(at, int) else at[cards].astype(np.int64)
        return ((at64 * targets + t) * n + cards).astype(np.int64, copy=False)

    def _decode(self, prize: PrizeKind, keys: Indices) -> Completions:
        """Completions from sorted keys."""
        keys.setflags(write=False)
        return Completions(prize, keys, self._key_base)

    def _mark(self, cards: npt.NDArray[np.intp], t: int) -> npt.NDArray[np.intp]:
        """Take one from target ``t``'s counter on ``cards``; the cards it completed.

        Fancy-indexed assignment is right here because a ball is on a card at most once.
        """
        counter = self._counters[t]
        left = np.take(counter, cards)
        left -= 1
        counter[cards] = left
        k = self._layout.prize_of[t]
        need = self._need[k]
        near = self._near[k]
        if need is None:
            # A one-target prize: every card moved from v + 1 to v.
            for value in range(NEAR + 1):
                step = int(np.count_nonzero(left == value))
                near[value] += step
                if value < NEAR:
                    near[value + 1] -= step
        else:
            # The prize needs the least of its targets. Writing the minimum back to every card
            # is cheaper than picking the cards whose need fell (a mask of random density).
            before = np.take(need, cards)
            after = np.minimum(before, left)
            need[cards] = after
            for value in range(NEAR + 1):
                near[value] += int(np.count_nonzero(after == value)) - int(np.count_nonzero(before == value))
        done: npt.NDArray[np.intp] = cards[left == 0]
        return done

    # -- what the detector knows -------------------------------------------------------------

    def _prize_index(self, prize: PrizeKind) -> int:
        """Where ``prize`` stands in ``rules.prizes``; KeyError if the game does not pay it."""
        try:
            return self.rules.prizes.index(prize)
        except ValueError:
            raise KeyError(prize) from None

    def completions(self, prize: PrizeKind) -> Completions:
        """Every target of ``prize`` completed so far, on any card, by (at, target, card)."""
        k = self._prize_index(prize)
        if k not in self._cache:
            events = self._events[k]
            keys = events[0] if len(events) == 1 else np.concatenate(events or [_NO_KEYS])
            self._cache[k] = self._decode(prize, keys)
        return self._cache[k]

    def holders(self, prize: PrizeKind) -> Indices:
        """Positions of every card that holds ``prize`` now, ascending (R46, R49)."""
        return np.unique(self.completions(prize).cards)

    def winners(self, prize: PrizeKind) -> tuple[Winner, ...]:
        """Every card that holds ``prize`` now, earliest first, with the targets it completed."""
        found = self.completions(prize)
        targets = self.rules.targets
        hits: dict[int, list[Hit]] = {}
        for card, t, at in zip(found.cards.tolist(), found.targets.tolist(), found.at.tolist(), strict=True):
            hits.setdefault(card, []).append(Hit(targets[t], at))
        series, numbers = self.card_refs(list(hits))
        return tuple(
            Winner(CardRef(int(s), int(n)), card, prize, tuple(h))
            for (card, h), s, n in zip(hits.items(), series.tolist(), numbers.tolist(), strict=True)
        )

    def missing(self, prize: PrizeKind) -> Counts:
        """For each card, the numbers it still needs for ``prize`` (read-only; 0 = holds it)."""
        k = self._prize_index(prize)
        need = self._need[k]
        if need is None:
            need = self._counters[self._layout.by_prize[k][0]]
        return _readonly(need)  # type: ignore[return-value]

    def target_missing(self, target: int) -> Counts:
        """For each card, the numbers still missing from target ``rules.targets[target]`` (read-only)."""
        return _readonly(self._counters[target])  # type: ignore[return-value]

    def need_counts(self, prize: PrizeKind, most: int | None = None) -> tuple[int, ...]:
        """How many cards need 0, 1, 2, ... ``most`` more numbers for ``prize`` (default: up to all).

        ``[0]`` holds the prize, ``[1]`` is "one to go". Up to ``NEAR`` the counts are kept after
        every ball; asking beyond counts every card (once per ball).
        """
        k = self._prize_index(prize)
        top = max(self._layout.capacity[t] for t in self._layout.by_prize[k])
        most = top if most is None else most
        if most < 0:
            raise ValueError(f"most must be 0 or more, not {most}")
        if most <= NEAR:
            return tuple(self._near[k][: most + 1])
        if k not in self._counts:
            counts = np.bincount(self.missing(prize), minlength=top + 1)
            self._counts[k] = tuple(int(v) for v in counts)
        counts_all = self._counts[k]
        return counts_all[: most + 1] + (0,) * (most + 1 - len(counts_all))

    def one_to_go(self, prize: PrizeKind) -> int:
        """How many cards need one more number for ``prize``."""
        return self._near[self._prize_index(prize)][1]


_NO_KEYS = np.zeros(0, dtype=np.int64)


def _merge(pieces: list[Indices]) -> Indices:
    """Sorted pieces of keys as one sorted array.

    Pieces of different targets come in target order and need no sort (a 90-ball line); only
    pieces of one target from different cells (the full card) interleave.
    """
    if not pieces:
        return _NO_KEYS
    if len(pieces) == 1:
        return pieces[0]
    keys = np.concatenate(pieces)
    if all(int(a[-1]) < int(b[0]) for a, b in pairwise(pieces)):
        return keys
    keys.sort()
    return keys
