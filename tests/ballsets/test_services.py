"""Ball sets (R20-R26): registering, checking every ball (R23), replacing, retiring, and counting
the games each set draws, never more than 2 000 (R25)."""

from __future__ import annotations

from functools import partial

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import translation

from bingo.ballsets import services as ballset_services
from bingo.games.exports import session_export_data
from halls.models import BallReplacement, BallSet, BallSetCheck, BallSetUse
from tests.concurrency import postgresql_only, run_threads
from tests.db_roles import as_table_owner
from tests.factories import HallWithSessions


@pytest.fixture(autouse=True)
def _english():
    """Service messages are checked in English (the Portuguese catalogue is tested elsewhere)."""
    with translation.override("en"):
        yield


pytestmark = pytest.mark.django_db


# --- registering -----------------------------------------------------------------------------


def test_a_new_set_is_active_with_the_games_it_already_played(venue):
    ball_set = ballset_services.ball_set_create(
        hall=venue.hall, serial_number="  JB-77 ", size=75, games_played=1200, notes="bought used"
    )
    ball_set.refresh_from_db()
    assert (ball_set.serial_number, ball_set.size, ball_set.games_played) == ("JB-77", 75, 1200)
    assert ball_set.state == BallSet.State.ACTIVE
    assert ball_set.games_left == 800


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"size": 60}, "size"),
        ({"games_played": 2000}, "games_played"),  # R25: worn out before it starts
        ({"games_played": -1}, "games_played"),
        ({"serial_number": "   "}, "serial_number"),
    ],
)
def test_a_set_the_rules_do_not_allow_is_refused(venue, fields, field):
    with pytest.raises(ValidationError) as refused:
        ballset_services.ball_set_create(hall=venue.hall, **{"serial_number": "JB-1", "size": 90, **fields})
    assert field in refused.value.message_dict
    assert not BallSet.objects.exists()


def test_a_serial_number_is_unique_in_its_hall_only(venue, other_venue):
    venue.ball_set("JB-1")
    with pytest.raises(ValidationError, match="already") as refused:
        venue.ball_set("JB-1")
    assert "serial_number" in refused.value.message_dict
    other_venue.ball_set("JB-1")
    assert BallSet.objects.filter(serial_number="JB-1").count() == 2


# --- the check of every ball (R23) ---------------------------------------------------------------


def test_a_check_records_the_faulty_balls_sorted_once(venue):
    session = venue.session()
    ball_set = venue.ball_set()
    check = ballset_services.ball_set_check_record(
        ball_set=ball_set, session=session, phase="start", faulty_balls=[45, 3, 45]
    )
    check.refresh_from_db()
    assert (check.result, check.faulty_balls) == ("faulty", [3, 45])
    ok = ballset_services.ball_set_check_record(ball_set=ball_set, session=session, phase="end")
    assert (ok.result, ok.faulty_balls) == ("ok", [])


def test_each_phase_of_a_session_is_checked_once(venue):
    session = venue.session()
    ball_set = venue.checked_set(session)
    with pytest.raises(ValidationError, match="already recorded"):
        ballset_services.ball_set_check_record(ball_set=ball_set, session=session, phase="start")
    assert BallSetCheck.objects.count() == 1


def test_the_end_check_needs_the_start_check(venue):
    session = venue.session()
    ball_set = venue.ball_set()
    with pytest.raises(ValidationError, match="R23"):
        ballset_services.ball_set_check_record(ball_set=ball_set, session=session, phase="end")


@pytest.mark.parametrize("balls", [[0], [91], [1, 76]])
def test_a_faulty_ball_is_a_ball_of_the_set(venue, balls):
    ball_set = venue.ball_set(size=75) if 76 in balls else venue.ball_set()
    with pytest.raises(ValidationError) as refused:
        ballset_services.ball_set_check_record(
            ball_set=ball_set, session=venue.session(), phase="start", faulty_balls=balls
        )
    assert "faulty_balls" in refused.value.message_dict


def test_a_check_of_a_session_of_another_hall_is_refused(venue, other_venue):
    with pytest.raises(ValidationError) as refused:
        ballset_services.ball_set_check_record(
            ball_set=venue.ball_set(), session=other_venue.session(), phase="start"
        )
    assert "session" in refused.value.message_dict


