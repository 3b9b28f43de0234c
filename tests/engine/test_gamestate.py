"""Game states and their transitions (SPEC §3, R55, R57)."""

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from bingo.engine import ALLOWED, FINAL, GameState, IllegalTransition, transition
from bingo.engine.gamestate import SUSPENSION_LIMIT, annul_check, annul_from, resume_check

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
    # Nothing sold, or a fault of the online system (R98); the hall's grounds: annul_check.
    (S.SALES_CLOSED, S.ANNULLED),
    (S.DRAWING, S.ANNULLED),  # R57 once balls are drawn; R98
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


# --- R55: a failure before the first ball suspends the game; annulled after 15 minutes -----------

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)


def test_the_suspension_limit_is_the_rules_15_minutes():
    assert timedelta(minutes=15) == SUSPENSION_LIMIT
    assert annul_from(T0) == datetime(2026, 3, 1, 20, 15, tzinfo=UTC)


@pytest.mark.parametrize("current", [S.SALES_CLOSED, S.DRAWING])
def test_a_game_with_cards_sold_and_no_ball_drawn_is_not_annulled_at_once(current):
    # R55: before the first ball a failure suspends the game; R57 needs numbers announced.
    with pytest.raises(IllegalTransition, match=r"R55.*suspended first") as info:
        annul_check(current=current, balls_drawn=0, cards_sold=3, suspended_at=None, now=T0)
    assert info.value.code == "suspend_first"


@pytest.mark.parametrize("waited", [timedelta(0), timedelta(minutes=1), timedelta(minutes=14, seconds=59)])
def test_a_suspended_game_is_not_annulled_before_15_minutes(waited):
    with pytest.raises(IllegalTransition, match=r"R55.*from 2026-03-01 20:15") as info:
        annul_check(current=S.SUSPENDED, balls_drawn=0, cards_sold=3, suspended_at=T0, now=T0 + waited)
    assert info.value.code == "suspension_running"
    assert info.value.params["annul_from"] == T0 + SUSPENSION_LIMIT
    # Whole minutes still to wait, rounded up: 15, 14, 1.
    assert info.value.params["minutes"] == -(-(SUSPENSION_LIMIT - waited) // timedelta(minutes=1))


@pytest.mark.parametrize("waited", [timedelta(minutes=15), timedelta(hours=3)])
def test_a_suspended_game_is_annulled_once_15_minutes_passed_without_a_solution(waited):
    annul_check(current=S.SUSPENDED, balls_drawn=0, cards_sold=3, suspended_at=T0, now=T0 + waited)


@pytest.mark.parametrize("balls", [1, 40])
def test_an_announcement_error_annuls_a_game_once_balls_are_drawn(balls):  # R57
    annul_check(current=S.DRAWING, balls_drawn=balls, cards_sold=3, suspended_at=None, now=T0)


@pytest.mark.parametrize("current", [S.SALES_CLOSED, S.DRAWING])
def test_a_game_that_sold_no_card_is_annulled_at_once(current):
    # Nothing to collect or refund: no player waits for the 15 minutes.
    annul_check(current=current, balls_drawn=0, cards_sold=0, suspended_at=None, now=T0)


@pytest.mark.parametrize("current", [S.PLANNED, S.SELLING, S.FINISHED, S.ANNULLED])
def test_annulling_still_follows_the_moves_allowed(current):
    with pytest.raises(IllegalTransition) as info:
        annul_check(
            current=current, balls_drawn=0, cards_sold=0, suspended_at=T0, now=T0 + timedelta(hours=1)
        )
    assert info.value.code in ("not_allowed", "state_final")


def test_a_suspended_game_without_its_time_is_a_programming_error():
    with pytest.raises(ValueError, match="when it was suspended"):
        annul_check(current=S.SUSPENDED, balls_drawn=0, cards_sold=1, suspended_at=None, now=T0)


def test_the_clock_must_know_its_time_zone():
    naive = datetime(2026, 3, 1, 21)  # noqa: DTZ001 - the mistake this refuses
    with pytest.raises(ValueError, match="time zone"):
        annul_check(current=S.SUSPENDED, balls_drawn=0, cards_sold=1, suspended_at=T0, now=naive)


@pytest.mark.parametrize("waited", [timedelta(0), timedelta(minutes=14, seconds=59)])
def test_a_failure_solved_within_15_minutes_resumes_the_game(waited):
    resume_check(suspended_at=T0, now=T0 + waited)


@pytest.mark.parametrize("waited", [timedelta(minutes=15), timedelta(hours=1)])
def test_after_15_minutes_without_a_solution_the_game_is_not_resumed(waited):
    with pytest.raises(IllegalTransition, match=r"R55.*annulled with a full refund") as info:
        resume_check(suspended_at=T0, now=T0 + waited)
    assert info.value.code == "suspension_over"
    assert info.value.params["suspended_at"] == T0
