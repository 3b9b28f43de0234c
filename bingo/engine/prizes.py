"""Prize plan maths: how a game's sales become prizes (R6, R7, R10).

Money is ``decimal.Decimal`` throughout, never float. Percentages are percent of the game's
sales (face value of every card sold in it), so a plan's shares always total 80 (R7).

Amounts are rounded down to a quantum (the smallest unit paid: ``Decimal("1")`` for whole
escudos, ``Decimal("0.01")`` for centavos); what rounding leaves over is returned as a
remainder for the acta, never dropped (SPEC §2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, Inexact, localcontext
from enum import StrEnum

from bingo.engine.errors import EngineError
from bingo.engine.variants import Variant

#: Share of the game's sales paid out in prizes (R7).
PRIZE_PERCENT = Decimal(80)
#: Share of the prize money that goes to the progressive jackpot in each game (R10).
JACKPOT_PERCENT = Decimal(3)
#: Floor for the bingo prize actually paid, as percent of sales (R7 as read by SPEC §2).
MIN_BINGO_PERCENT = Decimal(55)

_HUNDRED = Decimal(100)
# Enough digits that every product and quotient below is exact for any realistic amount; the
# Inexact trap turns a silent rounding into an error rather than a lost centavo.
_PRECISION = 60


class PrizePlanError(EngineError):
    """A prize plan that breaks R7, or a prize request the maths cannot meet."""

    codes = frozenset(
        {
            "plan_empty",
            "share_not_decimal",
            "share_not_positive",
            "prize_repeated",
            "no_bingo",
            "total_not_80",
            "bingo_below_minimum",
            "bingo_below_minimum_after_jackpot",  # R10
        }
    )


class PrizeKind(StrEnum):
    """A prize a game may pay.

    The 75-ball pattern game (R73 b)) pays its pattern as the game's ``bingo`` prize, so there
    is no separate kind for it: a plan always has exactly one bingo share.
    """

    LINE = "line"  # R5 a), R66 a), R74 a), R84 a)
    BINGO = "bingo"  # R5 b), R66 b), R73, R83
    FOUR_CORNERS = "four_corners"  # R74 b), R84 c)
    COLUMN = "column"  # R84 b)


@dataclass(frozen=True)
class PrizePlan:
    """A game's prize plan: each prize kind with its percent of the game's sales.

    Build freely; ``plan_validate`` says whether the plan may be used (R7).
    """

    shares: tuple[tuple[PrizeKind, Decimal], ...]

    @property
    def total(self) -> Decimal:
        """The sum of the shares, in percent of sales (R7 wants exactly 80)."""
        return sum((percent for _, percent in self.shares), Decimal(0))

    def percent(self, kind: PrizeKind) -> Decimal:
        """The share of ``kind`` in percent of sales; 0 if the plan does not pay it."""
        return sum((percent for k, percent in self.shares if k is kind), Decimal(0))


@dataclass(frozen=True)
class PrizeAmounts:
    """What one game pays, worked out from its sales.

    Always ``jackpot_contribution + sum(amounts) + remainder == prize_money`` exactly.
    """

    #: 80 % of the sales, exact (R7).
    prize_money: Decimal
    #: 3 % of the prize money when the jackpot is active, rounded down to the quantum (R10).
    jackpot_contribution: Decimal
    #: Each prize of the plan, in the plan's order, rounded down to the quantum.
    amounts: tuple[tuple[PrizeKind, Decimal], ...]
    #: What rounding left over; recorded in the acta, never lost (SPEC §2).
    remainder: Decimal

    def amount(self, kind: PrizeKind) -> Decimal:
        """The amount of prize ``kind``; KeyError if the plan does not pay it."""
        for k, value in self.amounts:
            if k is kind:
                return value
        raise KeyError(kind)

    @property
    def by_kind(self) -> Mapping[PrizeKind, Decimal]:
        """The amounts as a mapping, for templates and the acta."""
        return dict(self.amounts)


def default_plan(variant: Variant) -> PrizePlan:
    """The regulation's plan for ``variant``: 20 % line, 60 % bingo (R7).

    R7 gives 20 % to "the line and/or additional prizes". Every variant's default puts it on the
    line (R5 a), R66 a), R74 a), R84 a)); an operator who also pays four corners (75, 30) or a
    column (30) configures that split and checks it with ``plan_validate``.
    """
    # Every variant has the same default today; callers pass the variant so that one that
    # differs later needs no change on their side.
    return PrizePlan(((PrizeKind.LINE, Decimal(20)), (PrizeKind.BINGO, Decimal(60))))


def bingo_paid_percent(plan: PrizePlan, *, jackpot_active: bool) -> Decimal:
    """The bingo actually paid, in percent of sales, once the jackpot's 3 % is taken (R7, R10)."""
    bingo = plan.percent(PrizeKind.BINGO)
    if not jackpot_active:
        return bingo
    # R10: the jackpot takes 3 % of the prize money first; the plan's shares split the rest in
    # proportion, so each share shrinks by the same 3 %.
    return bingo * (_HUNDRED - JACKPOT_PERCENT) / _HUNDRED


