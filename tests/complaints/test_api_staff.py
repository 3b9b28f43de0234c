"""The managers' complaints API (R61 j)): ``GET /api/complaints/`` lists the complaints of the
halls one manages, ``POST /api/complaints/<id>/decision/`` decides one, once, into the session's
acta as a decision referring to the complaint; the player then reads it through their own API."""

from __future__ import annotations

import pytest
from django.test import Client

from actas.models import ActaNote
from bingo.common.roles import Role, user_roles_set
from bingo.complaints import services
from bingo.models import Game, Player, PlayerComplaint
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, next_game, online_buy, play_out
from tests.clients import logged_in
from tests.complaints.conftest import Played
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LIST = "/api/complaints/"


def decision_url(complaint: PlayerComplaint) -> str:
    return f"/api/complaints/{complaint.pk}/decision/"


def test_r61j_a_manager_decides_through_the_api_into_the_acta_and_the_player_reads_it(played: Played) -> None:
    complaint = services.complaint_file(player=played.ana, game=played.game, text="Não vi o prémio.")
    manager = logged_in(played.lobby.manager)
    name = played.lobby.manager.get_full_name() or played.lobby.manager.get_username()

    listed = manager.get(LIST)
    assert listed.status_code == 200
    [row] = listed.json()
    assert row["id"] == complaint.pk
    assert row["text"] == "Não vi o prémio."
    assert row["player"] == played.ana.pk
    assert row["game"] == played.game.pk
    assert row["decided"] is False
    assert row["complaint_note"] == complaint.complaint_note_id
    assert row["decision_note"] is None
    assert [r["id"] for r in manager.get(LIST, {"open": "1"}).json()] == [complaint.pk]
    assert manager.get(LIST, {"open": "0"}).json() == []

    # A blank decision: 400, nothing recorded.
    blank = manager.post(decision_url(complaint), {"decision": "   "}, content_type="application/json")
    assert blank.status_code == 400
    assert "decision" in blank.json()
    assert manager.post(decision_url(complaint), {}, content_type="application/json").status_code == 400
    complaint.refresh_from_db()
    assert not complaint.decided
    assert not ActaNote.objects.filter(kind=ActaNote.Kind.DECISION).exists()

    done = manager.post(
        decision_url(complaint), {"decision": "Prémio creditado às 21:04."}, content_type="application/json"
    )
    assert done.status_code == 201
    body = done.json()
    assert body["decided"] is True
    assert body["decision"] == "Prémio creditado às 21:04."
    assert body["decided_by"] == name

    # In the acta: a DECISION note on the game, referring to the complaint's note (R61 j)).
    note = ActaNote.objects.get(kind=ActaNote.Kind.DECISION)
    assert body["decision_note"] == note.pk
    assert note.refers_to_id == complaint.complaint_note_id
    assert note.game_id == played.game.pk
    assert note.acta.session_id == played.game.session_id
    assert note.decision == "Prémio creditado às 21:04."

    # Decided once: a second decision is 409 and changes nothing.
    again = manager.post(decision_url(complaint), {"decision": "Outra"}, content_type="application/json")
    assert again.status_code == 409
    assert ActaNote.objects.filter(kind=ActaNote.Kind.DECISION).count() == 1
    complaint.refresh_from_db()
    assert complaint.decision == "Prémio creditado às 21:04."

    assert manager.get(LIST, {"open": "1"}).json() == []
    assert [r["id"] for r in manager.get(LIST, {"open": "0"}).json()] == [complaint.pk]
    assert manager.get(LIST, {"open": "maybe"}).status_code == 400

    # The player reads the answer in their own API.
    [mine] = logged_in(played.ana.user).get("/api/players/me/complaints/").json()
    assert mine["decided"] is True
    assert mine["decision"] == "Prémio creditado às 21:04."
    assert mine["decided_by"] == name


def test_r61j_only_managers_reach_the_complaints_api(played: Played) -> None:
    complaint = services.complaint_file(player=played.ana, game=played.game, text="Falha")
    inspector = UserFactory(username="inspetor", roles=[Role.INSPECTOR])
    for user in (played.lobby.cashier, played.caller, inspector, played.ana.user):
        client = logged_in(user)
        assert client.get(LIST).status_code == 403
        refused = client.post(decision_url(complaint), {"decision": "x"}, content_type="application/json")
        assert refused.status_code == 403
    anonymous = Client()
    assert anonymous.get(LIST).status_code in (401, 403)
    refused = anonymous.post(decision_url(complaint), {"decision": "x"}, content_type="application/json")
    assert refused.status_code in (401, 403)
    complaint.refresh_from_db()
    assert not complaint.decided
    assert not ActaNote.objects.filter(kind=ActaNote.Kind.DECISION).exists()


def test_r61j_a_manager_of_another_hall_neither_sees_nor_decides(
    played: Played, clock: Clock, tasks: Tasks
) -> None:
    complaint = services.complaint_file(player=played.ana, game=played.game, text="Da sala online")
    other = OnlineHall(name="Outra sala")
    other.series(1, price="100.00")
    user_roles_set(user=other.manager, roles=[Role.MANAGER])
    ze = other.player("ze")
    user_roles_set(user=ze.user, roles=[Role.PLAYER])
    their_game = play_out(clock, tasks, _bought(other, clock, ze))
    theirs = services.complaint_file(player=ze, game=their_game, text="Da outra sala")

    stranger = logged_in(other.manager)
    assert [r["id"] for r in stranger.get(LIST).json()] == [theirs.pk]
    refused = stranger.post(
        decision_url(complaint), {"decision": "Indeferida"}, content_type="application/json"
    )
    assert refused.status_code == 404
    assert [r["id"] for r in logged_in(played.lobby.manager).get(LIST).json()] == [complaint.pk]
    missing = logged_in(played.lobby.manager).post(
        "/api/complaints/999999/decision/", {"decision": "x"}, content_type="application/json"
    )
    assert missing.status_code == 404
    complaint.refresh_from_db()
    assert not complaint.decided


def _bought(lobby: OnlineHall, clock: Clock, player: Player) -> Game:
    game = next_game(lobby, clock)
    online_buy(game, player, 1)
    return game
