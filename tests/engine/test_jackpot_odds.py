"""Jackpot odds (R9): the exact single-card chance, its bounds for K cards, and the simulation."""

import math
from fractions import Fraction
from itertools import combinations, permutations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import (
    FirstBingoSimulation,
    Variant,
    exact_odds,
    generate_card_set,
    geometry,
    simulate_first_bingo,
    single_card_probability,
    suggest_balls,
    wilson_interval,
)
from bingo.engine import jackpot_odds as odds_module
from bingo.engine.jackpot_odds import (
    card_numbers,
    full_card_probability,
    independence_approximation,
    union_upper_bound,
)

VARIANTS = list(Variant)


def dkw_margin(draws: int, alpha: float = 0.001) -> float:
    """Dvoretzky-Kiefer-Wolfowitz: an empirical distribution function of ``draws`` samples is
    within this distance of the true one at every point at once, except with chance ``alpha``."""
    return math.sqrt(math.log(2 / alpha) / (2 * draws))


def exact_any_card_full(card_sets: list[frozenset[int]], balls: int, drawn: int) -> Fraction:
    """Chance that at least one of a few cards is full, by inclusion-exclusion over their unions."""
    total = Fraction(0)
    for size in range(1, len(card_sets) + 1):
        for chosen in combinations(card_sets, size):
            union = frozenset().union(*chosen)
            total += (-1) ** (size + 1) * full_card_probability(balls, len(union), drawn)
    return total


def naive_first_bingo(numbers: np.ndarray, keys: np.ndarray) -> list[int]:
    """The first-bingo ball of each draw, one draw and one card at a time (the reference)."""
    found = []
    for row in keys:
        rank = {ball: position + 1 for ball, position in enumerate(row.argsort())}
        found.append(min(max(rank[int(b)] for b in card) for card in numbers))
    return found


# --- one card, exactly ---------------------------------------------------------------------------


@given(st.integers(1, 10).flatmap(lambda b: st.tuples(st.just(b), st.integers(0, b), st.integers(0, b))))
def test_exact_formula_matches_enumerating_every_set_of_balls_drawn(case):
    balls, numbers, drawn = case
    card = set(range(numbers))
    sets = list(combinations(range(balls), drawn))
    full = sum(1 for s in sets if card <= set(s))
    assert full_card_probability(balls, numbers, drawn) == Fraction(full, len(sets))


@pytest.mark.parametrize("drawn", range(7))
def test_exact_formula_matches_enumerating_every_order_of_the_balls(drawn):
    balls, card = 6, {1, 3, 4}
    orders = list(permutations(range(balls)))
    full = sum(1 for order in orders if card <= set(order[:drawn]))
    assert full_card_probability(balls, len(card), drawn) == Fraction(full, len(orders))


def test_known_values():
    # The famous 90-ball figure: a full card in its first 15 balls is 1 in C(90, 15).
    assert single_card_probability(Variant.B90, 15) == Fraction(1, 45_795_673_964_460_816)
    assert single_card_probability(Variant.B90, 14) == 0
    assert single_card_probability(Variant.B90, 90) == 1
    # 75-ball: 24 numbers, the free centre needs no ball (R72).
    assert single_card_probability(Variant.B75, 24) == Fraction(1, math.comb(75, 24))
    assert single_card_probability(Variant.B75, 23) == 0
    assert single_card_probability(Variant.B80, 16) == Fraction(1, math.comb(80, 16))
    assert single_card_probability(Variant.B30, 9) == Fraction(1, 14_307_150)
    # 30-ball, one ball left in the blower: full unless that ball is one of the card's 9.
    assert single_card_probability(Variant.B30, 29) == Fraction(7, 10)
    assert single_card_probability(Variant.B30, 10) == Fraction(21, math.comb(30, 10))


@pytest.mark.parametrize("variant", VARIANTS)
def test_exact_distribution_has_the_known_mean_of_the_last_of_k_numbers(variant):
    # The largest of k ranks drawn from 1..B without replacement averages k (B + 1) / (k + 1).
    geo = geometry(variant)
    k, balls = geo.numbers_per_card, geo.balls
    mean = sum(1 - single_card_probability(variant, n) for n in range(balls))
    assert mean == Fraction(k * (balls + 1), k + 1)


