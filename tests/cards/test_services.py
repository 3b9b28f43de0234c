"""Card sets and series: storage, the inspector's regeneration check, series rules and invariants."""

from decimal import Decimal

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import translation

from bingo.engine import (
    ALGORITHM_CARDS,
    ALGORITHM_CARDS_1,
    ALGORITHM_CARDS_2,
    ALGORITHM_STRIPS,
    Variant,
    fingerprint,
    generate_card_set,
)
from cards import selectors, services
from cards.models import CardSet, CardSetCells, Series
from halls.models import Hall

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    """Service messages are checked in their source language; the pages test the Portuguese."""
    with translation.override("en"):
        yield


def make_set(variant="90", size=90, seed=1, algorithm=ALGORITHM_CARDS):
    return services.card_set_request(variant=variant, size=size, seed=seed, algorithm=algorithm, user=None)


@pytest.fixture
def hall():
    return Hall.objects.create(name="Sala Praia")


def make_series(hall, card_set, order_number=1, price="100.00", **extra):
    return services.series_create(
        hall=hall,
        order_number=order_number,
        card_set=card_set,
        price=price,
        back_colour=extra.pop("back_colour", "#1e88e5"),
        face_colour=extra.pop("face_colour", "#FDD835"),
        user=None,
        **extra,
    )


@pytest.mark.parametrize(
    ("variant", "size", "algorithm"),
    [("90", 1680, ALGORITHM_CARDS), ("90", 1680, ALGORITHM_STRIPS), ("80", 840, ALGORITHM_CARDS),
     ("75", 1680, ALGORITHM_CARDS), ("30", 150, ALGORITHM_CARDS), ("75", 1680, ALGORITHM_CARDS_1),
     ("30", 150, ALGORITHM_CARDS_1), ("90", 180, ALGORITHM_CARDS_1)],
)  # fmt: skip
def test_stored_cards_load_back_to_the_same_fingerprint(variant, size, algorithm):
    card_set = make_set(variant, size, seed=20170109, algorithm=algorithm)
    assert card_set.status == CardSet.Status.READY
    assert card_set.progress == 100
    expected = generate_card_set(Variant(variant), size, 20170109, algorithm=algorithm)
    assert card_set.fingerprint == expected.fingerprint
    assert card_set.repeated_lines == expected.repeated_lines

    fresh = CardSet.objects.get(pk=card_set.pk)
    cells = selectors.card_set_cells(fresh)
    assert cells.shape == expected.cells.shape
    assert fingerprint(cells) == fresh.fingerprint
    for number in (1, 2, size // 2, size):
        assert selectors.card_get(card_set=fresh, number=number) == expected.card(number)


def test_card_numbers_outside_the_set_are_refused():
    card_set = make_set(size=90)
    with pytest.raises(IndexError):
        selectors.card_get(card_set=card_set, number=0)
    with pytest.raises(IndexError):
        selectors.card_get(card_set=card_set, number=91)


def test_a_missing_seed_is_drawn_and_recorded():
    card_set = services.card_set_request(variant="75", size=90, algorithm=ALGORITHM_CARDS, user=None)
    assert card_set.seed_int > 0
    assert generate_card_set(Variant.B75, 90, card_set.seed_int).fingerprint == card_set.fingerprint


def test_seeds_up_to_256_bits_are_kept_exactly():
    seed = 2**256 - 1
    card_set = make_set(size=6, seed=seed)
    assert CardSet.objects.get(pk=card_set.pk).seed_int == seed


def test_regenerate_and_compare_matches_an_untouched_set():
    card_set = make_set(size=180, seed=5)
    comparison = services.card_set_regenerate_compare(card_set=card_set)
    assert comparison.matches
    assert comparison.differing_cards == ()
    assert comparison.regenerated_fingerprint == card_set.fingerprint


@pytest.mark.parametrize(("variant", "size"), [("90", 180), ("80", 120), ("75", 1680), ("30", 150)])
def test_a_set_recorded_as_cards_1_still_regenerates_as_cards_1(variant, size):
    """Sets made before cards/2 (issue 23) keep their algorithm and its cards; the same seed under
    cards/2, what new sets use, is another set and may be stored beside it."""
    old = make_set(variant, size, seed=5, algorithm=ALGORITHM_CARDS_1)
    new = make_set(variant, size, seed=5)
    assert (old.algorithm, new.algorithm) == (ALGORITHM_CARDS_1, ALGORITHM_CARDS_2)
    assert old.fingerprint == generate_card_set(Variant(variant), size, 5, algorithm="cards/1").fingerprint
    assert new.fingerprint == generate_card_set(Variant(variant), size, 5, algorithm="cards/2").fingerprint
    assert old.fingerprint != new.fingerprint
    for card_set in (old, new):
        assert services.card_set_regenerate_compare(card_set=CardSet.objects.get(pk=card_set.pk)).matches


def test_regenerate_and_compare_catches_a_changed_card():
    card_set = make_set(size=180, seed=5)
    stored = CardSetCells.objects.get(pk=card_set.pk)
    cells = np.frombuffer(bytes(stored.cells), dtype=np.uint8).reshape(180, 3, 9).copy()
    row = cells[6, 0]
    filled = np.flatnonzero(row)
    row[filled[0]] = row[filled[0]] + 1 if row[filled[0]] % 10 != 9 else row[filled[0]] - 1
    stored.cells = cells.tobytes()
    stored.save()

    comparison = services.card_set_regenerate_compare(card_set=CardSet.objects.get(pk=card_set.pk))
    assert not comparison.matches
    assert comparison.differing_cards == (7,)
    assert comparison.recorded_fingerprint == comparison.regenerated_fingerprint
    assert comparison.stored_fingerprint != comparison.recorded_fingerprint


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "91"}, "Unknown variant"),
        ({"size": 0}, "above 0"),
        ({"variant": "75", "size": 12, "algorithm": ALGORITHM_STRIPS}, "only for 90-ball"),
        ({"variant": "90", "size": 10, "algorithm": ALGORITHM_STRIPS}, "multiple of 6"),
        ({"variant": "75", "size": 10, "algorithm": "cards/3"}, "cards/1, cards/2, strips/1"),
    ],
)
def test_bad_card_set_requests_create_nothing(kwargs, message):
    with pytest.raises(ValidationError, match=message):
        services.card_set_request(
            **{"variant": "90", "size": 90, "seed": 1, "algorithm": ALGORITHM_CARDS, "user": None, **kwargs}
        )
    assert not CardSet.objects.exists()


