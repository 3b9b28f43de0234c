"""Card-set generation: every variant and size gives a valid, reproducible set (R14, R64-R65,
R70-R72, R81-R82, R16)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import (
    ALGORITHM_CARDS,
    ALGORITHM_CARDS_1,
    ALGORITHM_CARDS_2,
    ALGORITHM_STRIPS,
    ALGORITHMS,
    MAX_CARDS,
    SERIES_SIZES,
    GenerationError,
    Variant,
    algorithm_for,
    capacity,
    generate_card_set,
    verify_cards,
)
from bingo.engine.gengrid import lower_bound
from tests.engine import reference

VARIANTS = list(Variant)
#: Both algorithms of independent cards: cards/1 still regenerates the sets recorded with it.
CARDS = [ALGORITHM_CARDS_1, ALGORITHM_CARDS_2]
seeds = st.integers(min_value=0, max_value=2**128)


def grids(card_set):
    return [card_set.card(i) for i in range(1, card_set.size + 1)]


def assert_valid(card_set):
    """The engine's verifier and the plain reference both accept the set and agree on counts."""
    report = verify_cards(
        card_set.variant,
        card_set.cells,
        strips=card_set.strips,
        declared_repeated=card_set.repeated_lines,
        declared_fingerprint=card_set.fingerprint,
    )
    assert report.ok, [str(v) for v in report.violations]
    as_lists = grids(card_set)
    assert reference.set_problems(card_set.variant.value, as_lists, strips=card_set.strips) == []
    assert reference.repeated_lines(card_set.variant.value, as_lists) == card_set.repeated_lines
    assert reference.fingerprint(as_lists) == card_set.fingerprint


@pytest.mark.parametrize("algorithm", CARDS)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("letter", list(SERIES_SIZES))
def test_every_standard_series_size_gives_a_valid_set(variant, letter, algorithm):
    card_set = generate_card_set(variant, SERIES_SIZES[letter], seed=2017, algorithm=algorithm)
    assert card_set.size == SERIES_SIZES[letter]
    assert card_set.algorithm == algorithm
    assert_valid(card_set)


@pytest.mark.parametrize("letter", list(SERIES_SIZES))
def test_every_standard_size_gives_valid_strips(letter):
    card_set = generate_card_set(Variant.B90, SERIES_SIZES[letter], seed=9, algorithm=ALGORITHM_STRIPS)
    assert_valid(card_set)


@given(
    variant=st.sampled_from(VARIANTS), size=st.integers(1, 240), seed=seeds, algorithm=st.sampled_from(CARDS)
)
def test_any_seed_any_variant_gives_a_valid_set(variant, size, seed, algorithm):
    assert_valid(generate_card_set(variant, size, seed, algorithm=algorithm))


@given(strips=st.integers(1, 40), seed=seeds)
def test_any_seed_gives_valid_strips(strips, seed):
    assert_valid(generate_card_set(Variant.B90, 6 * strips, seed, algorithm=ALGORITHM_STRIPS))


@pytest.mark.parametrize("algorithm", CARDS)
def test_ninety_ball_rows_never_repeat_even_in_large_sets(algorithm):
    """R14 is hard for 90-ball: 20,000 cards (60,000 rows) and not one row twice."""
    card_set = generate_card_set(Variant.B90, 20_000, seed=5, algorithm=algorithm)
    assert card_set.repeated_lines == 0
    rows = {frozenset(int(v) for v in row if v) for card in card_set.cells for row in card}
    assert len(rows) == 3 * card_set.size


@pytest.mark.parametrize(
    ("variant", "letter"),
    [(v, letter) for v in (Variant.B80, Variant.B75) for letter in "ABCDEFGHIJ"]
    + [(Variant.B30, "A"), (Variant.B30, "B")],
)
def test_lines_are_unique_wherever_the_size_allows(variant, letter):
    size = SERIES_SIZES[letter]
    assert lower_bound(variant, size) == 0
    for algorithm in CARDS:
        assert generate_card_set(variant, size, seed=31, algorithm=algorithm).repeated_lines == 0


@pytest.mark.parametrize(
    ("variant", "letter", "floor"),
    [
        # 1,680 cards, but only C(15,4) = 1,365 different N columns: 315 must repeat.
        (Variant.B75, "K", 315),
        # 30-ball: 120 possible sets per column and 1,000 possible rows/diagonals, so past
        # 120 cards columns repeat and past 200 rows and diagonals do too.
        (Variant.B30, "K", 12_080),
        (Variant.B30, "I", 3_920),
    ],
)
def test_unavoidable_repeats_are_reported_at_their_minimum(variant, letter, floor):
    size = SERIES_SIZES[letter]
    assert lower_bound(variant, size) == floor
    for algorithm in CARDS:
        card_set = generate_card_set(variant, size, seed=31, algorithm=algorithm)
        assert card_set.repeated_lines == floor
        assert_valid(card_set)


