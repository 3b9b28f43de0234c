"""Odds of the progressive jackpot: a bingo (full card) within N balls (R9).

The jackpot goes to a bingo achieved within a number of balls N fixed and announced at the
start of the session (R9); the operator picks N, and this module says how often a given N pays.

* One card, exactly. A card of ``k`` numbers is full after N of B balls when all ``k`` are among
  the first N drawn: C(B - k, N - k) / C(B, N). The 75-ball free centre carries no number and
  counts as marked (R72), so ``k`` is the count of numbers printed: 90: 15, 80: 16, 75: 24,
  30: 9 (``Geometry.numbers_per_card``).
* K cards, bounds. The union bound min(1, K p) is an upper bound; 1 - (1 - p)^K is only an
  approximation (it treats the cards as independent, which cards sharing numbers are not).
* K real cards, simulated. Each simulated draw is a random order of the B balls; a card is full
  at the largest rank (position in the draw) of its numbers, and the game's first bingo comes at
  the smallest of those over the cards. One simulation gives the distribution of the first
  bingo's ball count, so P(first bingo within N) for every N at once, each with a Wilson score
  interval.

Randomness is a parameter: a ``numpy.random.Generator`` seeded by the caller (production seeds
it from ``secrets``, tests with a constant).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from bingo.engine.cardset import Cells
from bingo.engine.generate import ALGORITHM_CARDS, generate_card_set
from bingo.engine.variants import Variant, geometry

#: z of a two-sided 95 % interval (1.95996...).
Z95 = NormalDist().inv_cdf(0.975)

#: Cells of the (cards x draws) work buffers of one simulation batch: two of them, one byte
#: each, 8 MiB together whatever the number of cards. Measured fastest on a 32 MiB L3 cache
#: (bench/jackpot_odds.py): larger batches spill out of it, smaller ones pay numpy's overhead.
_BATCH_CELLS = 1 << 22
#: Most draws in one batch (the random keys take 8 bytes x balls x draws).
_MAX_BATCH_DRAWS = 16_384


# --- one card, exactly ---------------------------------------------------------------------------


def _check_count(name: str, value: int, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {value!r}")


def full_card_probability(balls: int, numbers: int, drawn: int) -> Fraction:
    """Exact chance that a card of ``numbers`` numbers is full within ``drawn`` of ``balls`` balls.

    All ``numbers`` must be among the ``drawn`` balls: C(balls - numbers, drawn - numbers) of
    the C(balls, drawn) equally likely sets of balls drawn. Zero when fewer balls than numbers.
    """
    _check_count("balls", balls, 1, 255)
    _check_count("numbers", numbers, 0, balls)
    _check_count("balls drawn", drawn, 0, balls)
    if drawn < numbers:
        return Fraction(0)
    return Fraction(math.comb(balls - numbers, drawn - numbers), math.comb(balls, drawn))


def single_card_probability(variant: Variant, drawn: int) -> Fraction:
    """Exact chance that one card of ``variant`` is full within ``drawn`` balls (R72: free centre marked)."""
    geo = geometry(variant)
    return full_card_probability(geo.balls, geo.numbers_per_card, drawn)


def union_upper_bound(single: Fraction, cards: int) -> Fraction:
    """Upper bound on the chance that some of ``cards`` cards is full: min(1, cards x single)."""
    _check_probability(single)
    _check_cards(cards)
    return min(Fraction(1), cards * single)


def independence_approximation(single: Fraction, cards: int) -> float:
    """1 - (1 - single)^cards: an approximation that treats the cards as independent (they are not)."""
    _check_probability(single)
    _check_cards(cards)
    if single == 0:
        return 0.0
    rest = 1 - single
    if rest == 0:
        return 1.0
    if single < Fraction(1, 2):
        log_rest = math.log1p(-float(single))  # accurate for tiny ``single`` (down to 1e-17)
    else:
        # ``rest`` itself may be below a float's range relative to 1: take its log exactly.
        log_rest = math.log(rest.numerator) - math.log(rest.denominator)
    return -math.expm1(cards * log_rest)


def _check_probability(value: Fraction) -> None:
    if not isinstance(value, Fraction) or not 0 <= value <= 1:
        raise ValueError(f"a probability must be a Fraction from 0 to 1, not {value!r}")


def _check_cards(cards: int, name: str = "cards") -> None:
    if isinstance(cards, bool) or not isinstance(cards, int) or cards < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {cards!r}")


@dataclass(frozen=True)
class JackpotOdds:
    """The exact single-card chance of a bingo within ``drawn`` balls, and what it says of K cards."""

    variant: Variant
    drawn: int
    cards: int
    #: Exact chance that one given card is full within ``drawn`` balls.
    single: Fraction
    #: min(1, K x single): an upper bound for K cards, never below the true chance.
    union_upper_bound: Fraction
    #: 1 - (1 - single)^K: an approximation treating the cards as independent.
    independence_approximation: float

    @property
    def single_float(self) -> float:
        """``single`` as a float."""
        return float(self.single)

    @property
    def union_upper_bound_float(self) -> float:
        """``union_upper_bound`` as a float."""
        return float(self.union_upper_bound)


def exact_odds(variant: Variant, drawn: int, cards: int) -> JackpotOdds:
    """Exact single-card chance for ``drawn`` balls, with the union bound and the independence
    approximation for ``cards`` cards; ValueError if ``drawn`` is outside 0..B or ``cards`` < 1."""
    _check_cards(cards)
    single = single_card_probability(variant, drawn)
    return JackpotOdds(
        variant=variant,
        drawn=drawn,
        cards=cards,
        single=single,
        union_upper_bound=union_upper_bound(single, cards),
        independence_approximation=independence_approximation(single, cards),
    )


# --- intervals and suggestions --------------------------------------------------------------------


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion: ``successes`` of ``trials`` at normal quantile ``z``.

    Unlike the normal (Wald) interval it stays inside [0, 1] and is not empty at 0 or ``trials``
    successes — which matters here, where the jackpot's chance is often close to 0.
    """
    _check_count("trials", trials, 1, 1 << 62)
    _check_count("successes", successes, 0, trials)
    if not z > 0:
        raise ValueError(f"z must be above 0, not {z!r}")
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def suggest_balls(probabilities: Sequence[float], target: float) -> int:
    """The N whose ``probabilities[N]`` (chance of the jackpot within N balls) is closest to ``target``.

    ``target`` 0.05 means "won in about 1 game in 20". Only N with a chance above 0 are
    candidates: a jackpot that cannot be won is no jackpot. Ties go to the fewest balls, the
    rarer jackpot of the two.
    """
    if not 0 <= target <= 1:
        raise ValueError(f"the target must be a probability from 0 to 1, not {target!r}")
    candidates = [n for n, p in enumerate(probabilities) if p > 0]
    if not candidates:
        raise ValueError("no number of balls gives the jackpot a chance above 0")
    return min(candidates, key=lambda n: (abs(probabilities[n] - target), n))


