"""Engine errors carry a stable code and the params of their message (bingo/engine/errors.py)."""

from __future__ import annotations

import pickle
from decimal import Decimal

import pytest

from bingo.engine import GenerationError, SaleError, SeriesStock, allocate
from bingo.engine.errors import EngineError


def test_a_refusal_keeps_its_english_message_and_says_its_code_and_params() -> None:
    first = SeriesStock(1, "K-12", 90, 0, Decimal("100"))

    with pytest.raises(SaleError) as raised:
        allocate(91, first, 1, None)

    assert str(raised.value).startswith("cannot sell 91 cards: only 90 cards remain available")
    assert raised.value.code == "not_enough_cards"
    assert raised.value.params == {"quantity": 91, "available": 90, "series": "K-12"}
    assert isinstance(raised.value, EngineError)
    assert isinstance(raised.value, ValueError)


def test_an_undeclared_code_is_refused() -> None:
    with pytest.raises(ValueError, match="SaleError has no code 'made_up'"):
        SaleError("text", code="made_up")


def test_a_pickled_error_keeps_its_code_and_params() -> None:
    error = SaleError("R33: announce at least one series on sale", code="nothing_announced", params={"n": 1})

    copy = pickle.loads(pickle.dumps(error))

    assert type(copy) is SaleError
    assert (str(copy), copy.code, copy.params) == (str(error), "nothing_announced", {"n": 1})


def test_a_generation_error_without_a_code_keeps_its_message_as_detail() -> None:
    error = GenerationError("size must be a whole number of cards above 0, not 0")

    assert error.code == "refused"
    assert error.params == {"detail": "size must be a whole number of cards above 0, not 0"}
