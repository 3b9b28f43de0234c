"""Each ball called aloud in European Portuguese (``bingo.engine.calls``, R42, R54, R77): the
words the player's game screen speaks, checked against the numbers written out here by hand."""

from __future__ import annotations

import pytest

from bingo.engine import Variant
from bingo.engine.calls import ball_call, ball_calls, number_words

#: 1 to 19 and the tens as a Portuguese (Portugal, Cabo Verde) caller says them, written out.
ONE_TO_NINETEEN = ["um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove", "dez",
                   "onze", "doze", "treze", "catorze", "quinze", "dezasseis", "dezassete", "dezoito",
                   "dezanove"]  # fmt: skip
TENS = {"vinte": 20, "trinta": 30, "quarenta": 40, "cinquenta": 50, "sessenta": 60, "setenta": 70,
        "oitenta": 80, "noventa": 90}  # fmt: skip


def _read(words: str) -> int:
    """The number ``words`` says, read back with the table above ("quarenta e dois" → 42)."""
    if words in ONE_TO_NINETEEN:
        return ONE_TO_NINETEEN.index(words) + 1
    tens, _, units = words.partition(" e ")
    assert units == "" or units in ONE_TO_NINETEEN[:9], words
    return TENS[tens] + (ONE_TO_NINETEEN.index(units) + 1 if units else 0)


@pytest.mark.parametrize(
    ("number", "words"),
    [
        (1, "um"),
        (2, "dois"),
        (3, "três"),
        (10, "dez"),
        (14, "catorze"),
        (16, "dezasseis"),
        (17, "dezassete"),
        (19, "dezanove"),
        (20, "vinte"),
        (21, "vinte e um"),
        (42, "quarenta e dois"),
        (50, "cinquenta"),
        (68, "sessenta e oito"),
        (77, "setenta e sete"),
        (89, "oitenta e nove"),
        (90, "noventa"),
    ],
)
def test_a_number_is_said_as_portuguese_callers_say_it(number: int, words: str) -> None:
    assert number_words(number) == words


def test_every_ball_of_every_variant_reads_back_as_its_number() -> None:
    for n in range(1, 100):
        assert _read(number_words(n)) == n
    assert len({number_words(n) for n in range(1, 100)}) == 99


@pytest.mark.parametrize(
    ("number", "call"),
    [
        (12, "B, doze"),
        (16, "I, dezasseis"),
        (31, "N, trinta e um"),
        (45, "N, quarenta e cinco"),
        (46, "G, quarenta e seis"),
        (75, "O, setenta e cinco"),
    ],
)
def test_r77_a_75_ball_ball_is_called_with_its_letter(number: int, call: str) -> None:
    assert ball_call(Variant.B75, number) == call


def test_the_other_variants_call_the_number_alone() -> None:
    assert ball_call(Variant.B90, 42) == "quarenta e dois"
    assert ball_call(Variant.B80, 80) == "oitenta"
    assert ball_call(Variant.B30, 30) == "trinta"
    calls = ball_calls(Variant.B90)
    assert len(calls) == 90
    assert (calls[0], calls[41], calls[89]) == ("um", "quarenta e dois", "noventa")
    assert len(ball_calls(Variant.B75)) == 75
    assert ball_calls(Variant.B75)[11] == "B, doze"


@pytest.mark.parametrize(
    ("variant", "number"),
    [(Variant.B90, 0), (Variant.B90, 91), (Variant.B75, 76), (Variant.B30, 31), (Variant.B80, 81)],
)
def test_a_number_off_the_variants_cards_is_refused(variant: Variant, number: int) -> None:
    with pytest.raises(ValueError):
        ball_call(variant, number)
