"""The states of a game (jogada) and the moves between them (SPEC §3, R40, R55, R57).

A game is planned, sells its cards, closes its sale (R40 announcement), draws and finishes.
It may be suspended by a failure before the first ball (R55) and resumed, or annulled with a
full refund: after 15 minutes of suspension without a solution (R55) or after an announcement
error that affects the result (R57). Finished and annulled games are final.

Where a suspended game came from is not a state of its own: the caller records it and resumes
with suspended -> selling or suspended -> sales_closed.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType

from bingo.engine.errors import EngineError


class IllegalTransition(EngineError):  # noqa: N818 - the name the games service and SPEC use
    """A move between game states the rules do not allow; the message names both states.

    ``params`` holds ``current`` and ``target`` (state values), and ``balls_drawn`` for R55.
    """

    codes = frozenset({"state_final", "not_allowed", "draw_begun"})


class GameState(StrEnum):
    """Where a game stands."""

    PLANNED = "planned"
    SELLING = "selling"
    SALES_CLOSED = "sales_closed"
    DRAWING = "drawing"
    FINISHED = "finished"
    SUSPENDED = "suspended"
    ANNULLED = "annulled"


_S = GameState

#: The moves each state allows. drawing -> suspended is further limited to before the first
#: ball (R55), which ``transition`` checks.
ALLOWED: Mapping[GameState, frozenset[GameState]] = MappingProxyType(
    {
        _S.PLANNED: frozenset({_S.SELLING, _S.SUSPENDED}),
        _S.SELLING: frozenset({_S.SALES_CLOSED, _S.SUSPENDED}),
        # R57: an announcement error that affects the result annuls the game, with a refund.
        _S.SALES_CLOSED: frozenset({_S.DRAWING, _S.SUSPENDED, _S.ANNULLED}),
        _S.DRAWING: frozenset({_S.FINISHED, _S.SUSPENDED, _S.ANNULLED}),
        # R55: resume once the failure is solved, or annul with a refund after 15 minutes.
        _S.SUSPENDED: frozenset({_S.SELLING, _S.SALES_CLOSED, _S.ANNULLED}),
        _S.FINISHED: frozenset(),
        _S.ANNULLED: frozenset(),
    }
)

#: States a game never leaves.
FINAL: frozenset[GameState] = frozenset(state for state, targets in ALLOWED.items() if not targets)


def transition(current: GameState, target: GameState, *, balls_drawn: int = 0) -> GameState:
    """``target`` if a game in ``current`` may move to it; IllegalTransition naming both otherwise.

    ``balls_drawn`` counts the balls drawn so far in this game: a drawing game may be suspended
    only before the first ball; after it the game goes on by manual draw (R55).
    """
    current, target = GameState(current), GameState(target)
    if balls_drawn < 0:
        raise ValueError(f"balls drawn cannot be negative, not {balls_drawn}")
    if target not in ALLOWED[current]:
        moving = {"current": current.value, "target": target.value}
        if current in FINAL:
            raise IllegalTransition(
                f"a game in state {current} is final and cannot move to {target}",
                code="state_final",
                params=moving,
            )
        raise IllegalTransition(
            f"a game cannot move from {current} to {target}", code="not_allowed", params=moving
        )
    if current is GameState.DRAWING and target is GameState.SUSPENDED and balls_drawn > 0:
        # R55: once the draw has begun the game is not suspended; it continues by manual draw.
        raise IllegalTransition(
            f"a game cannot move from {current} to {target} after {balls_drawn} ball(s) drawn: "
            "R55 continues it by manual draw",
            code="draw_begun",
            params={"current": current.value, "target": target.value, "balls_drawn": balls_drawn},
        )
    return target