# --- K real cards, simulated ----------------------------------------------------------------------


def card_numbers(variant: Variant, cells: Cells) -> npt.NDArray[np.intp]:
    """Each card's numbers, ascending, as zero-based ball indices: shape (cards, numbers per card).

    ``cells`` is shaped like ``CardSet.cells`` (cards, rows, cols), 0 for a blank or the free
    centre; ValueError unless every card holds exactly the variant's count of different numbers
    from 1 to B.
    """
    geo = geometry(variant)
    if not isinstance(cells, np.ndarray) or cells.ndim != 3 or cells.shape[1:] != (geo.rows, geo.cols):
        raise ValueError(f"cells must be shaped (cards, {geo.rows}, {geo.cols}) for {variant}-ball cards")
    if cells.shape[0] < 1:
        raise ValueError("at least one card is needed")
    if not np.issubdtype(cells.dtype, np.integer):
        raise ValueError("cells must hold whole numbers")
    flat = cells.reshape(cells.shape[0], -1).astype(np.intp)
    if int(flat.min()) < 0 or int(flat.max()) > geo.balls:
        raise ValueError(f"cells must hold numbers from 1 to {geo.balls} (0 for a blank)")
    k = geo.numbers_per_card
    held = np.count_nonzero(flat, axis=1)
    if (held != k).any():
        first = int(np.flatnonzero(held != k)[0])
        raise ValueError(
            f"card {first + 1} holds {int(held[first])} numbers; a {variant}-ball card holds {k}"
        )
    numbers = np.sort(flat, axis=1)[:, flat.shape[1] - k :]
    if k > 1 and (np.diff(numbers, axis=1) == 0).any():
        raise ValueError("a card holds the same number twice")
    result: npt.NDArray[np.intp] = numbers - 1
    return result


