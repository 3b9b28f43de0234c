"""The draw (bingo.engine.draw): electronic choice, keyed-in balls, announcements (R42, R55, R77)."""

from __future__ import annotations

import random
import secrets

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import Variant
from bingo.engine.draw import DrawError, ball_label, keyed_ball, next_ball, remaining

# Chi-square critical values at the 99 % level: 89 degrees of freedom (90 balls) and 74 (75).
CHI2_99 = {89: 122.942, 74: 105.202}


def chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def first_balls(variant: Variant, rng: random.Random, draws: int) -> list[int]:
    balls = int(variant.value)
    counts = [0] * balls
    for _ in range(draws):
        counts[next_ball(variant, (), rng) - 1] += 1
    return counts


@pytest.mark.parametrize("variant", [Variant.B90, Variant.B80, Variant.B75, Variant.B30])
def test_a_whole_game_draws_every_ball_once(variant: Variant) -> None:
    rng = random.Random(7)
    drawn: list[int] = []
    for _ in range(int(variant.value)):
        drawn.append(next_ball(variant, drawn, rng))
    assert sorted(drawn) == list(range(1, int(variant.value) + 1))
    with pytest.raises(DrawError) as refused:
        next_ball(variant, drawn, rng)
    assert refused.value.code == "drum_empty"


@given(st.lists(st.integers(1, 90), unique=True, max_size=89), st.integers(0, 2**32))
def test_the_next_ball_is_never_one_already_drawn(drawn: list[int], seed: int) -> None:
    ball = next_ball(Variant.B90, drawn, random.Random(seed))
    assert ball not in drawn
    assert 1 <= ball <= 90


def test_the_first_ball_is_uniform_with_the_production_generator() -> None:
    """100,000 first balls from ``secrets.SystemRandom`` (what the draw service uses) pass a
    chi-square test at the 99 % level. A fair generator fails one sample in a hundred, so a
    failure is checked on a second, fresh sample: a biased one fails both, a fair one fails
    both one time in ten thousand."""
    rng = secrets.SystemRandom()
    for _ in range(2):
        statistic = chi_square(first_balls(Variant.B90, rng, 100_000))
        if statistic < CHI2_99[89]:
            break
    assert statistic < CHI2_99[89]


def test_the_chi_square_check_catches_a_biased_draw() -> None:
    """The test above can fail: a draw that favours ball 1 slightly is caught."""

    class Biased(random.Random):
        def choice(self, seq):  # type: ignore[no-untyped-def, override]
            return seq[0] if self.random() < 0.003 else super().choice(seq)

    statistic = chi_square(first_balls(Variant.B90, Biased(3), 100_000))
    assert statistic > CHI2_99[89]


def test_later_balls_are_uniform_over_the_balls_left() -> None:
    """With 15 balls out, the 16th is uniform over the other 75 (seeded, 99 % level)."""
    rng = random.Random(2026)
    drawn = rng.sample(range(1, 91), 15)
    left = remaining(Variant.B90, drawn)
    counts = dict.fromkeys(left, 0)
    for _ in range(100_000):
        counts[next_ball(Variant.B90, drawn, rng)] += 1
    assert set(counts) == set(left)
    assert chi_square(list(counts.values())) < CHI2_99[74]


def test_a_keyed_ball_must_be_in_range_and_not_drawn() -> None:
    assert keyed_ball(Variant.B75, [3, 4], 75) == 75
    for bad in (0, 76, -1, True, "7"):
        with pytest.raises(DrawError) as refused:
            keyed_ball(Variant.B75, [], bad)  # type: ignore[arg-type]
        assert refused.value.code == "out_of_range"
    with pytest.raises(DrawError) as again:
        keyed_ball(Variant.B75, [3, 4], 4)
    assert again.value.code == "already_drawn"
    assert again.value.params == {"number": 4, "balls": 75}


def test_75_ball_balls_are_announced_with_their_letter() -> None:  # R77
    assert [ball_label(Variant.B75, n) for n in (1, 15, 16, 42, 60, 75)] == [
        "B 1",
        "B 15",
        "I 16",
        "N 42",
        "G 60",
        "O 75",
    ]
    assert ball_label(Variant.B90, 42) == "42"
    assert ball_label(Variant.B30, 7) == "7"