def test_a_retired_set_is_not_checked_for_a_new_session_but_still_at_the_end(venue):
    session = venue.session()
    ball_set = venue.checked_set(session)
    ballset_services.ball_set_retire(ball_set=ball_set, reason="worn")
    with pytest.raises(ValidationError, match="retired"):
        ballset_services.ball_set_check_record(ball_set=ball_set, session=venue.session(), phase="start")
    ballset_services.ball_set_check_record(ball_set=ball_set, session=session, phase="end", faulty_balls=[7])


# --- using a set for a game (R23, R25) -----------------------------------------------------------


def test_each_game_drawn_counts_once_for_its_set(venue):
    session = venue.session()
    ball_set = venue.checked_set(session, games_played=10)
    first, second = venue.game(session), venue.game(session)

    used = ballset_services.ball_set_use_for_game(ball_set=ball_set, game=first)
    assert used.games_played == 11
    assert (
        ballset_services.ball_set_use_for_game(ball_set=ball_set, game=first).games_played == 11
    )  # again: no-op
    ballset_services.ball_set_use_for_game(ball_set=ball_set, game=second)

    ball_set.refresh_from_db()
    assert ball_set.games_played == 12
    assert list(BallSetUse.objects.values_list("game_id", "number")) == [(first.pk, 11), (second.pk, 12)]


def test_the_2000th_game_retires_the_set_and_a_2001st_is_refused(venue):
    """R25: a set draws at most 2 000 games."""
    session = venue.session()
    ball_set = venue.checked_set(session, games_played=1999)

    ballset_services.ball_set_use_for_game(ball_set=ball_set, game=venue.game(session))
    ball_set.refresh_from_db()
    assert (ball_set.games_played, ball_set.state) == (2000, BallSet.State.RETIRED)
    assert "R25" in ball_set.retired_reason

    with pytest.raises(ValidationError, match="R25") as refused:
        ballset_services.ball_set_use_for_game(ball_set=ball_set, game=venue.game(session))
    assert "2 000" in refused.value.messages[0]
    ball_set.refresh_from_db()
    assert ball_set.games_played == 2000


def test_a_retired_set_draws_no_game(venue):
    session = venue.session()
    ball_set = venue.checked_set(session)
    ballset_services.ball_set_retire(ball_set=ball_set, reason="a cracked ball")
    with pytest.raises(ValidationError, match=r"retired.*R25"):
        ballset_services.ball_set_use_for_game(ball_set=ball_set, game=venue.game(session))
    assert not BallSetUse.objects.exists()


def test_a_set_draws_only_games_of_its_own_size(venue):
    session = venue.session()
    ball_set = venue.checked_set(session, size=75)
    with pytest.raises(ValidationError, match="75 balls"):
        ballset_services.ball_set_use_for_game(ball_set=ball_set, game=venue.game(session, variant="90"))
    ballset_services.ball_set_use_for_game(ball_set=ball_set, game=venue.game(session, variant="75"))


def test_a_set_of_another_hall_draws_no_game(venue, other_venue):
    session = venue.session()
    foreign = other_venue.checked_set(other_venue.session())
    with pytest.raises(ValidationError, match="another hall"):
        ballset_services.ball_set_use_for_game(ball_set=foreign, game=venue.game(session))


def test_a_set_without_this_sessions_start_check_draws_no_game(venue):
    """R23: every ball runs through the mechanism at the start of each session."""
    earlier = venue.session()
    ball_set = venue.checked_set(earlier)  # checked for another session only
    with pytest.raises(ValidationError, match="R23"):
        ballset_services.ball_set_use_for_game(ball_set=ball_set, game=venue.game(venue.session()))
    ball_set.refresh_from_db()
    assert ball_set.games_played == 0