@dataclass(frozen=True)
class FirstBingoSimulation:
    """How many balls the game's first bingo took, over ``draws`` simulated draws of ``cards`` cards.

    ``first_bingo[n]`` counts the draws whose first bingo came exactly at ball ``n`` (n = 0..B).
    The chance of the jackpot within N balls is estimated by the share of draws with the first
    bingo at ball N or before.
    """

    variant: Variant
    cards: int
    draws: int
    first_bingo: tuple[int, ...]
    #: The seed the simulated cards were generated from; None when the caller gave the cards.
    card_seed: int | None
    #: The algorithm they were generated with (a seed gives other cards under another one).
    card_algorithm: str | None = None

    def won_within(self, drawn: int) -> int:
        """Draws whose first bingo came within ``drawn`` balls."""
        _check_count("balls drawn", drawn, 0, len(self.first_bingo) - 1)
        return sum(self.first_bingo[: drawn + 1])

    def probability(self, drawn: int) -> float:
        """Estimated chance of a bingo within ``drawn`` balls."""
        return self.won_within(drawn) / self.draws

    def interval(self, drawn: int, z: float = Z95) -> tuple[float, float]:
        """Wilson score interval (95 % by default) of the chance of a bingo within ``drawn`` balls."""
        return wilson_interval(self.won_within(drawn), self.draws, z)

    def cumulative(self) -> tuple[float, ...]:
        """Estimated chance of a bingo within N balls, for every N from 0 to B."""
        return tuple(won / self.draws for won in accumulate(self.first_bingo))

    def quantile(self, q: float) -> int:
        """The fewest balls N within which at least a share ``q`` of the draws had their bingo."""
        if not 0 < q <= 1:
            raise ValueError(f"q must be above 0 and at most 1, not {q!r}")
        needed = q * self.draws
        for n, won in enumerate(accumulate(self.first_bingo)):
            if won >= needed:
                return n
        raise AssertionError("every draw ends in a bingo by its last ball")

    @property
    def median(self) -> int:
        """Median ball count of the first bingo."""
        return self.quantile(0.5)

    @property
    def mean(self) -> float:
        """Mean ball count of the first bingo."""
        return sum(n * count for n, count in enumerate(self.first_bingo)) / self.draws

    def suggest_balls(self, target: float) -> int:
        """The N whose estimated chance of a bingo within N balls is closest to ``target``."""
        return suggest_balls(self.cumulative(), target)


def simulate_first_bingo(
    variant: Variant,
    *,
    draws: int,
    rng: np.random.Generator,
    cards: int | None = None,
    cells: Cells | None = None,
) -> FirstBingoSimulation:
    """Simulate ``draws`` games of K cards and count the ball of each game's first bingo.

    The cards are ``cells`` (shaped like ``CardSet.cells``) or, when none are given, ``cards``
    cards generated for ``variant`` from a seed taken from ``rng``. Work is done in batches of
    draws sized so that the buffers stay near 8 MiB, from one card to a million.
    """
    _check_cards(draws, "draws")
    if cells is None:
        if cards is None:
            raise ValueError("give either the cards' cells or how many cards to generate")
        _check_cards(cards)
        card_seed: int | None = int.from_bytes(rng.bytes(16), "little")
        card_algorithm: str | None = ALGORITHM_CARDS
        cells = generate_card_set(variant, cards, seed=card_seed, algorithm=ALGORITHM_CARDS).cells
    else:
        card_seed = card_algorithm = None
        if cards is not None and cards != cells.shape[0]:
            raise ValueError(f"{cards} cards asked for but {cells.shape[0]} given")
    numbers = card_numbers(variant, cells)
    balls = geometry(variant).balls
    k = numbers.shape[1]
    # Per number position, its ball index for every card: contiguous for the row gathers below.
    columns = [np.ascontiguousarray(numbers[:, j]) for j in range(k)]
    count = numbers.shape[0]
    batch = max(1, min(draws, _MAX_BATCH_DRAWS, _BATCH_CELLS // count))
    totals = np.zeros(balls + 1, dtype=np.int64)
    done = 0
    while done < draws:
        size = min(batch, draws - done)
        # argsort of independent uniform keys is a uniformly random permutation; read as the rank
        # (1-based position in the draw) of each ball. Laid out (ball, draw) so that a card's
        # number picks one contiguous row of ranks.
        ranks = np.ascontiguousarray((rng.random((size, balls)).argsort(axis=1) + 1).astype(np.uint8).T)
        full_at = np.take(ranks, columns[0], axis=0)  # (cards, draws)
        scratch = np.empty_like(full_at)
        for column in columns[1:]:
            np.take(ranks, column, axis=0, out=scratch)
            np.maximum(full_at, scratch, out=full_at)
        totals += np.bincount(full_at.min(axis=0), minlength=balls + 1)
        done += size
    return FirstBingoSimulation(
        variant=variant,
        cards=count,
        draws=draws,
        first_bingo=tuple(int(c) for c in totals),
        card_seed=card_seed,
        card_algorithm=card_algorithm,
    )
