"""Prize rules: which prizes a game pays and what wins each one (R5, R66-R67, R72-R75, R83-R84).

``PrizeRules`` refuses, citing the rule, a combination the regulation does not allow, and spells
the prizes out as *targets*, the sets of cells a card must have marked: the rows of the card
(and the columns and diagonals the operator allows) for the line (R5 a), R67, R75, R84 a)), the
four corners (R74, R84 c)), the full card or a 75-ball pattern for the bingo (R73). Free cells
(the 75-ball centre) are left out of every target: they count as marked (R72).
``parse_pattern`` and ``pattern_text`` read and write a pattern.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from bingo.engine.errors import EngineError
from bingo.engine.prizes import PrizeKind
from bingo.engine.variants import Line, LineKind, Variant, geometry, lines

#: A cell of a card: (row, column), from 0.
Cell = tuple[int, int]

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
            "pattern_unknown",
            "pattern_key_and_cells",
            "line_kinds_missing",
            "line_kinds_without_line",
            "line_kind_not_in_variant",
        }
    )


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