def test_a_faulty_start_check_blocks_the_set_until_each_faulty_ball_is_replaced(venue):
    """R23 with R26: the set draws again once every ball the check found faulty was replaced."""
    session = venue.session()
    ball_set = venue.ball_set()
    ballset_services.ball_set_check_record(
        ball_set=ball_set, session=session, phase="start", faulty_balls=[17, 44]
    )
    game = venue.game(session)

    with pytest.raises(ValidationError, match="17, 44"):
        ballset_services.ball_set_use_for_game(ball_set=ball_set, game=game)
    ballset_services.ball_replace(ball_set=ball_set, ball_number=17, reason="chipped", session=session)
    with pytest.raises(ValidationError, match=r"faulty balls not replaced since: 44 \(R23, R26\)"):
        ballset_services.ball_set_use_for_game(ball_set=ball_set, game=game)
    ballset_services.ball_replace(
        ball_set=ball_set, ball_number=44, reason="number worn off", session=session
    )

    assert ballset_services.ball_set_use_for_game(ball_set=ball_set, game=game).games_played == 1


def test_a_ball_replaced_before_the_check_does_not_mend_it(venue):
    ball_set = venue.ball_set()
    ballset_services.ball_replace(ball_set=ball_set, ball_number=17, reason="chipped last month")
    session = venue.session()
    ballset_services.ball_set_check_record(
        ball_set=ball_set, session=session, phase="start", faulty_balls=[17]
    )
    with pytest.raises(ValidationError, match="17"):
        ballset_services.ball_set_use_for_game(ball_set=ball_set, game=venue.game(session))


def test_a_game_is_drawn_with_one_set_only(venue):
    session = venue.session()
    first = venue.checked_set(session, serial="JB-1")
    second = venue.checked_set(session, serial="JB-2")
    game = venue.game(session)
    ballset_services.ball_set_use_for_game(ball_set=first, game=game)
    with pytest.raises(ValidationError, match="JB-1"):
        ballset_services.ball_set_use_for_game(ball_set=second, game=game)
    second.refresh_from_db()
    assert second.games_played == 0


def test_a_refused_use_inside_the_draws_transaction_leaves_the_rest_of_it(venue):
    """The draw service calls it in its own transaction: a refusal raises, and changes nothing."""
    session = venue.session()
    ball_set = venue.ball_set()  # no start check
    game = venue.game(session)
    with pytest.raises(ValidationError), transaction.atomic():
        ballset_services.ball_set_use_for_game(ball_set=ball_set, game=game)
    assert not BallSetUse.objects.exists()


# --- replacing and retiring (R25, R26) -----------------------------------------------------------


def test_replacing_a_whole_set_retires_it_and_records_both(venue):
    session = venue.session()
    old, new = venue.ball_set("JB-1"), venue.ball_set("JB-2")
    replacement = ballset_services.ball_set_replace(
        ball_set=old, replacement=new, reason="worn", session=session
    )
    old.refresh_from_db()
    assert old.state == BallSet.State.RETIRED
    assert old.retired_reason == "worn"
    assert (replacement.ball_set, replacement.replacement_set, replacement.ball_number) == (old, new, None)
    assert replacement.session == session
    # The new set has not run through the mechanism in this session yet (R23).
    with pytest.raises(ValidationError, match="R23"):
        ballset_services.ball_set_use_for_game(ball_set=new, game=venue.game(session))


def test_a_set_retired_at_2000_games_can_still_be_recorded_as_replaced(venue):
    session = venue.session()
    old = venue.checked_set(session, serial="JB-1", games_played=1999)
    ballset_services.ball_set_use_for_game(ball_set=old, game=venue.game(session))
    ballset_services.ball_set_replace(ball_set=old, replacement=venue.ball_set("JB-2"), reason="2 000 games")
    assert BallReplacement.objects.filter(ball_set=old).count() == 1


@pytest.mark.parametrize("problem", ["itself", "other size", "other hall", "retired", "twice", "no reason"])
def test_a_set_replacement_the_rules_do_not_allow_is_refused(venue, other_venue, problem):
    old = venue.ball_set("JB-1")
    new = {
        "itself": lambda: old,
        "other size": lambda: venue.ball_set("JB-2", size=80),
        "other hall": lambda: other_venue.ball_set("JB-2"),
        "retired": lambda: ballset_services.ball_set_retire(ball_set=venue.ball_set("JB-2"), reason="worn"),
    }.get(problem, lambda: venue.ball_set("JB-2"))()
    reason = "" if problem == "no reason" else "worn"
    if problem == "twice":
        ballset_services.ball_set_replace(ball_set=old, replacement=venue.ball_set("JB-3"), reason="worn")
    count = BallReplacement.objects.count()
    with pytest.raises(ValidationError):
        ballset_services.ball_set_replace(ball_set=old, replacement=new, reason=reason)
    assert BallReplacement.objects.count() == count


