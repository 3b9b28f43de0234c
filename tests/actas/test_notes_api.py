"""The acta's notes over the API (actas/notes/api.py, R61 j), l), m)): ``/api/sessions/{id}/acta/notes/``
read by the hall's inspectors and managers, written by its callers and managers; refusals record
nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from actas import services as acta_services
from actas.models import ActaNote
from actas.selectors import acta_get, acta_verify
from bingo.common.roles import Role
from tests.actas.notes_hall import NotesHall, as_user
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def hall() -> NotesHall:
    return NotesHall()


def url(hall: NotesHall) -> str:
    return reverse("api:session-acta-notes", args=[hall.session.pk])


def post(client: Client, hall: NotesHall, body: dict[str, Any]) -> Any:
    return client.post(url(hall), body, content_type="application/json")


def test_the_path() -> None:
    assert reverse("api:session-acta-notes", args=[4]) == "/api/sessions/4/acta/notes/"


def test_a_round_trip_complaint_then_decision(hall: NotesHall) -> None:  # R61 j)
    caller, manager = as_user(hall.caller), as_user(hall.manager)
    before = timezone.now()

    created = post(
        caller, hall, {"kind": "complaint", "text": "Ball 17 called as 71.", "game": hall.game_drawing.pk}
    )

    assert created.status_code == 201, created.content
    complaint = created.json()
    assert complaint["kind"] == "complaint"
    assert (complaint["position"], complaint["game"], complaint["game_number"]) == (
        1,
        hall.game_drawing.pk,
        hall.game_drawing.number,
    )
    assert (complaint["recorded_by"], complaint["pending"], complaint["decision"]) == (
        hall.caller.username,
        True,
        "",
    )

    decided = post(
        manager, hall, {"kind": "decision", "refers_to": complaint["id"], "decision": "Ball 17 repeated."}
    )

    assert decided.status_code == 201, decided.content
    decision = decided.json()
    assert (decision["kind"], decision["refers_to"], decision["refers_to_position"]) == (
        "decision",
        complaint["id"],
        1,
    )
    assert (decision["recorded_by"], decision["pending"]) == (hall.manager.username, False)

    listed = manager.get(url(hall)).json()
    assert listed["count"] == 2
    assert [(n["position"], n["kind"], n["pending"]) for n in listed["results"]] == [
        (1, "complaint", False),
        (2, "decision", False),
    ]
    notes = list(acta_get(session=hall.session).notes.all())
    assert [(n.kind, n.recorded_by) for n in notes] == [
        ("complaint", hall.caller),
        ("decision", hall.manager),
    ]
    assert all(before <= n.recorded_at <= timezone.now() for n in notes)
    assert acta_verify(session=hall.session).intact


def test_failures_and_occurrences_of_the_session(hall: NotesHall) -> None:  # R61 l), m)
    client = as_user(hall.caller)
    failure = post(
        client, hall, {"kind": "equipment_failure", "text": "Blower stopped.", "decision": "Manual draw."}
    )
    occurrence = post(client, hall, {"kind": "occurrence", "text": "Minor at the desk.", "game": None})

    assert (failure.status_code, occurrence.status_code) == (201, 201)
    assert failure.json()["game"] is None
    assert failure.json()["decision"] == "Manual draw."
    assert [n.kind for n in acta_get(session=hall.session).notes.all()] == ["equipment_failure", "occurrence"]


def test_an_inspector_reads_and_sees_the_pending_complaints(hall: NotesHall) -> None:
    acta_services.acta_note_record(session=hall.session, kind="complaint", user=hall.caller, text="x")
    body = as_user(hall.inspector).get(url(hall)).json()
    assert [(n["kind"], n["pending"], n["recorded_by"]) for n in body["results"]] == [
        ("complaint", True, hall.caller.username)
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "complaint", "text": ""}, "non_field_errors"),
        ({"kind": "occurrence", "text": "   "}, "non_field_errors"),
        ({"kind": "decision", "decision": "no complaint named"}, "non_field_errors"),
        ({"kind": "cards_destroyed", "text": "x"}, "kind"),  # the system writes these (R51)
        ({"kind": "complaint", "text": "x", "game": 999999}, "game"),
        ({"kind": "decision", "decision": "x", "refers_to": 999999}, "refers_to"),
        ({"text": "x"}, "kind"),
    ],
)
def test_a_refused_note_records_nothing(hall: NotesHall, body: dict[str, Any], field: str) -> None:
    response = post(as_user(hall.caller), hall, body)

    assert response.status_code == 400
    assert field in response.json()
    assert acta_get(session=hall.session) is None or not acta_get(session=hall.session).notes.exists()


def test_a_game_or_complaint_of_another_session_is_unknown(hall: NotesHall) -> None:
    other = NotesHall("Sala Mindelo")
    foreign = acta_services.acta_note_record(
        session=other.session, kind="complaint", user=other.caller, text="z"
    )
    client = as_user(hall.caller)

    assert (
        post(client, hall, {"kind": "complaint", "text": "x", "game": other.game_drawing.pk}).status_code
        == 400
    )
    assert (
        post(client, hall, {"kind": "decision", "decision": "x", "refers_to": foreign.pk}).status_code == 400
    )
    assert ActaNote.objects.count() == 1


def test_another_halls_session_answers_404(hall: NotesHall) -> None:
    other = NotesHall("Sala Mindelo")
    assert as_user(hall.manager).get(url(other)).status_code == 404
    assert post(as_user(hall.caller), other, {"kind": "occurrence", "text": "x"}).status_code == 404
    assert not ActaNote.objects.exists()


@pytest.mark.parametrize(
    ("role", "reads", "writes"),
    [
        (Role.MANAGER, 200, 201),
        (Role.CALLER, 403, 201),
        (Role.INSPECTOR, 200, 403),
        (Role.CASHIER, 403, 403),
    ],
)
def test_who_reads_and_who_writes(hall: NotesHall, role: Role, reads: int, writes: int) -> None:
    client = as_user(hall.staff(role))

    assert client.get(url(hall)).status_code == reads
    # A role that may not write is refused before its body is read: garbage gets 403 too.
    if writes == 403:
        assert post(client, hall, {"kind": 5, "game": "x"}).status_code == 403
    assert post(client, hall, {"kind": "occurrence", "text": "x"}).status_code == writes
    assert ActaNote.objects.count() == (1 if writes == 201 else 0)


def test_a_player_and_anonymous_are_refused(hall: NotesHall) -> None:
    player = as_user(UserFactory(username="jogador", roles=[Role.PLAYER], password="!"))
    assert player.get(url(hall)).status_code == 404  # works in no hall: the session is unknown
    assert post(player, hall, {"kind": "occurrence", "text": "x"}).status_code == 403
    assert Client().get(url(hall)).status_code == 403
    assert not ActaNote.objects.exists()
