"""Recording the actions whose own rows do not say who made them (actas/audit/services.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from actas.audit.models import AuditAction, AuditEvent
from actas.audit.services import audit_record
from bingo.draw import services as draw_services
from bingo.games import services
from bingo.models import DrawMode, Game
from tests.db_roles import as_table_owner
from tests.draw.test_services import Draw
from tests.games.test_doubles import Doubles

pytestmark = pytest.mark.django_db


@pytest.fixture
def hall() -> Draw:
    return Draw()


def actions(game: Game) -> list[tuple[str, int | None, str]]:
    return list(
        AuditEvent.objects.filter(game=game).order_by("at", "pk").values_list("action", "user_id", "detail")
    )


def test_each_state_change_records_who_made_it(hall: Draw, make_user) -> None:
    manager = make_user()
    game = services.game_create(session=hall.session, variant="90")
    services.game_open_sales(game=game, series=[hall.series(1)], user=manager)
    hall.sell(game, 2)
    services.game_close_sales(game=game, user=manager)
    draw_services.game_suspend(game=game, user=hall.caller, reason="monitor failure")
    draw_services.game_resume(game=game, user=hall.caller)
    draw_services.game_start_draw(game=game, user=hall.caller, mode=DrawMode.ELECTRONIC)
    draw_services.game_draw_ball(game=game, user=hall.caller, position=1)
    draw_services.game_switch_to_manual(game=game, user=hall.caller, reason="the blower jammed")
    draw_services.game_annul(game=game, user=hall.caller, reason="ball 6 announced as 9")

    assert actions(game) == [
        ("sales_opened", manager.pk, "A-1"),
        ("sales_closed", manager.pk, ""),
        ("game_suspended", hall.caller.pk, "monitor failure"),
        ("game_resumed", hall.caller.pk, ""),
        ("draw_started", hall.caller.pk, "electronic"),
        ("manual_switch", hall.caller.pk, "the blower jammed"),
        ("game_annulled", hall.caller.pk, "ball 6 announced as 9"),
    ]
    assert set(AuditEvent.objects.values_list("hall_id", "session_id")) == {(hall.hall.pk, hall.session.pk)}


def test_closing_a_session_records_who_closed_it(hall: Draw, make_user) -> None:
    manager = make_user()
    # R23: the end-of-session check of the session's ball set, made as it closes.
    services.session_close(session=hall.session, user=manager, end_checks={hall.ball_set.pk: []})
    services.session_close(session=hall.session, user=manager)  # already closed: nothing happens

    event = AuditEvent.objects.get()
    assert (event.action, event.user_id, event.session_id, event.game_id) == (
        "session_closed",
        manager.pk,
        hall.session.pk,
        None,
    )


def test_the_double_cards_second_game_records_who_played_it(db, make_user) -> None:
    hall = Doubles()
    manager = make_user()
    first = hall.first_game(cards=2)
    hall.finish(first, 1)
    second = services.game_play_doubles(
        game=services.game_create(session=hall.session, variant="90"), user=manager
    )

    assert actions(second) == [
        ("doubles_played", manager.pk, str(first.number)),
        ("sales_closed", manager.pk, ""),
    ]


def test_a_refused_action_leaves_no_event(hall: Draw) -> None:
    game = hall.drawing(cards=2)
    hall.key(game, 5)
    before = AuditEvent.objects.count()
    with pytest.raises(ValidationError):
        draw_services.game_suspend(game=game, user=hall.caller, reason="too late")  # after the first ball
    assert AuditEvent.objects.count() == before


def test_a_rolled_back_action_leaves_no_event(hall: Draw, monkeypatch: pytest.MonkeyPatch) -> None:
    """The event is written in the action's transaction: when the action fails after it, both go."""
    game = hall.drawing(cards=4)
    Game.objects.filter(pk=game.pk).update(
        state="suspended", suspended_at=timezone.now() - timedelta(hours=1)
    )
    before = AuditEvent.objects.count()

    def fail(**kwargs: object) -> None:
        raise RuntimeError("the jackpot's row is locked away")

    monkeypatch.setattr(draw_services.jackpot_services, "jackpot_reverse", fail)
    with pytest.raises(RuntimeError):
        draw_services.game_annul(game=game, user=hall.caller, reason="power cut")

    assert AuditEvent.objects.count() == before
    assert Game.objects.get(pk=game.pk).state == "suspended"


def test_the_system_may_act_with_nobody_named(hall: Draw) -> None:
    event = audit_record(
        user=None, hall_id=hall.hall.pk, action=AuditAction.SESSION_CLOSED, session=hall.session
    )
    assert event.user_id is None


@pytest.mark.postgres
def test_postgres_refuses_changing_or_deleting_an_audit_event(hall: Draw) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the insert-only trigger exists on PostgreSQL only")
    event = audit_record(user=hall.caller, hall_id=hall.hall.pk, action=AuditAction.GAME_RESUMED)
    # As the tables' owner: the app's role is refused by its privileges before any trigger is
    # asked (tests/common/test_db_roles.py).
    with as_table_owner():
        with pytest.raises(IntegrityError), transaction.atomic():
            AuditEvent.objects.filter(pk=event.pk).update(detail="nothing happened")
        with pytest.raises(IntegrityError), transaction.atomic():
            AuditEvent.objects.filter(pk=event.pk).delete()
    assert AuditEvent.objects.get(pk=event.pk).detail == ""
