"""Check codes: 8 characters of Crockford base-32, keyed per series, forgiving when typed."""

from hypothesis import given
from hypothesis import strategies as st

from bingo.engine.checkcode import ALPHABET, check_code, check_code_matches, normalise

KEY = bytes(range(16))


def test_codes_are_eight_unambiguous_characters():
    code = check_code(KEY, 12, 345)
    assert len(code) == 8
    assert set(code) <= set(ALPHABET)
    assert not set(code) & set("ILOU")


def test_codes_depend_on_key_series_and_number():
    code = check_code(KEY, 12, 345)
    assert code == check_code(KEY, 12, 345)
    assert code != check_code(KEY, 12, 346)
    assert code != check_code(KEY, 13, 345)
    assert code != check_code(bytes(16), 12, 345)


def test_codes_are_pinned():
    """Printed cards must stay checkable: the definition never changes silently."""
    assert [check_code(KEY, 1, n) for n in (1, 2, 3)] == ["2F9XBRXE", "MJD4NHZB", "AT5KJ8AK"]


def test_typed_codes_are_normalised():
    code = check_code(KEY, 7, 90)
    typed = f" {code[:4].lower()}-{code[4:].lower()} "
    assert normalise(typed) == code
    assert check_code_matches(KEY, 7, 90, typed)
    assert normalise("o1-il") == "0111"


@given(st.integers(1, 10**6), st.integers(1, 10**6))
def test_a_wrong_number_or_code_never_matches(series, number):
    code = check_code(KEY, series, number)
    assert check_code_matches(KEY, series, number, code)
    assert not check_code_matches(KEY, series, number + 1, code)
    assert not check_code_matches(KEY, series, number, "00000000" if code != "00000000" else "11111111")


@given(st.text())
def test_any_typed_text_is_answered_never_an_error(code):
    """Whatever is typed (the public card check takes any text: accents, emoji) gets a yes or no;
    compare_digest would refuse text beyond ASCII (a 500 the API contract's fuzzing found)."""
    assert check_code_matches(KEY, 20, 66, code) is False or normalise(code) == check_code(KEY, 20, 66)


def test_a_code_with_characters_beyond_ascii_does_not_match():
    assert check_code_matches(KEY, 20, 66, "°󂦿\x88\x9c𫑷򧹭") is False
