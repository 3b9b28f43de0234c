"""Recording notes in the acta from the screens (actas/notes/views.py, R61 j), l), m)): the caller's
console, the manager's game page, the session's notes page; who may, and refusals that record
nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from actas import services as acta_services
from actas.models import ActaNote
from actas.selectors import acta_get, acta_verify
from bingo.common.roles import Role
from bingo.models import Game
from tests.actas.notes_hall import NotesHall, as_user
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def hall() -> NotesHall:
    return NotesHall()


def console_url(game: Game) -> str:
    return reverse("draw:console", args=[game.pk])


def record(client: Client, hall: NotesHall, **fields: object) -> object:
    """Post the console's «record in the acta» form, as it comes from the console."""
    data = {"kind": "complaint", "text": "", "decision": "", "game": hall.game_drawing.pk}
    data.update({"next": console_url(hall.game_drawing), **fields})
    return client.post(reverse("actas:note_create", args=[hall.session.pk]), data)


def notes(hall: NotesHall) -> list[ActaNote]:
    acta = acta_get(session=hall.session)
    return list(acta.notes.all()) if acta is not None else []


def test_the_url_names_resolve_to_portuguese_paths() -> None:
    assert reverse("actas:session_notes", args=[3]) == "/acta/sessoes/3/notas/"
    assert reverse("actas:note_create", args=[3]) == "/acta/sessoes/3/notas/registar/"
    assert reverse("actas:decision_create", args=[3]) == "/acta/sessoes/3/notas/decisao/"
    assert reverse("actas:hall_list") == "/inspecao/"  # the portal stays where it was


def test_the_console_offers_the_form_with_its_game_chosen(hall: NotesHall) -> None:  # R61
    page = as_user(hall.caller, "pt").get(console_url(hall.game_drawing)).content.decode()

    assert 'id="acta-notes"' in page
    assert "Registar na acta" in page
    assert f'<option value="{hall.game_drawing.pk}" selected>' in page
    assert f'name="next" value="{console_url(hall.game_drawing)}"' in page
    # Kept out of the part the websocket reloads, and marked so a reload never wipes it.
    assert "data-keep-typed" in page
    live = as_user(hall.caller).get(reverse("draw:console_live", args=[hall.game_drawing.pk]))
    assert "acta-notes" not in live.content.decode()


def test_a_caller_records_a_complaint_and_the_decision_taken_on_the_spot(hall: NotesHall) -> None:  # R61 j)
    before = timezone.now()
    client = as_user(hall.caller)
    response = record(
        client,
        hall,
        text="Player at table 4 says ball 17 was called as 71.",
        decision="The caller repeated ball 17; the player agreed.",
    )

    assert response.status_code == 302
    assert response["Location"] == console_url(hall.game_drawing) + "#acta-notes"
    (note,) = notes(hall)
    assert (note.kind, note.game, note.recorded_by) == ("complaint", hall.game_drawing, hall.caller)
    assert note.text == "Player at table 4 says ball 17 was called as 71."
    assert note.decision == "The caller repeated ball 17; the player agreed."
    assert before <= note.recorded_at <= timezone.now()
    page = client.get(console_url(hall.game_drawing)).content.decode()
    assert "Recorded in the acta as note 1." in page
    assert "Player at table 4 says ball 17 was called as 71." in page
    assert hall.caller.get_full_name() in page
    assert "data-pending" not in page
    assert acta_verify(session=hall.session).intact


def test_a_complaint_without_decision_is_pending_until_one_is_recorded(hall: NotesHall) -> None:  # R61 j)
    client = as_user(hall.caller)
    record(client, hall, text="Card K-1 n.º 2 was not checked.")
    (complaint,) = notes(hall)

    page = client.get(console_url(hall.game_drawing)).content.decode()
    assert f'data-note="{complaint.position}" data-note-kind="complaint" data-pending' in page
    assert "1 complaint pending" in page
    assert f'data-decision-form="{complaint.position}"' in page

    response = client.post(
        reverse("actas:decision_create", args=[hall.session.pk]),
        {
            "refers_to": complaint.pk,
            "decision": "Checked after the game: no prize.",
            "next": console_url(hall.game_drawing),
        },
    )

    assert response.status_code == 302
    decision = notes(hall)[1]
    assert (decision.kind, decision.refers_to, decision.recorded_by) == ("decision", complaint, hall.caller)
    assert decision.decision == "Checked after the game: no prize."
    assert decision.game == hall.game_drawing
    page = client.get(console_url(hall.game_drawing)).content.decode()
    assert "The decision on complaint 1 is recorded in the acta." in page
    assert "data-pending" not in page
    assert "Decision on complaint 1" in page


def test_a_failure_and_an_occurrence_of_the_session(hall: NotesHall) -> None:  # R61 l), m)
    client = as_user(hall.caller)
    record(client, hall, kind="equipment_failure", text="Display 2 went dark.", decision="Replaced.", game="")
    record(client, hall, kind="occurrence", text="A player tried to sell cards at the door.", game="")

    failure, occurrence = notes(hall)
    assert (failure.kind, failure.game, failure.decision) == ("equipment_failure", None, "Replaced.")
    assert (occurrence.kind, occurrence.game, occurrence.recorded_by) == ("occurrence", None, hall.caller)
    assert not ActaNote.objects.filter(kind="complaint").exists()


def test_a_manager_records_from_the_games_page(hall: NotesHall) -> None:
    client = as_user(hall.manager)
    game_url = reverse("games:game_detail", args=[hall.game_drawing.pk])
    assert 'id="acta-notes"' in client.get(game_url).content.decode()

    response = record(client, hall, kind="occurrence", text="Smoking in the room.", next=game_url)

    assert response["Location"] == game_url + "#acta-notes"
    (note,) = notes(hall)
    assert note.recorded_by == hall.manager