def plan_validate(plan: PrizePlan, *, jackpot_active: bool) -> None:
    """Refuse a plan that breaks R7, with a PrizePlanError saying why; return None if it is fine.

    The shares must total exactly 80 % of sales, each be positive, name each kind at most once
    and include exactly one bingo; the bingo actually paid (after the jackpot's 3 % of the prize
    money when the jackpot is active, R10) must stay at or above 55 % of sales.
    """
    if not plan.shares:
        raise PrizePlanError("R7: a prize plan needs at least the bingo prize", code="plan_empty")
    kinds = [kind for kind, _ in plan.shares]
    for kind, percent in plan.shares:
        if not isinstance(percent, Decimal) or not percent.is_finite():
            raise PrizePlanError(
                f"R7: the {kind} share must be a finite Decimal percent, not {percent!r}",
                code="share_not_decimal",
                params={"kind": str(kind), "percent": str(percent)},
            )
        if percent <= 0:
            raise PrizePlanError(
                f"R7: the {kind} share must be above 0 %, not {percent} %",
                code="share_not_positive",
                params={"kind": str(kind), "percent": percent},
            )
    repeated = sorted({kind.value for kind in kinds if kinds.count(kind) > 1})
    if repeated:
        raise PrizePlanError(
            f"R7: each prize may appear once in a plan; repeated: {', '.join(repeated)}",
            code="prize_repeated",
            params={"kinds": tuple(repeated)},
        )
    if PrizeKind.BINGO not in kinds:
        raise PrizePlanError("R7: a prize plan must pay a bingo prize", code="no_bingo")
    if plan.total != PRIZE_PERCENT:
        raise PrizePlanError(
            f"R7: the prize shares must total exactly 80 % of sales, not {plan.total} %",
            code="total_not_80",
            params={"total": plan.total, "required": PRIZE_PERCENT},
        )
    paid = bingo_paid_percent(plan, jackpot_active=jackpot_active)
    if paid < MIN_BINGO_PERCENT:
        after = " after the jackpot's 3 % (R10)" if jackpot_active else ""
        raise PrizePlanError(
            f"R7: the bingo prize must be at least 55 % of sales{after}; "
            f"this plan pays {paid.normalize():f} %",
            code="bingo_below_minimum_after_jackpot" if jackpot_active else "bingo_below_minimum",
            params={"paid": paid.normalize(), "minimum": MIN_BINGO_PERCENT},
        )


def _check_quantum(quantum: Decimal) -> None:
    """Refuse a quantum that is not a positive finite Decimal."""
    if not isinstance(quantum, Decimal) or not quantum.is_finite() or quantum <= 0:
        raise ValueError(f"the quantum must be a positive Decimal, not {quantum!r}")


def _check_money(name: str, value: Decimal) -> None:
    """Refuse an amount of money that is not a finite, non-negative Decimal."""
    if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
        raise ValueError(f"{name} must be a non-negative Decimal, not {value!r}")


def _floor_to(value: Decimal, quantum: Decimal) -> Decimal:
    """``value`` rounded down to a multiple of ``quantum`` (both non-negative); exact."""
    # Decimal's ``//`` is the exact integer part of the true quotient: no intermediate rounding.
    return (value // quantum) * quantum


def prize_amounts(
    plan: PrizePlan, sales: Decimal, *, jackpot_active: bool, quantum: Decimal = Decimal("1")
) -> PrizeAmounts:
    """The prizes a game with ``sales`` pays under ``plan`` (R7, R10).

    The prize money is 80 % of sales, exact. When the jackpot is active, 3 % of the prize money
    goes to it first, rounded down to the quantum; the rest is split in the plan's proportions,
    each prize rounded down to the quantum. What the rounding leaves is the remainder (fewer
    than one quantum per prize). PrizePlanError if the plan breaks R7.
    """
    plan_validate(plan, jackpot_active=jackpot_active)
    _check_money("sales", sales)
    _check_quantum(quantum)
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        ctx.traps[Inexact] = True
        prize_money = sales * PRIZE_PERCENT / _HUNDRED
        jackpot = Decimal(0)
        if jackpot_active:
            jackpot = _floor_to(prize_money * JACKPOT_PERCENT / _HUNDRED, quantum)
        rest = prize_money - jackpot
        amounts = tuple(
            (kind, _floor_to(rest * percent / PRIZE_PERCENT, quantum)) for kind, percent in plan.shares
        )
        remainder = rest - sum((value for _, value in amounts), Decimal(0))
    assert remainder >= 0
    return PrizeAmounts(
        prize_money=prize_money, jackpot_contribution=jackpot, amounts=amounts, remainder=remainder
    )


def share(amount: Decimal, winners: int, quantum: Decimal = Decimal("1")) -> tuple[Decimal, Decimal]:
    """Split a prize among ``winners`` equal parts (R6): (each part, remainder).

    Each part is rounded down to the quantum; the remainder (less than one quantum per winner)
    is recorded, never lost: ``each * winners + remainder == amount``.
    """
    if isinstance(winners, bool) or not isinstance(winners, int) or winners < 1:
        raise ValueError(f"R6: a prize is shared by at least 1 winner, not {winners!r}")
    _check_money("the prize", amount)
    _check_quantum(quantum)
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        ctx.traps[Inexact] = True
        # floor(amount / winners) to the quantum, exactly: one integer division, no rounding.
        each = (amount // (quantum * winners)) * quantum
        remainder = amount - each * winners
    return each, remainder
