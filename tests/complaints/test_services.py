"""Players' complaints through the real services (R61 j), issue 13 point 6): filed about an online
game the player bought cards in, written in the session's acta at once as a complaint (recorded by
the online room's caller, the system, the player named); decided by a manager of the hall, the
decision a note of its own referring to the complaint; nothing else accepted."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from actas.models import ActaNote
from actas.selectors import acta_document, acta_verify
from bingo.autodraw.services import SYSTEM_USERNAME
from bingo.complaints import selectors, services
from bingo.games import services as game_services
from bingo.models import COMPLAINT_MAX_LENGTH, PlayerComplaint
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, next_game, online_buy, play_out
from tests.complaints.conftest import Played

pytestmark = pytest.mark.django_db


def test_r61j_a_filed_complaint_is_in_the_sessions_acta_at_once(played: Played) -> None:
    complaint = services.complaint_file(
        player=played.ana, game=played.game, text="  A linha do cartão 2 não foi paga.  "
    )
    assert complaint.text == "A linha do cartão 2 não foi paga."
    note = complaint.complaint_note
    assert note.kind == ActaNote.Kind.COMPLAINT
    assert note.game_id == played.game.pk
    assert note.acta.session_id == played.game.session_id
    assert note.recorded_by is not None
    assert note.recorded_by.get_username() == SYSTEM_USERNAME
    assert note.text == "Jogador online ana: A linha do cartão 2 não foi paga."
    assert not complaint.decided
    document = acta_document(session=played.game.session)
    [listed] = [n for n in document["notes"] if n["kind"] == "complaint"]
    assert listed["game"] == played.game.number
    assert listed["decisions"] == []
    assert acta_verify(session=played.game.session).problems == ()


def test_r61j_a_managers_decision_is_a_note_referring_to_the_complaint(played: Played) -> None:
    complaint = services.complaint_file(player=played.ana, game=played.game, text="Bola 7 repetida?")
    decided = services.complaint_decide(
        complaint=complaint, user=played.lobby.manager, decision="Verificado: não houve repetição."
    )
    assert decided.decided
    assert decided.decided_by == played.lobby.manager
    assert decided.decision_note is not None
    assert decided.decision_note.kind == ActaNote.Kind.DECISION
    assert decided.decision_note.refers_to_id == complaint.complaint_note_id
    assert decided.decision_note.recorded_by == played.lobby.manager
    [listed] = [n for n in acta_document(session=played.game.session)["notes"] if n["kind"] == "complaint"]
    assert [d["decision"] for d in listed["decisions"]] == ["Verificado: não houve repetição."]
    assert acta_verify(session=played.game.session).problems == ()
    # Decided once: a second decision is refused and nothing more is written.
    notes = ActaNote.objects.count()
    with pytest.raises(ValidationError):
        services.complaint_decide(complaint=complaint, user=played.lobby.manager, decision="Outra")
    assert ActaNote.objects.count() == notes


@pytest.mark.parametrize("text", ["", "   ", "x" * (COMPLAINT_MAX_LENGTH + 1)])
def test_a_complaint_needs_its_text_within_the_limit(played: Played, text: str) -> None:
    with pytest.raises(ValidationError) as refused:
        services.complaint_file(player=played.ana, game=played.game, text=text)
    assert "text" in refused.value.message_dict
    assert PlayerComplaint.objects.count() == 0
    assert not ActaNote.objects.filter(kind=ActaNote.Kind.COMPLAINT).exists()


def test_only_about_an_online_game_the_player_bought_cards_in(played: Played, clock: Clock) -> None:
    with pytest.raises(ValidationError):
        services.complaint_file(player=played.rui, game=played.game, text="Não comprei mas reclamo")
    other = OnlineHall(name="Outro operador")
    stranger = other.player("zeca")
    with pytest.raises(ValidationError):
        services.complaint_file(player=stranger, game=played.game, text="Jogo de outro operador")
    assert PlayerComplaint.objects.count() == 0
    assert not ActaNote.objects.filter(kind=ActaNote.Kind.COMPLAINT).exists()


def test_only_a_manager_of_the_hall_decides(played: Played) -> None:
    complaint = services.complaint_file(player=played.ana, game=played.game, text="Prémio em falta")
    other = OnlineHall(name="Outra sala")
    for user in (played.lobby.cashier, played.caller, other.manager, played.ana.user):
        with pytest.raises(ValidationError):
            services.complaint_decide(complaint=complaint, user=user, decision="Indeferida")
    with pytest.raises(ValidationError) as empty:
        services.complaint_decide(complaint=complaint, user=played.lobby.manager, decision="  ")
    assert "decision" in empty.value.message_dict
    complaint.refresh_from_db()
    assert not complaint.decided
    assert not ActaNote.objects.filter(kind=ActaNote.Kind.DECISION).exists()


def test_r61j_a_complaint_about_a_closed_session_goes_into_its_acta_after_the_closing_note(
    played: Played, clock: Clock, tasks: Tasks
) -> None:
    """A continuous room's day closes its session and acta (R61 h)); a complaint filed later about
    a game of that day is still written in that session's acta, after the closing note, and its
    decision too."""
    session = played.game.session
    game_services.session_close(session=session, user=played.lobby.manager)
    session.refresh_from_db()
    assert session.ended_at is not None
    closing = ActaNote.objects.get(acta__session=session, kind=ActaNote.Kind.SESSION_CLOSED)
    complaint = services.complaint_file(player=played.ana, game=played.game, text="Reclamo no dia seguinte")
    assert complaint.complaint_note.acta.session_id == session.pk
    assert complaint.complaint_note.position > closing.position
    decided = services.complaint_decide(complaint=complaint, user=played.lobby.manager, decision="Indeferida")
    assert decided.decision_note is not None
    assert decided.decision_note.acta.session_id == session.pk
    [listed] = [n for n in acta_document(session=session)["notes"] if n["kind"] == "complaint"]
    assert listed["decisions"][0]["decision"] == "Indeferida"
    assert acta_verify(session=session).problems == ()


def test_each_player_sees_only_their_complaints_and_managers_only_their_halls(
    played: Played, clock: Clock, tasks: Tasks
) -> None:
    rui_game = next_game(played.lobby, clock)
    online_buy(rui_game, played.rui, 1)
    rui_game = play_out(clock, tasks, rui_game)
    mine = services.complaint_file(player=played.ana, game=played.game, text="Da Ana")
    theirs = services.complaint_file(player=played.rui, game=rui_game, text="Do Rui")
    assert list(selectors.complaint_list_for_player(player=played.ana)) == [mine]
    assert list(selectors.complaint_list_for_player(player=played.rui)) == [theirs]
    assert set(selectors.complaint_list_for_staff(user=played.lobby.manager)) == {mine, theirs}
    assert list(selectors.complaint_list_for_staff(user=OnlineHall(name="Outra").manager)) == []
    assert list(selectors.complaint_list_for_staff(user=played.lobby.cashier)) == []