def test_numbers_per_card_are_the_regulation_counts():
    counts = {v: geometry(v).numbers_per_card for v in VARIANTS}
    assert counts == {Variant.B90: 15, Variant.B80: 16, Variant.B75: 24, Variant.B30: 9}


@pytest.mark.parametrize("variant", VARIANTS)
def test_exact_chance_never_falls_as_balls_are_drawn(variant):
    chances = [single_card_probability(variant, n) for n in range(geometry(variant).balls + 1)]
    assert chances == sorted(chances)
    assert chances[0] == 0
    assert chances[-1] == 1


# --- K cards, bounds -----------------------------------------------------------------------------


def test_odds_for_k_cards_are_labelled_bounds_around_the_single_card_chance():
    odds = exact_odds(Variant.B90, 50, 1680)
    p = Fraction(math.comb(75, 35), math.comb(90, 50))
    assert odds.single == p
    assert odds.single_float == pytest.approx(float(p), rel=1e-15)
    assert odds.union_upper_bound == 1680 * p
    assert odds.independence_approximation == pytest.approx(1 - (1 - float(p)) ** 1680, rel=1e-12)
    assert odds.single_float < odds.independence_approximation < odds.union_upper_bound_float


def test_union_bound_is_capped_at_one():
    assert union_upper_bound(Fraction(1, 3), 4) == 1
    assert union_upper_bound(Fraction(1, 3), 2) == Fraction(2, 3)


@given(st.fractions(0, 1, max_denominator=10**6), st.integers(1, 12))
def test_independence_approximation_matches_exact_arithmetic(p, cards):
    exact = 1 - (1 - p) ** cards
    assert independence_approximation(p, cards) == pytest.approx(float(exact), rel=1e-9, abs=1e-15)


def test_independence_approximation_keeps_its_precision_for_the_rarest_jackpots():
    p = single_card_probability(Variant.B90, 15)
    assert independence_approximation(p, 1680) == pytest.approx(1680 * float(p), rel=1e-9)
    nearly_sure = 1 - Fraction(1, 10**30)
    assert independence_approximation(nearly_sure, 2) == 1.0


@pytest.mark.parametrize(("variant", "drawn"), [(Variant.B90, -1), (Variant.B90, 91), (Variant.B30, 31)])
def test_balls_drawn_outside_zero_to_b_are_refused(variant, drawn):
    with pytest.raises(ValueError, match="balls drawn must be a whole number from 0 to"):
        exact_odds(variant, drawn, 10)


@pytest.mark.parametrize("cards", [0, -5, True, 2.0])
def test_fewer_than_one_card_is_refused(cards):
    with pytest.raises(ValueError, match="cards must be a whole number of at least 1"):
        exact_odds(Variant.B90, 50, cards)


def test_balls_drawn_must_be_a_whole_number():
    with pytest.raises(ValueError, match="balls drawn"):
        single_card_probability(Variant.B90, True)


# --- Wilson score interval -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 and 1/10... and the
        # closed forms at 0 and n successes: z^2 / (n + z^2) and n / (n + z^2).
        (81, 263, 0.2553, 0.3662),
        (1, 10, 0.0179, 0.4042),
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
    ],
)
def test_wilson_interval_known_values(successes, trials, low, high):
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_closed_form_at_zero_successes():
    z = 1.959963984540054
    assert wilson_interval(0, 1000) == (0.0, pytest.approx(z * z / (1000 + z * z)))


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_holds_the_observed_share_and_stays_in_zero_one(case):
    successes, trials = case
    low, high = wilson_interval(successes, trials)
    assert 0 <= low <= successes / trials <= high <= 1
    wide_low, wide_high = wilson_interval(successes, trials, z=3.29)
    assert wide_low <= low
    assert wide_high >= high


@pytest.mark.parametrize(("successes", "trials"), [(0, 0), (-1, 10), (11, 10)])
def test_wilson_interval_refuses_impossible_counts(successes, trials):
    with pytest.raises(ValueError, match="must be a whole number"):
        wilson_interval(successes, trials)


# --- suggestions ---------------------------------------------------------------------------------


