"""Closing a session closes its acta (R61 h)): the end, the ball-set checks (R23) and the
replacements (R61 k) are chained as its last note, so they cannot change unseen afterwards."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from actas.models import ActaNote
from actas.selectors import acta_document, acta_verify
from bingo.ballsets import services as ballset_services
from bingo.games import services
from bingo.models import Session
from tests.actas.test_selectors import tampering
from tests.actas.test_services import ActaHall

pytestmark = pytest.mark.django_db


def closed(hall: ActaHall) -> ActaNote:
    hall.finished(cards=4)
    ballset_services.ball_replace(
        ball_set=hall.ball_set, ball_number=9, reason="lascada", session=hall.session, user=hall.caller
    )
    # R23: every ball through the mechanism again at the session's end.
    ballset_services.ball_set_check_record(
        ball_set=hall.ball_set, session=hall.session, phase="end", faulty_balls=[30], user=hall.caller
    )
    services.session_close(session=hall.session, user=hall.caller)
    return ActaNote.objects.get(acta__session=hall.session, kind=ActaNote.Kind.SESSION_CLOSED)


def test_closing_a_session_records_its_end_and_its_ball_sets_in_the_acta() -> None:
    hall = ActaHall()
    note = closed(hall)
    closing = json.loads(note.content)["closing"]
    document = acta_document(session=hall.session)

    assert note.recorded_by == hall.caller
    assert closing["end"] == document["session"]["end"]
    assert closing["end"] is not None
    assert [r["ball_number"] for r in closing["ball_replacements"]] == [9]
    assert [(c["phase"], c["faulty_balls"]) for c in closing["ball_set_checks"]] == [
        ("start", []),
        ("end", [30]),
    ]
    assert document["ball_replacements"] == closing["ball_replacements"]
    assert note.kind not in {n["kind"] for n in document["notes"]}  # shown as the end, not as a note
    assert acta_verify(session=hall.session).intact


def test_closing_twice_records_once() -> None:
    hall = ActaHall()
    closed(hall)
    services.session_close(session=hall.session, user=hall.caller)
    assert ActaNote.objects.filter(acta__session=hall.session, kind=ActaNote.Kind.SESSION_CLOSED).count() == 1


def test_the_acta_keeps_the_end_it_recorded_when_the_session_row_is_changed() -> None:
    hall = ActaHall()
    note = closed(hall)
    recorded_end = json.loads(note.content)["closing"]["end"]
    Session.objects.filter(pk=hall.session.pk).update(ended_at=hall.session.starts_at)

    assert acta_document(session=hall.session)["session"]["end"] == recorded_end


def test_a_changed_closing_is_named() -> None:
    hall = ActaHall()
    note = closed(hall)
    with tampering(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE actas_actanote SET content = REPLACE(content, '\"ball_number\":9', '\"ball_number\":8') "
            "WHERE id = %s",
            [note.pk],
        )
    result = acta_verify(session=hall.session)
    assert result.first is not None
    assert (result.first.record, result.first.position, result.first.fault) == (
        "note",
        note.position,
        "changed",
    )