def test_one_damaged_ball_is_replaced_within_the_set(venue):
    ball_set = venue.ball_set(size=30)
    replacement = ballset_services.ball_replace(ball_set=ball_set, ball_number=30, reason="cracked")
    assert (replacement.ball_number, replacement.replacement_set) == (30, None)
    with pytest.raises(ValidationError) as refused:
        ballset_services.ball_replace(ball_set=ball_set, ball_number=31, reason="cracked")
    assert "ball_number" in refused.value.message_dict
    with pytest.raises(ValidationError) as refused:
        ballset_services.ball_replace(ball_set=ball_set, ball_number=3, reason=" ")
    assert "reason" in refused.value.message_dict
    ball_set.refresh_from_db()
    assert ball_set.state == BallSet.State.ACTIVE  # one ball does not retire the set


def test_a_ball_replaced_again_in_a_session_needs_why_and_is_flagged(venue):
    """Issue [A0] 7: recording goes on (R26), but the same ball again in one session says why."""
    session = venue.session()
    ball_set = venue.ball_set()
    first = ballset_services.ball_replace(
        ball_set=ball_set, ball_number=17, reason="cracked", session=session
    )
    assert (first.repeated, first.repeat_reason) == (False, "")

    with pytest.raises(ValidationError) as refused:
        ballset_services.ball_replace(ball_set=ball_set, ball_number=17, reason="cracked", session=session)
    assert "already replaced in this session" in refused.value.message_dict["repeat_reason"][0]
    assert BallReplacement.objects.count() == 1

    again = ballset_services.ball_replace(
        ball_set=ball_set, ball_number=17, reason="cracked", session=session, repeat_reason="  chipped too "
    )
    third = ballset_services.ball_replace(
        ball_set=ball_set, ball_number=17, reason="cracked", session=session, repeat_reason="dropped"
    )
    assert (again.repeated, again.repeat_of, again.repeat_reason) == (True, first, "chipped too")
    assert third.repeat_of == again  # each repeat names the one before it


def test_a_replacement_is_a_repeat_only_for_the_same_ball_set_and_session(venue):
    session, other_session = venue.session(), venue.session()
    ball_set, other_set = venue.ball_set("JB-1"), venue.ball_set("JB-2")
    ballset_services.ball_replace(ball_set=ball_set, ball_number=17, reason="cracked", session=session)

    fresh = [
        ballset_services.ball_replace(ball_set=ball_set, ball_number=18, reason="cracked", session=session),
        ballset_services.ball_replace(ball_set=other_set, ball_number=17, reason="cracked", session=session),
        ballset_services.ball_replace(
            ball_set=ball_set, ball_number=17, reason="cracked", session=other_session
        ),
        ballset_services.ball_replace(
            ball_set=ball_set, ball_number=17, reason="cracked"
        ),  # outside a session
    ]

    assert [r.repeated for r in fresh] == [False] * 4
    # A reason for a repeat that is none is not kept: nothing to flag.
    plain = ballset_services.ball_replace(
        ball_set=ball_set, ball_number=19, reason="x", session=session, repeat_reason="?"
    )
    assert (plain.repeated, plain.repeat_reason) == (False, "")


