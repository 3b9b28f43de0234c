"""Each ball called aloud as a Portuguese caller says it (R42, R54, R77).

The player's game screen speaks every new ball (``static/js/speech.js``, the browser's speech
synthesis): what it says is written here, once, in European Portuguese (the hall's language,
R54), and carried in the screen's state (``bingo.engine.screen``, its ``calls``), so the page
never spells a number itself. A 75-ball ball is called with its column's letter first (R77):
"B, doze". The words are the cardinal numbers of Portugal and Cabo Verde: "dezasseis",
"dezassete", "dezanove" (not Brazil's "dezesseis"), "catorze", and the tens joined by "e":
"quarenta e dois".
"""

from __future__ import annotations

from bingo.engine.variants import Variant, geometry

_UNITS = ("", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove")
_TEENS = (
    "dez",
    "onze",
    "doze",
    "treze",
    "catorze",
    "quinze",
    "dezasseis",
    "dezassete",
    "dezoito",
    "dezanove",
)
_TENS = ("", "", "vinte", "trinta", "quarenta", "cinquenta", "sessenta", "setenta", "oitenta", "noventa")


def number_words(number: int) -> str:
    """``number`` (1 to 99, every ball of every variant) in European Portuguese words:
    ``42`` → "quarenta e dois". ValueError outside 1-99."""
    if not 1 <= number <= 99:
        raise ValueError(f"{number} is not a ball number (1-99)")
    tens, units = divmod(number, 10)
    if tens == 0:
        return _UNITS[units]
    if tens == 1:
        return _TEENS[units]
    return _TENS[tens] if units == 0 else f"{_TENS[tens]} e {_UNITS[units]}"


def ball_call(variant: Variant, number: int) -> str:
    """What the caller says for ``number``: its words, after its column's letter on the 75-ball
    card (R77): "B, doze", "quarenta e dois". ValueError for a number not on the variant's cards."""
    shape = geometry(variant)
    words = number_words(number)
    if shape.headers is None:
        if number > shape.balls:
            raise ValueError(f"{number} is not a {variant}-ball number")
        return words
    return f"{shape.headers[shape.column_of(number)]}, {words}"


def ball_calls(variant: Variant) -> tuple[str, ...]:
    """Every ball's call for ``variant``, ball ``n`` at index ``n - 1``."""
    return tuple(ball_call(variant, n) for n in range(1, geometry(variant).balls + 1))