def test_suggest_balls_picks_the_closest_chance_and_the_fewest_balls_on_a_tie():
    chances = [0.0, 0.0, 0.01, 0.04, 0.07, 0.2, 1.0]
    assert suggest_balls(chances, 0.05) == 3
    assert suggest_balls(chances, 0.055) == 3  # 0.015 from both 0.04 and 0.07
    assert suggest_balls(chances, 0.0) == 2  # the fewest balls that give the jackpot a chance
    assert suggest_balls(chances, 0.9) == 6


@pytest.mark.parametrize("target", [-0.1, 1.5])
def test_suggest_balls_refuses_a_target_that_is_not_a_probability(target):
    with pytest.raises(ValueError, match="target"):
        suggest_balls([0.0, 1.0], target)


def test_suggest_balls_needs_some_chance_to_choose_from():
    with pytest.raises(ValueError, match="above 0"):
        suggest_balls([0.0, 0.0], 0.05)


# --- the simulation ------------------------------------------------------------------------------


def test_summary_of_a_known_distribution():
    sim = FirstBingoSimulation(
        variant=Variant.B30,
        cards=3,
        draws=10,
        first_bingo=(0,) * 10 + (1, 3, 4, 2) + (0,) * 17,
        card_seed=None,
    )
    assert sim.won_within(10) == 1
    assert sim.won_within(12) == 8
    assert sim.probability(11) == pytest.approx(0.4)
    assert sim.median == 12
    assert sim.quantile(0.1) == 10
    assert sim.quantile(1.0) == 13
    assert sim.mean == pytest.approx((10 * 1 + 11 * 3 + 12 * 4 + 13 * 2) / 10)
    assert sim.interval(11) == wilson_interval(4, 10)
    assert sim.suggest_balls(0.05) == 10  # never N = 9 or fewer: no bingo came that early
    assert sim.suggest_balls(0.08) == 10
    assert len(sim.cumulative()) == 31


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_card_simulated_agrees_with_the_exact_chance(variant):
    card = generate_card_set(variant, 1, seed=11).cells
    draws = 20_000
    sim = simulate_first_bingo(variant, draws=draws, rng=np.random.default_rng(2017), cells=card)
    exact = [float(single_card_probability(variant, n)) for n in range(geometry(variant).balls + 1)]
    # Every N at once: the whole simulated curve is within the DKW margin of the exact one.
    assert max(abs(s - e) for s, e in zip(sim.cumulative(), exact, strict=True)) < dkw_margin(draws)
    # And at the median ball the exact chance lies in the 95 % interval.
    median = min(n for n, e in enumerate(exact) if e >= 0.5)
    low, high = sim.interval(median)
    assert low <= exact[median] <= high


def test_two_real_cards_simulated_agree_with_inclusion_exclusion():
    cells = generate_card_set(Variant.B30, 2, seed=5).cells
    sets = [frozenset(int(v) for v in card.ravel() if v) for card in cells]
    draws = 20_000
    sim = simulate_first_bingo(Variant.B30, draws=draws, rng=np.random.default_rng(9), cells=cells)
    exact = [float(exact_any_card_full(sets, 30, n)) for n in range(31)]
    assert max(abs(s - e) for s, e in zip(sim.cumulative(), exact, strict=True)) < dkw_margin(draws)
    low, high = sim.interval(sim.median)
    assert low <= exact[sim.median] <= high


def test_simulation_matches_a_draw_by_draw_reference_exactly():
    variant, draws = Variant.B75, 150
    cells = generate_card_set(variant, 7, seed=3).cells
    numbers = card_numbers(variant, cells)
    keys = np.random.default_rng(4).random((draws, 75))
    reference = naive_first_bingo(numbers, keys)
    sim = simulate_first_bingo(variant, draws=draws, rng=np.random.default_rng(4), cells=cells)
    assert sim.first_bingo == tuple(reference.count(n) for n in range(76))


def test_batches_give_the_same_result_as_one_pass(monkeypatch):
    cells = generate_card_set(Variant.B90, 40, seed=8).cells
    whole = simulate_first_bingo(Variant.B90, draws=1000, rng=np.random.default_rng(1), cells=cells)
    monkeypatch.setattr(odds_module, "_BATCH_CELLS", 40 * 7)  # batches of 7 draws, the last one short
    batched = simulate_first_bingo(Variant.B90, draws=1000, rng=np.random.default_rng(1), cells=cells)
    assert batched.first_bingo == whole.first_bingo