def test_the_schema_refuses_a_repeat_without_its_reason(venue):
    session = venue.session()
    ball_set = venue.ball_set()
    first = ballset_services.ball_replace(
        ball_set=ball_set, ball_number=17, reason="cracked", session=session
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        BallReplacement.objects.create(
            ball_set=ball_set, ball_number=17, session=session, reason="again", repeat_of=first
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        BallReplacement.objects.create(
            ball_set=ball_set, ball_number=3, session=session, reason="x", repeat_reason="not a repeat"
        )


@pytest.mark.postgres
def test_postgres_refuses_a_repeat_that_is_not_flagged(venue):
    if connection.vendor != "postgresql":
        pytest.skip("the trigger exists on PostgreSQL only; the service does the same elsewhere")
    session = venue.session()
    ball_set = venue.ball_set()
    ballset_services.ball_replace(ball_set=ball_set, ball_number=17, reason="cracked", session=session)
    with pytest.raises(IntegrityError, match="names its last replacement"), transaction.atomic():
        BallReplacement.objects.create(ball_set=ball_set, ball_number=17, session=session, reason="again")
    other = ballset_services.ball_replace(
        ball_set=ball_set, ball_number=18, reason="cracked", session=session
    )
    with pytest.raises(IntegrityError, match="names its last replacement"), transaction.atomic():
        BallReplacement.objects.create(
            ball_set=ball_set, ball_number=17, session=session, reason="x", repeat_of=other, repeat_reason="y"
        )


def test_no_ball_of_a_retired_set_is_replaced(venue):
    ball_set = ballset_services.ball_set_retire(ball_set=venue.ball_set(), reason="worn")
    with pytest.raises(ValidationError, match="retired"):
        ballset_services.ball_replace(ball_set=ball_set, ball_number=1, reason="cracked")


def test_a_set_is_retired_once_with_a_reason(venue):
    ball_set = venue.ball_set()
    with pytest.raises(ValidationError):
        ballset_services.ball_set_retire(ball_set=ball_set, reason="")
    retired = ballset_services.ball_set_retire(ball_set=ball_set, reason="worn")
    assert retired.state == BallSet.State.RETIRED
    assert retired.retired_at is not None
    with pytest.raises(ValidationError, match="already retired"):
        ballset_services.ball_set_retire(ball_set=ball_set, reason="worn")


# --- the schema ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        {"games_played": 2001},
        {"games_played": 2000},  # still active at 2 000 games
        {"size": 60},
        {"state": "retired"},  # retired without a date
        {"state": "lost"},
    ],
)
def test_the_schema_refuses_a_set_the_rules_do_not_allow(venue, change):
    ball_set = venue.ball_set()
    with pytest.raises(IntegrityError), transaction.atomic():
        BallSet.objects.filter(pk=ball_set.pk).update(**change)