def test_the_same_inputs_are_not_stored_twice():
    make_set(size=90, seed=3)
    with pytest.raises(ValidationError, match="already exists"):
        make_set(size=90, seed=3)
    assert CardSet.objects.count() == 1


def test_large_sets_are_generated_in_the_background(monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(services, "INLINE_LIMIT", 100)
    scheduled = []
    monkeypatch.setattr("cards.tasks.card_set_generate_task.delay", scheduled.append)
    with django_capture_on_commit_callbacks(execute=True):
        card_set = make_set(size=600, seed=8)
    assert card_set.status == CardSet.Status.PENDING
    assert scheduled == [card_set.pk]
    assert not CardSetCells.objects.filter(pk=card_set.pk).exists()

    from cards.tasks import card_set_generate_task

    card_set_generate_task(card_set.pk)  # what the worker runs
    card_set.refresh_from_db()
    assert card_set.status == CardSet.Status.READY
    assert card_set.progress == 100
    assert card_set.generated_at is not None
    assert fingerprint(selectors.card_set_cells(card_set)) == card_set.fingerprint
    # Running it again (a redelivered task) changes nothing.
    assert services.card_set_generate(card_set_id=card_set.pk).fingerprint == card_set.fingerprint


def test_a_series_is_created_with_its_letter_and_normalised_colours(hall):
    series = make_series(hall, make_set(size=1680), order_number=12, price="250.00", back_colour="1e88e5")
    assert series.size_letter == "K"
    assert series.label == "K-12"
    assert series.size == 1680
    assert series.back_colour == "#1E88E5"
    assert series.price == Decimal("250.00")
    assert series.status == Series.Status.IN_STOCK
    assert series.last_sold == 0
    assert len(bytes(series.check_key)) == 16


def test_two_series_can_share_one_card_set(hall):
    card_set = make_set(size=1680)
    first = make_series(hall, card_set, order_number=1, price="100")
    second = make_series(
        hall, card_set, order_number=2, price="200", back_colour="#E53935", face_colour="#43A047"
    )
    assert first.card_set_id == second.card_set_id
    assert selectors.card_get(card_set=first.card_set, number=5) == selectors.card_get(
        card_set=second.card_set, number=5
    )


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"price": "0"}, "price"),
        ({"price": "-5"}, "price"),
        ({"price": "1.005"}, "price"),
        ({"price": "abc"}, "price"),
        ({"price": "NaN"}, "price"),
        ({"back_colour": "blue"}, "back_colour"),
        ({"face_colour": "#12345"}, "face_colour"),
        ({"order_number": 0}, "order_number"),
    ],
)
def test_bad_series_input_creates_nothing(hall, extra, field):
    card_set = make_set(size=90)
    with pytest.raises(ValidationError) as error:
        make_series(hall, card_set, **extra)
    assert field in error.value.message_dict
    assert not Series.objects.exists()


