"""The payout slip's code (bingo/engine/payout.py): the payout's first payment and a MAC under the
card's series key; typed back from paper it finds that payment, and nothing else matches."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine.checkcode import ALPHABET
from bingo.engine.payout import slip_code, slip_code_matches, slip_code_payment_id

KEY = bytes(range(16))


def test_a_code_is_the_payment_number_and_four_unambiguous_characters():
    code = slip_code(KEY, 1234)
    number, mac = code.split("-")
    assert number == "1234"
    assert len(mac) == 4
    assert set(mac) <= set(ALPHABET)


def test_codes_are_pinned():
    """Printed slips must stay findable: the definition never changes silently."""
    assert [slip_code(KEY, n) for n in (1, 2, 1234)] == ["1-SGTF", "2-GT9D", "1234-31BJ"]


@given(st.integers(min_value=1, max_value=10**12 - 1))
def test_a_code_typed_back_finds_its_payment(payment_id):
    code = slip_code(KEY, payment_id)
    for typed in (code, code.lower(), code.replace("-", " "), f" {code} ".replace("0", "O")):
        assert slip_code_payment_id(typed) == payment_id
        assert slip_code_matches(KEY, payment_id, typed)


def test_another_key_payment_or_mac_does_not_match():
    code = slip_code(KEY, 77)
    assert not slip_code_matches(bytes(16), 77, code)
    assert not slip_code_matches(KEY, 78, code)
    number, mac = code.split("-")
    other = "0000" if mac != "0000" else "1111"
    assert not slip_code_matches(KEY, 77, f"{number}-{other}")


NOT_SLIP_CODES = ["", "-", "ABCD", "12", "X1-ABCD", "0012-ABCD", "1" * 13 + "-ABCD", "١٢-ABCD"]


@pytest.mark.parametrize("typed", NOT_SLIP_CODES)
def test_codes_not_shaped_like_a_slip_name_no_payment(typed):
    assert slip_code_payment_id(typed) is None


def test_a_payment_number_is_positive():
    with pytest.raises(ValueError, match="positive"):
        slip_code(KEY, 0)


@given(st.text())
def test_any_typed_slip_code_is_answered_never_an_error(code: str) -> None:
    """compare_digest would refuse text beyond ASCII; a typed slip code may hold any."""
    assert isinstance(slip_code_matches(b"k" * 32, 1, code), bool)
