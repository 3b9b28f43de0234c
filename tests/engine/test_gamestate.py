"""Game states and their transitions (SPEC §3, R55, R57)."""

import itertools

import pytest

from bingo.engine import ALLOWED, FINAL, GameState, IllegalTransition, transition

S = GameState

LEGAL = {
    (S.PLANNED, S.SELLING),
    (S.SELLING, S.SALES_CLOSED),
    (S.SALES_CLOSED, S.DRAWING),
    (S.DRAWING, S.FINISHED),
    (S.PLANNED, S.SUSPENDED),
    (S.SELLING, S.SUSPENDED),
    (S.SALES_CLOSED, S.SUSPENDED),
    (S.DRAWING, S.SUSPENDED),  # R55: only before the first ball
    (S.SUSPENDED, S.SELLING),
    (S.SUSPENDED, S.SALES_CLOSED),
    (S.SUSPENDED, S.ANNULLED),  # R55: 15 minutes without a solution
    (S.SALES_CLOSED, S.ANNULLED),  # R57
    (S.DRAWING, S.ANNULLED),  # R57
}
ALL_PAIRS = set(itertools.product(GameState, GameState))


def test_states():
    assert [s.value for s in GameState] == [
        "planned", "selling", "sales_closed", "drawing", "finished", "suspended", "annulled",
    ]  # fmt: skip


def test_allowed_table_is_exactly_the_legal_moves():
    assert set(ALLOWED) == set(GameState)
    assert {(a, b) for a, targets in ALLOWED.items() for b in targets} == LEGAL


def test_allowed_table_cannot_be_changed():
    with pytest.raises(TypeError):
        ALLOWED[S.FINISHED] = frozenset({S.PLANNED})  # type: ignore[index]


def test_finished_and_annulled_are_final():
    assert frozenset({S.FINISHED, S.ANNULLED}) == FINAL


@pytest.mark.parametrize(("current", "target"), sorted(LEGAL))
def test_legal_transition_returns_the_target(current, target):
    assert transition(current, target) is target


@pytest.mark.parametrize(("current", "target"), sorted(ALL_PAIRS - LEGAL))
def test_illegal_transition_is_refused_naming_both_states(current, target):
    with pytest.raises(IllegalTransition) as info:
        transition(current, target)
    assert current.value in str(info.value)
    assert target.value in str(info.value)


@pytest.mark.parametrize("final", [S.FINISHED, S.ANNULLED])
def test_final_states_say_so(final):
    with pytest.raises(IllegalTransition, match=f"{final} is final"):
        transition(final, S.PLANNED)


def test_drawing_may_be_suspended_before_the_first_ball():
    assert transition(S.DRAWING, S.SUSPENDED, balls_drawn=0) is S.SUSPENDED


@pytest.mark.parametrize("balls", [1, 2, 89])
def test_drawing_cannot_be_suspended_after_the_first_ball(balls):
    # R55: once the draw has begun the game continues by manual draw.
    with pytest.raises(IllegalTransition, match=f"drawing to suspended after {balls} ball.*R55.*manual"):
        transition(S.DRAWING, S.SUSPENDED, balls_drawn=balls)


def test_balls_drawn_only_limits_suspending_a_draw():
    assert transition(S.DRAWING, S.FINISHED, balls_drawn=40) is S.FINISHED
    assert transition(S.DRAWING, S.ANNULLED, balls_drawn=40) is S.ANNULLED


def test_negative_balls_drawn_is_refused():
    with pytest.raises(ValueError, match="negative"):
        transition(S.DRAWING, S.SUSPENDED, balls_drawn=-1)


def test_illegal_transition_is_a_value_error():
    assert issubclass(IllegalTransition, ValueError)


def test_states_may_be_given_by_value():
    assert transition("planned", "selling") is S.SELLING  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        transition("planned", "bogus")  # type: ignore[arg-type]


def test_a_whole_game_with_a_suspension_before_the_draw():
    state = S.PLANNED
    for target in (S.SELLING, S.SUSPENDED, S.SELLING, S.SALES_CLOSED, S.DRAWING, S.FINISHED):
        state = transition(state, target)
    assert state is S.FINISHED