def test_order_numbers_are_unique_per_hall_only(hall):
    card_set = make_set(size=90)
    make_series(hall, card_set, order_number=4)
    with pytest.raises(ValidationError) as error:
        make_series(hall, card_set, order_number=4)
    assert "already has a series with order number 4" in error.value.message_dict["order_number"][0]
    other = Hall.objects.create(name="Sala Mindelo")
    assert make_series(other, card_set, order_number=4).order_number == 4


def test_a_non_standard_size_needs_an_authorization(hall):
    card_set = make_set(size=100)
    with pytest.raises(ValidationError) as error:
        make_series(hall, card_set)
    assert "(R19)" in error.value.message_dict["authorization"][0]
    series = make_series(hall, card_set, authorization="Despacho 12/2026")
    assert series.size_letter == ""
    assert series.label == "*-1"


def test_a_series_needs_a_ready_card_set(hall):
    pending = CardSet.objects.create(variant="90", size=90, seed=1, algorithm=ALGORITHM_CARDS)
    with pytest.raises(ValidationError) as error:
        make_series(hall, pending)
    assert "card_set" in error.value.message_dict


def test_retiring_a_series_records_when_and_refuses_twice(hall):
    series = make_series(hall, make_set(size=90))
    retired = services.series_retire(series=series)
    assert retired.status == Series.Status.RETIRED
    assert retired.retired_at is not None
    with pytest.raises(ValidationError, match="already retired"):
        services.series_retire(series=retired)


def test_the_card_check_shows_a_card_only_with_its_code(hall):
    series = make_series(hall, make_set(size=90, seed=9))
    code = selectors.card_check_code(series=series, number=17)
    assert selectors.card_check(series=series, number=17, code=code) == selectors.card_get(
        card_set=series.card_set, number=17
    )
    assert selectors.card_check(series=series, number=17, code=code.lower()) is not None
    assert selectors.card_check(series=series, number=18, code=code) is None
    assert selectors.card_check(series=series, number=17, code="00000000") is None
    assert selectors.card_check(series=series, number=91, code=code) is None


# --- invariants the database itself enforces ---------------------------------------------------


def broken(update, pk):
    with pytest.raises(IntegrityError), transaction.atomic():
        Series.objects.filter(pk=pk).update(**update)


def test_the_schema_refuses_a_bad_price_cursor_letter_or_colour(hall):
    series = make_series(hall, make_set(size=90))
    broken({"price": Decimal("0")}, series.pk)
    broken({"last_sold": 91}, series.pk)
    broken({"size_letter": "B"}, series.pk)  # B is 120 cards
    broken({"back_colour": "red"}, series.pk)
    Series.objects.filter(pk=series.pk).update(last_sold=90)  # the last card is fine


def test_the_schema_knows_every_algorithm_of_the_engine_and_no_other():
    card_set = make_set(size=6)
    for known in ("cards/1", "cards/2", "strips/1"):
        CardSet.objects.filter(pk=card_set.pk).update(algorithm=known)
    for unknown in ("cards/3", "strips/2", ""):
        with pytest.raises(IntegrityError, match="card_set_known_algorithm"), transaction.atomic():
            CardSet.objects.filter(pk=card_set.pk).update(algorithm=unknown)


def test_the_schema_refuses_a_ready_set_without_fingerprint():
    card_set = make_set(size=6)
    with pytest.raises(IntegrityError), transaction.atomic():
        CardSet.objects.filter(pk=card_set.pk).update(fingerprint="")


@pytest.mark.postgres
def test_postgres_keeps_a_series_size_equal_to_its_card_set(hall):
    if connection.vendor != "postgresql":
        pytest.skip("composite foreign key exists on PostgreSQL only; the service checks it elsewhere")
    series = make_series(hall, make_set(size=120), order_number=2)
    other = make_set(size=90, seed=2)

    def move_to_smaller_set():
        # B (120) letter kept, card set of 90 cards: the composite key refuses it.
        Series.objects.filter(pk=series.pk).update(card_set=other)
        connection.cursor().execute("SET CONSTRAINTS ALL IMMEDIATE")

    with pytest.raises(IntegrityError), transaction.atomic():
        move_to_smaller_set()


def test_a_series_with_a_new_card_set_creates_both_or_neither(hall):
    series = services.series_create_with_new_card_set(
        variant="75", size=120, hall=hall, order_number=3, price="50.00",
        back_colour="#000000", face_colour="#FFFFFF", user=None,
    )  # fmt: skip
    assert series.card_set.variant == "75"
    assert series.size_letter == "B"
    with pytest.raises(ValidationError):
        services.series_create_with_new_card_set(
            variant="75", size=120, hall=hall, order_number=3, price="50.00",
            back_colour="#000000", face_colour="#FFFFFF", user=None,
        )  # fmt: skip
    assert CardSet.objects.count() == 1  # the refused series took its new card set with it