def test_the_sessions_page_lists_the_notes_with_who_and_when(hall: NotesHall) -> None:
    acta_services.acta_note_record(
        session=hall.session, kind="occurrence", user=hall.manager, text="Fight at the bar."
    )
    page = as_user(hall.caller).get(reverse("actas:session_notes", args=[hall.session.pk])).content.decode()

    assert "Fight at the bar." in page
    assert hall.manager.get_full_name() in page
    assert "data-note-when" in page
    assert '<option value="" selected>' in page  # no game chosen: the session


# --- refusals: nothing recorded -----------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"text": ""},  # what happened?
        {"text": "   "},
        {"kind": "decision", "text": "x"},  # a decision decides a complaint: its own form
        {"kind": "cards_destroyed", "text": "x"},  # written by the system (R51)
        {"text": "x", "game": 999999},
    ],
)
def test_a_refused_note_shows_the_form_again_and_records_nothing(hall: NotesHall, fields: dict) -> None:
    response = record(as_user(hall.caller), hall, decision="Typed, kept.", **fields)

    assert response.status_code == 400
    page = response.content.decode()
    assert 'class="field-error"' in page or "alert-error" in page
    assert "Typed, kept." in page  # what was typed is still there
    assert f'href="{console_url(hall.game_drawing)}" data-back' in page
    assert notes(hall) == []


def test_a_game_of_another_session_is_refused(hall: NotesHall) -> None:
    other = NotesHall("Sala Mindelo")
    response = record(as_user(hall.caller), hall, text="x", game=other.game_drawing.pk)
    assert response.status_code == 400
    assert notes(hall) == notes(other) == []


def test_a_decision_needs_a_complaint_of_the_session_and_what_was_decided(hall: NotesHall) -> None:
    client = as_user(hall.caller)
    occurrence = acta_services.acta_note_record(
        session=hall.session, kind="occurrence", user=hall.caller, text="x"
    )
    complaint = acta_services.acta_note_record(
        session=hall.session, kind="complaint", user=hall.caller, text="y"
    )
    other = NotesHall("Sala Mindelo")
    foreign = acta_services.acta_note_record(
        session=other.session, kind="complaint", user=other.caller, text="z"
    )
    url = reverse("actas:decision_create", args=[hall.session.pk])

    for data in (
        {"decision": "no complaint named"},
        {"refers_to": occurrence.pk, "decision": "not a complaint"},
        {"refers_to": foreign.pk, "decision": "another hall's complaint"},
        {"refers_to": complaint.pk, "decision": ""},
    ):
        assert client.post(url, data).status_code == 400, data

    assert ActaNote.objects.filter(kind="decision").count() == 0


def test_another_halls_session_answers_404(hall: NotesHall) -> None:
    other = NotesHall("Sala Mindelo")
    client = as_user(hall.caller)

    assert client.get(reverse("actas:session_notes", args=[other.session.pk])).status_code == 404
    assert (
        client.post(
            reverse("actas:note_create", args=[other.session.pk]), {"kind": "occurrence", "text": "x"}
        ).status_code
        == 404
    )
    assert (
        client.post(reverse("actas:decision_create", args=[other.session.pk]), {"decision": "x"}).status_code
        == 404
    )
    assert notes(other) == []


@pytest.mark.parametrize("role", [Role.CASHIER, Role.INSPECTOR])
def test_a_cashier_or_an_inspector_gets_403(hall: NotesHall, role: Role) -> None:
    client = as_user(hall.staff(role))

    assert client.get(reverse("actas:session_notes", args=[hall.session.pk])).status_code == 403
    assert record(client, hall, text="x").status_code == 403
    assert (
        client.post(reverse("actas:decision_create", args=[hall.session.pk]), {"decision": "x"}).status_code
        == 403
    )
    assert notes(hall) == []


def test_a_caller_of_the_group_but_not_of_the_hall_is_refused(hall: NotesHall) -> None:
    stranger = UserFactory(username="locutor-sem-sala", roles=[Role.CALLER], password="!")
    assert record(as_user(stranger), hall, text="x").status_code == 404
    assert notes(hall) == []


def test_a_next_off_the_site_goes_to_the_notes_page(hall: NotesHall) -> None:
    response = record(as_user(hall.caller), hall, text="x", next="https://example.com/")
    assert response["Location"] == reverse("actas:session_notes", args=[hall.session.pk]) + "#acta-notes"


def test_the_console_is_portuguese(hall: NotesHall) -> None:
    acta_services.acta_note_record(session=hall.session, kind="complaint", user=hall.caller, text="x")
    page = as_user(hall.caller, "pt").get(console_url(hall.game_drawing)).content.decode()
    for words in (
        "Reclamação de jogador",
        "Avaria de equipamento",
        "Ocorrência que possa constituir infração",
        "O que aconteceu",
        "Decisão ou medida tomada",
        "A sessão",
        "Pendente",
        "Registar a decisão",
    ):
        assert words in page, words


def test_a_note_recorded_yesterday_shows_on_the_halls_clock(hall: NotesHall) -> None:
    note = acta_services.acta_note_record(session=hall.session, kind="occurrence", user=hall.caller, text="x")
    hall.hall.time_zone = "Atlantic/Cape_Verde"
    hall.hall.save(update_fields=["time_zone"])
    page = as_user(hall.caller).get(reverse("actas:session_notes", args=[hall.session.pk])).content.decode()
    local = timezone.localtime(
        note.recorded_at, timezone=__import__("zoneinfo").ZoneInfo("Atlantic/Cape_Verde")
    )
    assert local.strftime("%d/%m/%Y %H:%M") in page
    assert local.utcoffset() == timedelta(hours=-1)
