"""Drawing balls: the next ball of an electronic draw, the check of a keyed-in one, and how a
ball is announced (R42, R55, R77).

Randomness is a parameter (STYLE rule 1): the games service passes ``secrets.SystemRandom()``,
tests a seeded ``random.Random``. The ball is chosen when it is called, from the balls still in
the drum; no sequence is prepared in advance.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from bingo.engine.errors import EngineError
from bingo.engine.variants import Variant, geometry


class DrawError(EngineError):
    """A ball that cannot be drawn: out of range, already drawn, or the drum is empty.

    ``params`` holds ``number`` and ``balls`` (the variant's ball count) where they apply.
    """

    codes = frozenset({"out_of_range", "already_drawn", "drum_empty"})


class Chooser(Protocol):
    """What the draw needs of a random source: ``random.Random`` and ``secrets.SystemRandom``."""

    def choice(self, seq: list[int], /) -> int: ...


def remaining(variant: Variant, drawn: Iterable[int]) -> list[int]:
    """The balls still in the drum, in number order."""
    gone = set(drawn)
    return [n for n in range(1, geometry(variant).balls + 1) if n not in gone]


def next_ball(variant: Variant, drawn: Iterable[int], rng: Chooser) -> int:
    """An electronic draw: one ball chosen by ``rng`` among those not yet drawn."""
    left = remaining(variant, drawn)
    if not left:
        raise DrawError("every ball has been drawn", code="drum_empty", params={})
    return rng.choice(left)


def keyed_ball(variant: Variant, drawn: Iterable[int], number: int) -> int:
    """A ball keyed in from the blower (physical draw, or manual extraction after R55): checked
    to be one of this variant's balls and not drawn before."""
    balls = geometry(variant).balls
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= balls:
        raise DrawError(
            f"{number!r} is not a ball of the {variant}-ball game (1 to {balls})",
            code="out_of_range",
            params={"number": number, "balls": balls},
        )
    if number in set(drawn):
        raise DrawError(
            f"ball {number} has already been drawn in this game",
            code="already_drawn",
            params={"number": number, "balls": balls},
        )
    return number


def ball_label(variant: Variant, number: int) -> str:
    """How a ball is announced: 75-ball balls with their column letter (R77), e.g. ``"N 42"``;
    others by their number alone."""
    shape = geometry(variant)
    if shape.headers is None:
        return str(number)
    return f"{shape.headers[shape.column_of(number)]} {number}"
