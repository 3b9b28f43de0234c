"""Prize plan maths: the R7 split, the jackpot's 3 % (R10), shared prizes (R6)."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import (
    PrizeKind,
    PrizePlan,
    PrizePlanError,
    Variant,
    bingo_paid_percent,
    default_plan,
    plan_validate,
    prize_amounts,
    share,
)

D = Decimal
LINE, BINGO, CORNERS, COLUMN = PrizeKind.LINE, PrizeKind.BINGO, PrizeKind.FOUR_CORNERS, PrizeKind.COLUMN


def plan(*shares):
    return PrizePlan(tuple((kind, D(percent)) for kind, percent in shares))


@pytest.mark.parametrize("variant", list(Variant))
def test_default_plan_is_twenty_line_sixty_bingo(variant):
    assert default_plan(variant) == plan((LINE, 20), (BINGO, 60))


@pytest.mark.parametrize("jackpot", [False, True])
def test_default_plan_is_valid_with_or_without_jackpot(jackpot):
    plan_validate(default_plan(Variant.B90), jackpot_active=jackpot)


def test_default_plan_with_jackpot_pays_bingo_58_2_percent():
    assert bingo_paid_percent(default_plan(Variant.B90), jackpot_active=True) == D("58.2")


def test_25_55_is_valid_without_jackpot():
    plan_validate(plan((LINE, 25), (BINGO, 55)), jackpot_active=False)


def test_25_55_with_jackpot_is_refused_citing_r7():
    with pytest.raises(PrizePlanError, match=r"R7.*55 % of sales.*53\.35 %"):
        plan_validate(plan((LINE, 25), (BINGO, 55)), jackpot_active=True)


def test_additional_prizes_may_share_the_twenty_percent():
    plan_validate(plan((LINE, 10), (CORNERS, 5), (COLUMN, 5), (BINGO, 60)), jackpot_active=True)


def test_all_eighty_to_bingo_is_valid():
    plan_validate(plan((BINGO, 80)), jackpot_active=True)


@pytest.mark.parametrize(
    "shares", [[(LINE, 20), (BINGO, 59)], [(LINE, 21), (BINGO, 60)], [(LINE, "19.99"), (BINGO, 60)]]
)
def test_total_other_than_eighty_is_refused(shares):
    with pytest.raises(PrizePlanError, match=r"R7: the prize shares must total exactly 80 %"):
        plan_validate(plan(*shares), jackpot_active=False)


def test_plan_without_bingo_is_refused():
    with pytest.raises(PrizePlanError, match="R7: a prize plan must pay a bingo prize"):
        plan_validate(plan((LINE, 80)), jackpot_active=False)


def test_empty_plan_is_refused():
    with pytest.raises(PrizePlanError, match="R7"):
        plan_validate(PrizePlan(()), jackpot_active=False)


def test_two_bingo_shares_are_refused():
    with pytest.raises(PrizePlanError, match=r"R7: each prize may appear once.*bingo"):
        plan_validate(plan((BINGO, 40), (BINGO, 40)), jackpot_active=False)


@pytest.mark.parametrize("bad", ["0", "-5"])
def test_share_must_be_positive(bad):
    with pytest.raises(PrizePlanError, match="R7: the line share must be above 0 %"):
        plan_validate(plan((LINE, bad), (BINGO, 80 - int(bad))), jackpot_active=False)


def test_share_must_be_a_finite_decimal():
    with pytest.raises(PrizePlanError, match="finite Decimal"):
        plan_validate(PrizePlan(((LINE, 20.0), (BINGO, D(60)))), jackpot_active=False)  # type: ignore[arg-type]
    with pytest.raises(PrizePlanError, match="finite Decimal"):
        plan_validate(plan((LINE, "NaN"), (BINGO, 60)), jackpot_active=False)


def test_bingo_below_55_is_refused_without_jackpot():
    with pytest.raises(PrizePlanError, match=r"at least 55 % of sales; this plan pays 54 %"):
        plan_validate(plan((LINE, 26), (BINGO, 54)), jackpot_active=False)


def test_amounts_of_the_default_plan_without_jackpot():
    amounts = prize_amounts(default_plan(Variant.B90), D(10000), jackpot_active=False)
    assert amounts.prize_money == D(8000)
    assert amounts.jackpot_contribution == 0
    assert amounts.amounts == ((LINE, D(2000)), (BINGO, D(6000)))
    assert amounts.remainder == 0


def test_amounts_of_the_default_plan_with_jackpot():
    amounts = prize_amounts(default_plan(Variant.B90), D(10000), jackpot_active=True)
    assert amounts.prize_money == D(8000)
    assert amounts.jackpot_contribution == D(240)  # R10: 3 % of the prize money
    assert amounts.amount(LINE) == D(1940)
    assert amounts.amount(BINGO) == D(5820)  # 58.2 % of sales
    assert amounts.remainder == 0
    assert amounts.by_kind == {LINE: D(1940), BINGO: D(5820)}


def test_amounts_round_down_and_keep_the_remainder():
    # 1 234 of sales: prize money 987.2; jackpot 29.616 -> 29; rest 958.2 split 1:3.
    amounts = prize_amounts(default_plan(Variant.B90), D(1234), jackpot_active=True)
    assert amounts.prize_money == D("987.2")
    assert amounts.jackpot_contribution == D(29)
    assert amounts.amounts == ((LINE, D(239)), (BINGO, D(718)))
    assert amounts.remainder == D("1.2")


def test_amounts_to_the_centavo():
    amounts = prize_amounts(default_plan(Variant.B90), D(1234), jackpot_active=True, quantum=D("0.01"))
    assert amounts.jackpot_contribution == D("29.61")
    assert amounts.amounts == ((LINE, D("239.39")), (BINGO, D("718.19")))
    assert amounts.remainder == D("0.01")


def test_amount_of_a_prize_not_in_the_plan_is_a_key_error():
    with pytest.raises(KeyError):
        prize_amounts(default_plan(Variant.B90), D(100), jackpot_active=False).amount(CORNERS)


def test_amounts_refuse_an_invalid_plan():
    with pytest.raises(PrizePlanError, match="R7"):
        prize_amounts(plan((LINE, 25), (BINGO, 55)), D(1000), jackpot_active=True)


@pytest.mark.parametrize("sales", [D(-1), D("NaN"), 100])
def test_amounts_refuse_bad_sales(sales):
    with pytest.raises(ValueError, match="sales must be a non-negative Decimal"):
        prize_amounts(default_plan(Variant.B90), sales, jackpot_active=False)


@pytest.mark.parametrize("quantum", [D(0), D(-1), D("Infinity")])
def test_amounts_refuse_bad_quantum(quantum):
    with pytest.raises(ValueError, match="quantum must be a positive Decimal"):
        prize_amounts(default_plan(Variant.B90), D(100), jackpot_active=False, quantum=quantum)


def test_zero_sales_pay_nothing():
    amounts = prize_amounts(default_plan(Variant.B90), D(0), jackpot_active=True)
    assert amounts.prize_money == amounts.jackpot_contribution == amounts.remainder == 0
    assert all(value == 0 for _, value in amounts.amounts)


# Percent with up to two decimals, as an operator would type it.
percents = st.integers(min_value=1, max_value=2500).map(lambda cents: D(cents).scaleb(-2))


@st.composite
def valid_plans(draw):
    """A plan R7 accepts: up to three additional prizes taking at most 20 % (19.4 % with the jackpot)."""
    jackpot = draw(st.booleans())
    kinds = draw(st.lists(st.sampled_from([LINE, CORNERS, COLUMN]), unique=True, max_size=3))
    budget = D("19.4") if jackpot else D(25)  # 80 - 55 / 0.97 = 23.29..; 19.4 keeps it simple
    shares = []
    left = budget
    for kind in kinds:
        if left <= D("0.01"):
            break
        percent = min(draw(percents), left - D("0.01"))
        shares.append((kind, percent))
        left -= percent
    bingo = D(80) - sum((p for _, p in shares), D(0))
    shares.insert(draw(st.integers(min_value=0, max_value=len(shares))), (BINGO, bingo))
    return PrizePlan(tuple(shares)), jackpot


sales_amounts = st.one_of(
    st.integers(min_value=0, max_value=10**9).map(D),
    st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False, allow_infinity=False),
)
quanta = st.sampled_from([D("1"), D("0.01"), D("5"), D("10"), D("0.5")])


@given(valid_plans(), sales_amounts, quanta)
def test_amounts_add_up_to_the_prize_money_exactly(plan_and_jackpot, sales, quantum):
    prize_plan, jackpot = plan_and_jackpot
    plan_validate(prize_plan, jackpot_active=jackpot)
    amounts = prize_amounts(prize_plan, sales, jackpot_active=jackpot, quantum=quantum)
    assert amounts.prize_money == sales * D("0.8")
    paid = sum((value for _, value in amounts.amounts), D(0))
    assert amounts.jackpot_contribution + paid + amounts.remainder == amounts.prize_money
    assert [kind for kind, _ in amounts.amounts] == [kind for kind, _ in prize_plan.shares]
    for value in (amounts.jackpot_contribution, *(value for _, value in amounts.amounts)):
        assert value >= 0
        assert value % quantum == 0
    assert 0 <= amounts.remainder < len(prize_plan.shares) * quantum
    if jackpot:
        assert amounts.prize_money * D("0.03") - quantum < amounts.jackpot_contribution
        assert amounts.jackpot_contribution <= amounts.prize_money * D("0.03")
    else:
        assert amounts.jackpot_contribution == 0
    # R7: the bingo paid, less at most one quantum of rounding, is 55 % of sales or more.
    assert amounts.amount(BINGO) > sales * D("0.55") - quantum


def test_share_splits_equally_and_keeps_the_remainder():
    assert share(D(1000), 3) == (D(333), D(1))
    assert share(D(1000), 3, D("0.01")) == (D("333.33"), D("0.01"))
    assert share(D(1000), 1) == (D(1000), D(0))
    assert share(D(2), 3) == (D(0), D(2))


@pytest.mark.parametrize("winners", [0, -1, True, 1.0])
def test_share_needs_at_least_one_winner(winners):
    with pytest.raises(ValueError, match="R6: a prize is shared by at least 1 winner"):
        share(D(100), winners)


@given(sales_amounts, st.integers(min_value=1, max_value=500), quanta)
def test_share_parts_add_up_exactly(amount, winners, quantum):
    each, remainder = share(amount, winners, quantum)
    assert each * winners + remainder == amount
    assert each % quantum == 0
    assert 0 <= remainder < winners * quantum
