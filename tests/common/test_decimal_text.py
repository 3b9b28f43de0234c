"""A decimal field's schema pattern is exactly what the field takes (issue 26): Schemathesis
sends what the pattern allows and expects it taken, and what it refuses and expects a 400."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from bingo.common import bounds
from bingo.common.api import DecimalTextField, MoneyField

FIELDS = {
    "price": MoneyField(min_value=bounds.AMOUNT_MIN, max_value=bounds.CARD_PRICE_MAX),
    "cash": MoneyField(min_value=0, max_value=bounds.AMOUNT_MAX),
    "adjustment": MoneyField(max_digits=14, min_value=-bounds.AMOUNT_MAX, max_value=bounds.AMOUNT_MAX),
    "unbounded": MoneyField(),
    "interval": DecimalTextField(
        max_digits=6, decimal_places=2, min_value=bounds.BALL_INTERVAL_MIN, max_value=bounds.BALL_INTERVAL_MAX
    ),
}

#: Text near the bounds and the syntax's edges: signs, zeros, points, exponents, spaces.
TEXT = st.one_of(
    st.from_regex(r"\A-?[0-9]{1,13}(\.[0-9]{1,3})?\Z"),
    st.sampled_from(["", "-", ".5", "5.", "+5", " 5", "1e3", "-0", "0.00", "0.01", "1000000", "1000000.01"]),
    st.text(alphabet="-0123456789.e ", max_size=14),
)


def accepts(field: serializers.Field, text: str) -> bool:
    try:
        field.run_validation(text)
    except serializers.ValidationError:
        return False
    return True


@pytest.mark.parametrize("name", sorted(FIELDS))
@settings(max_examples=400, deadline=None)
@given(text=TEXT)
def test_the_pattern_and_the_field_agree(name: str, text: str) -> None:
    field = FIELDS[name]
    assert bool(re.fullmatch(field.pattern()[1:-1], text)) == accepts(field, text), (field.pattern(), text)


def test_a_negative_amount_where_none_may_be_is_refused_on_its_bound() -> None:
    with pytest.raises(serializers.ValidationError) as refused:
        FIELDS["cash"].run_validation("-1.00")
    assert [error.code for error in refused.value.detail] == ["min_value"]
    assert FIELDS["adjustment"].run_validation("-1.00") == Decimal("-1.00")


def test_a_number_is_not_text() -> None:
    with pytest.raises(serializers.ValidationError):
        FIELDS["price"].run_validation(25)


@pytest.mark.parametrize(
    "amount", ["0", "0.00", "20", "20.0", "20.00", "-464.00", "1000000.5", "0.005", "0.015"]
)
def test_money_text_writes_an_amount_as_money_field_does(amount: str) -> None:
    """The purchase's answer (bingo/online/api.py) writes money without a serializer."""
    from bingo.common.api import MoneyField, money_text

    assert money_text(Decimal(amount)) == MoneyField(max_digits=14).to_representation(Decimal(amount))