def test_the_schema_refuses_a_check_whose_result_and_balls_disagree(venue):
    ball_set, session = venue.ball_set(), venue.session()
    with pytest.raises(IntegrityError), transaction.atomic():
        BallSetCheck.objects.create(
            ball_set=ball_set, session=session, phase="start", result="ok", faulty_balls=[3]
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        BallSetCheck.objects.create(ball_set=ball_set, session=session, phase="start", result="faulty")


@pytest.mark.parametrize(
    "fields",
    [
        {"ball_number": 91},
        {"ball_number": 0},
        {"ball_number": None},  # neither a ball nor a set
        {"ball_number": 3, "replacement_set": "other"},  # both
        {"ball_number": None, "replacement_set": "self"},
        {"ball_number": 3, "reason": ""},
    ],
)
def test_the_schema_refuses_a_replacement_the_rules_do_not_allow(venue, fields):
    ball_set = venue.ball_set("JB-1")
    sets = {"other": venue.ball_set("JB-2"), "self": ball_set}
    values = {"reason": "worn", **fields}
    if "replacement_set" in values:
        values["replacement_set"] = sets[values["replacement_set"]]
    with pytest.raises(IntegrityError), transaction.atomic():
        BallReplacement.objects.create(ball_set=ball_set, **values)


def test_the_schema_refuses_a_2001st_use(venue):
    session = venue.session()
    ball_set = venue.checked_set(session)
    with pytest.raises(IntegrityError), transaction.atomic():
        BallSetUse.objects.create(ball_set=ball_set, game=venue.game(session), number=2001)


@pytest.mark.postgres
def test_postgres_keeps_ball_records_insert_only_and_ball_numbers_within_the_set(venue):
    if connection.vendor != "postgresql":
        pytest.skip("the triggers exist on PostgreSQL only; the services check the same elsewhere")
    session = venue.session()
    ball_set = venue.checked_set(session, size=30)
    check = BallSetCheck.objects.get()
    replacement = ballset_services.ball_replace(ball_set=ball_set, ball_number=3, reason="cracked")
    use_game = venue.game(session, variant="30")
    ballset_services.ball_set_use_for_game(ball_set=ball_set, game=use_game)
    with as_table_owner():
        # As the tables' owner: the app's role is refused by its privileges before any trigger is
        # asked (tests/common/test_db_roles.py).
        for rows in (
            BallSetCheck.objects.filter(pk=check.pk),
            BallReplacement.objects.filter(pk=replacement.pk),
            BallSetUse.objects.filter(game=use_game),
        ):
            with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
                rows.delete()
        with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
            BallSetCheck.objects.filter(pk=check.pk).update(notes="edited")
    # Numbers beyond the set's own size (30), though within the largest set (90).
    with pytest.raises(IntegrityError, match="not in a set of 30"), transaction.atomic():
        BallReplacement.objects.create(ball_set=ball_set, ball_number=31, reason="x")
    with pytest.raises(IntegrityError, match="from 1 to 30"), transaction.atomic():
        BallSetCheck.objects.create(
            ball_set=ball_set, session=session, phase="end", result="faulty", faulty_balls=[31]
        )
    with pytest.raises(IntegrityError, match="from 1 to 30"), transaction.atomic():
        BallSetCheck.objects.create(
            ball_set=ball_set, session=session, phase="end", result="faulty", faulty_balls=[4, 4]
        )
    # A set keeps its size and its count of games never goes down; retired stays retired.
    for change in ({"size": 90}, {"games_played": 0}):
        with pytest.raises(IntegrityError), transaction.atomic():
            BallSet.objects.filter(pk=ball_set.pk).update(**change)
    ballset_services.ball_set_retire(ball_set=ball_set, reason="worn")
    with pytest.raises(IntegrityError, match="never used again"), transaction.atomic():
        BallSet.objects.filter(pk=ball_set.pk).update(state="active", retired_at=None)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_draws_racing_for_a_sets_last_game_leave_exactly_one():
    """Two games start drawing at once with a set at 1 999 games (real threads, row locks): one
    gets the 2 000th game and retires the set, the other is refused (R25)."""
    postgresql_only()
    venue = HallWithSessions("Sala Corrida")
    session = venue.session()
    ball_set = venue.checked_set(session, games_played=1999)
    games = [venue.game(session), venue.game(session)]
    outcomes: list[str] = []

    def draw(index: int) -> None:
        try:
            with transaction.atomic():
                ballset_services.ball_set_use_for_game(ball_set=ball_set, game=games[index])
            outcomes.append("used")
        except ValidationError as exc:
            outcomes.append("refused" if "R25" in exc.messages[0] else exc.messages[0])

    run_threads([partial(draw, i) for i in range(2)], timeout=60)
    assert sorted(outcomes) == ["refused", "used"]
    ball_set.refresh_from_db()
    assert (ball_set.games_played, ball_set.state) == (2000, BallSet.State.RETIRED)
    assert BallSetUse.objects.filter(ball_set=ball_set).count() == 1


def test_the_session_export_lists_the_replacements_with_the_repeat_flagged(venue):
    """What the acta reads (R61 k): the session's replacements in order, a repeat flagged."""
    session = venue.session()
    ball_set, spare = venue.ball_set("JB-1"), venue.ball_set("JB-2")
    ballset_services.ball_replace(ball_set=ball_set, ball_number=17, reason="cracked", session=session)
    ballset_services.ball_replace(
        ball_set=ball_set, ball_number=17, reason="cracked", session=session, repeat_reason="again"
    )
    ballset_services.ball_set_replace(ball_set=ball_set, replacement=spare, reason="worn", session=session)
    ballset_services.ball_replace(ball_set=spare, ball_number=2, reason="outside the session")

    rows = session_export_data(session=session)["ball_replacements"]

    assert [(r["ball_set"], r["ball_number"], r["replacement_set"]) for r in rows] == [
        ("JB-1", 17, None),
        ("JB-1", 17, None),
        ("JB-1", None, "JB-2"),
    ]
    assert [(r["repeated"], r["repeat_reason"]) for r in rows] == [(False, ""), (True, "again"), (False, "")]
    assert all(r["at"].endswith("-01:00") for r in rows)  # the hall's clock (Cape Verde)