def test_copies_of_one_card_win_exactly_when_the_card_does():
    card = generate_card_set(Variant.B80, 1, seed=2).cells
    alone = simulate_first_bingo(Variant.B80, draws=500, rng=np.random.default_rng(6), cells=card)
    copies = simulate_first_bingo(
        Variant.B80, draws=500, rng=np.random.default_rng(6), cells=np.repeat(card, 30, axis=0)
    )
    assert copies.first_bingo == alone.first_bingo
    assert copies.cards == 30


def test_many_cards_are_monotone_between_the_single_chance_and_the_union_bound():
    sim = simulate_first_bingo(Variant.B90, draws=4000, rng=np.random.default_rng(1680), cards=1680)
    assert sim.cards == 1680
    assert sum(sim.first_bingo) == 4000
    curve = sim.cumulative()
    assert list(curve) == sorted(curve)
    assert curve[14] == 0
    assert curve[90] == 1
    for n in range(91):
        odds = exact_odds(Variant.B90, n, 1680)
        low, high = sim.interval(n)
        assert low <= odds.union_upper_bound_float, n
        assert high >= odds.single_float, n
    # Many cards make the jackpot far likelier than one card does, at the same N.
    assert sim.probability(55) > 100 * float(single_card_probability(Variant.B90, 55))


def test_generated_cards_are_reproducible_from_the_recorded_seed():
    sim = simulate_first_bingo(Variant.B30, draws=300, rng=np.random.default_rng(77), cards=25)
    assert sim.card_seed is not None
    rng = np.random.default_rng(77)
    rng.bytes(16)  # the card seed was taken first
    assert sim.card_algorithm == "cards/2"
    cells = generate_card_set(Variant.B30, 25, seed=sim.card_seed, algorithm=sim.card_algorithm).cells
    again = simulate_first_bingo(Variant.B30, draws=300, rng=rng, cells=cells)
    assert again.first_bingo == sim.first_bingo
    assert again.card_seed is None
    assert again.card_algorithm is None


def test_a_hundred_thousand_cards_fit():
    sim = simulate_first_bingo(Variant.B90, draws=40, rng=np.random.default_rng(0), cards=100_000)
    assert sim.cards == 100_000
    assert sum(sim.first_bingo) == 40
    assert sim.quantile(1.0) < 60  # with 100,000 cards some card is always full well before ball 60


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"draws": 0, "cards": 5}, "draws must be a whole number of at least 1"),
        ({"draws": 10, "cards": 0}, "cards must be a whole number of at least 1"),
        ({"draws": 10}, "give either the cards' cells or how many cards"),
        ({"draws": 10, "cards": 3, "cells": np.zeros((2, 3, 3), np.uint8)}, "3 cards asked for but 2 given"),
    ],
)
def test_simulation_refuses_bad_requests(kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate_first_bingo(Variant.B30, rng=np.random.default_rng(0), **kwargs)


def test_card_numbers_leave_out_blanks_and_the_free_centre():
    cells = generate_card_set(Variant.B75, 3, seed=1).cells
    numbers = card_numbers(Variant.B75, cells)
    assert numbers.shape == (3, 24)
    for card, row in zip(cells, numbers, strict=True):
        assert card[2, 2] == 0
        assert sorted(int(v) - 1 for v in card.ravel() if v) == row.tolist()


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        (np.zeros((2, 3, 9), np.uint8), r"shaped \(cards, 3, 3\)"),
        (np.zeros((0, 3, 3), np.uint8), "at least one card"),
        (np.full((1, 3, 3), 31, np.uint8), "from 1 to 30"),
        (np.array([[[1, 2, 3], [4, 5, 6], [7, 8, 0]]], np.uint8), "card 1 holds 8 numbers"),
        (np.array([[[1, 2, 3], [4, 5, 6], [7, 8, 8]]], np.uint8), "the same number twice"),
    ],
)
def test_card_numbers_refuse_cards_that_are_not_cards(cells, message):
    with pytest.raises(ValueError, match=message):
        card_numbers(Variant.B30, cells)
