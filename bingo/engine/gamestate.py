"""The states of a game (jogada) and the moves between them (SPEC §3, R40, R55, R57).

A game is planned, sells its cards, closes its sale (R40 announcement), draws and finishes.
It may be suspended by a failure before the first ball (R55) and resumed, or annulled with a
full refund: after 15 minutes of suspension without a solution (R55) or after an announcement
error that affects the result (R57). Finished and annulled games are final.

``transition`` holds every move any path may make; ``annul_check`` and ``resume_check`` add the
hall's R55 and R57 conditions, with the clock as a parameter. (An online game made null by a
fault of the system, R98, is annulled at once: that path does not call ``annul_check``.)

Where a suspended game came from is not a state of its own: the caller records it and resumes
with suspended -> selling or suspended -> sales_closed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from enum import StrEnum
from types import MappingProxyType

from bingo.engine.errors import EngineError


class IllegalTransition(EngineError):  # noqa: N818 - the name the games service and SPEC use
    """A move between game states the rules do not allow; the message names both states.

    ``params`` holds ``current`` and ``target`` (state values), and ``balls_drawn`` for R55.
    """

    codes = frozenset(
        {
            "state_final",
            "not_allowed",
            "draw_begun",
            "suspend_first",  # R55: annulled before the first ball, not suspended first
            "suspension_running",  # R55: params ``annul_from`` (datetime) and ``minutes`` to wait
            "suspension_over",  # R55: params ``suspended_at`` (datetime), resumed too late
        }
    )


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
        # Annulled at once only with no card sold or for a fault of the online system (R98);
        # a failure in the hall suspends it first (R55, ``annul_check``).
        _S.SALES_CLOSED: frozenset({_S.DRAWING, _S.SUSPENDED, _S.ANNULLED}),
        # R57: an announcement error that affects the result annuls the game, with a refund
        # (once balls are drawn, ``annul_check``); R98 as above.
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


#: R55: how long a game suspended before its first ball waits for a solution («Se decorridos 15
#: minutos não for encontrada solução»): then its cards are collected and every card refunded in
#: full, and it is no longer resumed.
SUSPENSION_LIMIT = timedelta(minutes=15)


def _aware(moment: datetime, name: str) -> None:
    if moment.utcoffset() is None:
        raise ValueError(f"{name} must carry its time zone, not {moment!r}")


def annul_from(suspended_at: datetime) -> datetime:
    """When a game suspended at ``suspended_at`` may be annulled if no solution was found (R55)."""
    return suspended_at + SUSPENSION_LIMIT


def annul_check(
    *,
    current: GameState,
    balls_drawn: int,
    cards_sold: int,
    suspended_at: datetime | None,
    now: datetime,
) -> None:
    """Refuse, with IllegalTransition, to annul at ``now`` a game in ``current`` unless the rules
    allow it: suspended for 15 minutes without a solution (R55), or drawing with balls out, whose
    announcement may have been wrong (R57). A game that sold no card (``cards_sold`` 0: nothing
    to collect or refund) is annulled at once. ``suspended_at`` is when a suspended game was
    suspended; times carry their time zone."""
    _aware(now, "now")
    current = GameState(current)
    transition(current, GameState.ANNULLED, balls_drawn=balls_drawn)
    if cards_sold == 0:
        return
    if current is GameState.SUSPENDED:
        if suspended_at is None:
            raise ValueError("a suspended game must say when it was suspended")
        _aware(suspended_at, "suspended_at")
        allowed = annul_from(suspended_at)
        if now < allowed:
            minutes = -(-(allowed - now) // timedelta(minutes=1))  # whole minutes, rounded up
            raise IllegalTransition(
                f"R55: a suspended game is annulled only if no solution is found within 15 minutes: "
                f"from {allowed:%Y-%m-%d %H:%M} (in {minutes} min)",
                code="suspension_running",
                params={"annul_from": allowed, "minutes": minutes},
            )
        return
    if balls_drawn == 0:
        # R55: before the first ball a failure suspends the game; R57 needs numbers announced.
        raise IllegalTransition(
            f"R55: a game in state {current} with no ball drawn is suspended first, and annulled "
            "only if no solution is found within 15 minutes",
            code="suspend_first",
            params={"current": current.value},
        )


def resume_check(*, suspended_at: datetime, now: datetime) -> None:
    """Refuse, with IllegalTransition, to resume at ``now`` a game suspended at ``suspended_at``
    once 15 minutes passed without a solution: its cards are then refunded (R55)."""
    _aware(now, "now")
    _aware(suspended_at, "suspended_at")
    if now >= annul_from(suspended_at):
        raise IllegalTransition(
            f"R55: no solution within 15 minutes of the suspension at {suspended_at:%Y-%m-%d %H:%M}: "
            "the game is annulled with a full refund, not resumed",
            code="suspension_over",
            params={"suspended_at": suspended_at},
        )