@pytest.mark.parametrize("algorithm", CARDS)
@pytest.mark.parametrize("seed", range(5))
def test_tight_thirty_ball_sets_stay_near_the_lower_bound(seed, algorithm):
    """Between 120 and 200 cards the search is best-effort: never below the bound, close to it."""
    card_set = generate_card_set(Variant.B30, SERIES_SIZES["C"], seed=seed, algorithm=algorithm)
    floor = lower_bound(Variant.B30, card_set.size)
    assert floor == 90
    assert floor <= card_set.repeated_lines <= floor + 3
    assert_valid(card_set)


@pytest.mark.parametrize("algorithm", CARDS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_same_inputs_give_the_same_fingerprint(variant, algorithm):
    first = generate_card_set(variant, 200, seed=123456789, algorithm=algorithm)
    again = generate_card_set(variant, 200, seed=123456789, algorithm=algorithm)
    assert first.fingerprint == again.fingerprint
    assert np.array_equal(first.cells, again.cells)
    assert (
        generate_card_set(variant, 200, seed=123456790, algorithm=algorithm).fingerprint != first.fingerprint
    )


def test_size_and_algorithm_are_part_of_the_inputs():
    plain = generate_card_set(Variant.B90, 60, seed=1)
    assert (
        generate_card_set(Variant.B90, 60, seed=1, algorithm=ALGORITHM_STRIPS).fingerprint
        != plain.fingerprint
    )
    assert generate_card_set(Variant.B90, 61, seed=1).card(1) != plain.card(1)
    for variant in VARIANTS:
        one, two = (generate_card_set(variant, 60, seed=1, algorithm=a) for a in CARDS)
        assert not np.array_equal(one.cells, two.cells), variant


def test_new_sets_use_cards_2_and_cards_1_stays_known():
    """New sets of plain cards use cards/2 (issue 23); sets recorded as cards/1 still regenerate."""
    assert ALGORITHM_CARDS == ALGORITHM_CARDS_2 == "cards/2"
    assert ALGORITHMS == ("cards/1", "cards/2", "strips/1")
    assert algorithm_for(strips=False) == "cards/2"
    assert algorithm_for(strips=True) == "strips/1"
    assert generate_card_set(Variant.B75, 30, seed=1).algorithm == "cards/2"
    assert generate_card_set(Variant.B75, 30, seed=1, algorithm="cards/1").algorithm == "cards/1"


# Pinned outputs of algorithms "cards/1", "cards/2" and "strips/1". An inspector regenerates sets from their
# seeds years later: if one of these changes, the generator changed and needs a new algorithm name.
GOLDEN = {
    (Variant.B90, "cards/1", 12): "a5901ffc2547b92f421a360563d0b7017703d65190b9409f2cd197b953befefd",
    (Variant.B90, "cards/1", 1680): "9b85ee4adb4d7de9028c5f767077e76188b37ee938ddba475c2ce5f7f6ef0194",
    (Variant.B90, "strips/1", 1680): "93add70049ebc27a9f1fd7bd70c8aedbe71f07e9ae6250deefd2ff8284bd70fc",
    (Variant.B80, "cards/1", 1680): "59ed13755424382fbfb3dc718d5d2130e9e7b08dbe5b4b04a25c7a6b9a4fad1a",
    (Variant.B75, "cards/1", 1680): "9d24b3569fe1ab2900140ace7a182fec3464a3d7e79dfe25a4999f10553feeed",
    (Variant.B30, "cards/1", 150): "a19e8bbcb7987ee9b2f17bac185f2c7e26ce37a3de61fba8bc54181b7e314e6a",
    (Variant.B30, "cards/1", 1680): "fe9fa767dfa778de39ff59e6ae10e9decded2805512727c7d70cb83d60859c36",
    # cards/2 (issue 23), fixed for good from its first commit like the others.
    (Variant.B90, "cards/2", 12): "a21b6ec999705fda351f0bf991c62c2241785bc2e1b1b345adcf374c0baa65e5",
    (Variant.B90, "cards/2", 1680): "6e1b88a36d3699572bf86062a989ab575f8b6ebfe43c35bd5522407c1a181dd4",
    (Variant.B80, "cards/2", 1680): "49d789b2b35d4dd4e591ef3dedb6c34351e0b7b4cf40b594158f014dd42e6990",
    (Variant.B75, "cards/2", 1680): "333e5ae96c7c5c557e329c2193c0c228378fbcfeaecc6763b80f147f4138f0f3",
    (Variant.B30, "cards/2", 150): "1e0e066b58794652cd8ef2ff9d5ca2216a10dc073796c62ecad0814c2a4da83a",
    (Variant.B30, "cards/2", 1680): "6bab2d23aa3402b7c0207dd31f20bb03e60b165b0836006a1ec6de2e1d6942de",
}


@pytest.mark.parametrize(("variant", "algorithm", "size"), list(GOLDEN))
def test_generator_output_is_pinned(variant, algorithm, size):
    assert (
        generate_card_set(variant, size, seed=1, algorithm=algorithm).fingerprint
        == GOLDEN[(variant, algorithm, size)]
    )


def test_a_missing_seed_is_drawn_and_recorded():
    card_set = generate_card_set(Variant.B75, 30, seed_source=lambda: 424242)
    assert card_set.seed == 424242
    assert card_set.fingerprint == generate_card_set(Variant.B75, 30, seed=424242).fingerprint


def test_a_missing_seed_comes_from_the_secure_generator():
    seeds_drawn = {generate_card_set(Variant.B30, 1).seed for _ in range(5)}
    assert len(seeds_drawn) == 5
    assert all(0 <= s < 2**128 for s in seeds_drawn)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": Variant.B90, "size": 0}, "above 0"),
        ({"variant": Variant.B90, "size": -5}, "above 0"),
        ({"variant": Variant.B75, "size": 12, "algorithm": ALGORITHM_STRIPS}, "only for 90-ball"),
        ({"variant": Variant.B90, "size": 10, "algorithm": ALGORITHM_STRIPS}, "multiple of 6"),
        ({"variant": Variant.B90, "size": 10, "algorithm": "cards/0"}, "unknown algorithm"),
        ({"variant": Variant.B75, "size": 10, "algorithm": "cards/3"}, "knows cards/1, cards/2, strips/1"),
        ({"variant": Variant.B75, "size": 12, "algorithm": "strips/2"}, "unknown algorithm"),
        ({"variant": Variant.B30, "size": 1_728_001}, "impossible"),
        ({"variant": Variant.B80, "size": MAX_CARDS + 1}, "at most"),
        ({"variant": Variant.B90, "size": 10, "seed": -1}, "seed"),
    ],
)
def test_impossible_requests_are_refused_clearly(kwargs, message):
    with pytest.raises(GenerationError, match=message):
        generate_card_set(**{"seed": 1, **kwargs})


def test_capacity_counts_different_cards():
    assert capacity(Variant.B30) == 120**3
    assert capacity(Variant.B80) == 4845**4
    assert capacity(Variant.B90) > MAX_CARDS


def test_numbers_spread_evenly_inside_each_column():
    """Each number of a 90-ball column appears about equally often (chi-square, 99.9%)."""
    card_set = generate_card_set(Variant.B90, 30_000, seed=77)
    counts = np.bincount(card_set.cells.ravel(), minlength=91)[1:]
    start = 0
    for size in [9, 10, 10, 10, 10, 10, 10, 10, 11]:
        observed = counts[start : start + size].astype(float)
        expected = observed.mean()
        chi2 = float(((observed - expected) ** 2 / expected).sum())
        # 99.9% points of chi-square with 8, 9 and 10 degrees of freedom.
        assert chi2 < {9: 26.12, 10: 27.88, 11: 29.59}[size]
        start += size


@pytest.mark.parametrize("seed", [1.0, True, "1"])
def test_a_seed_must_be_a_whole_number(seed):
    with pytest.raises(GenerationError, match="seed must be a whole number"):
        generate_card_set(Variant.B90, 6, seed)


def test_sizes_the_generator_cannot_reach_are_refused_up_front():
    with pytest.raises(GenerationError, match="strips holds at most 180,000"):
        generate_card_set(Variant.B90, 180_006, 1, algorithm=ALGORITHM_STRIPS)
    with pytest.raises(GenerationError, match="30-ball set holds at most 432,000"):
        generate_card_set(Variant.B30, 432_001, 1)


def test_a_missed_unique_set_is_retried_deterministically():
    """30-ball, 120 cards, seed 7: the first search leaves one row repeated; a retry does not."""
    card_set = generate_card_set(Variant.B30, 120, seed=7, algorithm=ALGORITHM_CARDS_1)
    assert card_set.repeated_lines == 0
    assert (
        generate_card_set(Variant.B30, 120, seed=7, algorithm=ALGORITHM_CARDS_1).fingerprint
        == card_set.fingerprint
    )
    assert_valid(card_set)


@pytest.mark.parametrize("variant", [Variant.B80, Variant.B75, Variant.B30])
def test_unique_lines_are_possible_exactly_where_the_lower_bound_is_zero(variant):
    from bingo.engine import unique_lines_possible

    for size in [1, 90, 119, 120, 121, 199, 200, 201, 1365, 1366, 3003, 4845, 4846, 26_666, 26_667]:
        assert unique_lines_possible(variant, size) == (lower_bound(variant, size) == 0), size
        assert unique_lines_possible(variant, size) == reference.lines_could_be_unique(variant.value, size)


def test_card_lookups_refuse_numbers_outside_the_set():
    card_set = generate_card_set(Variant.B90, 6, seed=1)
    for number in (0, 7, -1):
        with pytest.raises(IndexError):
            card_set.numbers(number)
        with pytest.raises(IndexError):
            card_set.card(number)
