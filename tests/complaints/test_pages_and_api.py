"""The complaint's pages and API (R61 j)): the player files from a game's row of their history and
reads the answer there; the hall's managers list and decide at /reclamacoes/; other roles are
refused; a player never reaches another's complaints."""

from __future__ import annotations

import pytest
from django.urls import reverse

from actas.models import ActaNote
from bingo.complaints import services
from bingo.models import PlayerComplaint
from tests.clients import logged_in
from tests.complaints.conftest import Played

pytestmark = pytest.mark.django_db


def test_the_player_complains_from_the_history_and_reads_the_answer_there(played: Played) -> None:
    ana = logged_in(played.ana.user)
    history = ana.get(reverse("players:history")).content.decode()
    file_url = reverse("complaints:file", args=[played.game.pk])
    assert file_url in history
    assert "Reclamar" in history
    assert ana.get(file_url).status_code == 200

    refused = ana.post(file_url, {"text": ""})
    assert refused.status_code == 400
    assert PlayerComplaint.objects.count() == 0

    sent = ana.post(file_url, {"text": "O bingo saiu mas não vi o prémio."}, follow=True)
    assert sent.redirect_chain[-1][0] == reverse("players:history")
    html = sent.content.decode()
    assert "O bingo saiu mas não vi o prémio." in html
    assert "À espera da decisão dos gerentes." in html
    complaint = PlayerComplaint.objects.get()
    assert complaint.complaint_note.kind == ActaNote.Kind.COMPLAINT

    manager = logged_in(played.lobby.manager)
    listing = manager.get(reverse("complaints:staff_list"))
    assert listing.status_code == 200
    assert "O bingo saiu mas não vi o prémio." in listing.content.decode()
    decide_url = reverse("complaints:staff_decide", args=[complaint.pk])
    assert decide_url in listing.content.decode()
    assert manager.post(decide_url, {"decision": ""}).status_code == 400
    done = manager.post(decide_url, {"decision": "Prémio de bingo creditado às 21:04."})
    assert done.status_code == 302
    complaint.refresh_from_db()
    assert complaint.decided
    assert complaint.decision_note is not None
    # Once decided, a second POST changes nothing.
    assert manager.post(decide_url, {"decision": "Outra"}).status_code == 409
    assert ActaNote.objects.filter(kind=ActaNote.Kind.DECISION).count() == 1

    answered = ana.get(reverse("players:history")).content.decode()
    assert "Prémio de bingo creditado às 21:04." in answered
    assert 'data-decided="yes"' in answered


def test_a_player_cannot_complain_about_or_read_another_players_game(played: Played) -> None:
    services.complaint_file(player=played.ana, game=played.game, text="Só da Ana")
    rui = logged_in(played.rui.user)
    url = reverse("complaints:file", args=[played.game.pk])
    assert rui.get(url).status_code == 404
    assert rui.post(url, {"text": "Quero reclamar do jogo da Ana"}).status_code == 404
    assert "Só da Ana" not in rui.get(reverse("players:history")).content.decode()
    assert rui.get("/api/players/me/complaints/").json() == []
    assert PlayerComplaint.objects.count() == 1


def test_only_managers_reach_the_complaints_pages(played: Played) -> None:
    complaint = services.complaint_file(player=played.ana, game=played.game, text="Falha")
    for user in (played.lobby.cashier, played.caller, played.ana.user):
        client = logged_in(user)
        assert client.get(reverse("complaints:staff_list")).status_code == 403
        assert (
            client.post(
                reverse("complaints:staff_decide", args=[complaint.pk]), {"decision": "x"}
            ).status_code
            == 403
        )
    complaint.refresh_from_db()
    assert not complaint.decided


def test_the_managers_dashboard_links_the_complaints(played: Played) -> None:
    html = logged_in(played.lobby.manager).get(reverse("dashboard-manager")).content.decode()
    assert reverse("complaints:staff_list") in html


def test_api_files_and_lists_the_players_complaints_with_answers(played: Played) -> None:
    ana = logged_in(played.ana.user)
    created = ana.post(
        "/api/players/me/complaints/",
        {"game": played.game.pk, "text": "Cartão não marcado"},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["game"], body["text"], body["decided"], body["decision"]) == (
        played.game.pk,
        "Cartão não marcado",
        False,
        "",
    )
    complaint = PlayerComplaint.objects.get(pk=body["id"])
    services.complaint_decide(
        complaint=complaint, user=played.lobby.manager, decision="Marcado: ver bola 12."
    )
    [listed] = ana.get("/api/players/me/complaints/").json()
    assert (listed["decided"], listed["decision"]) == (True, "Marcado: ver bola 12.")
    assert listed["decided_by"]

    for bad in ({"game": played.game.pk, "text": ""}, {"game": 999999, "text": "x"}, {"text": "x"}):
        assert (
            ana.post("/api/players/me/complaints/", bad, content_type="application/json").status_code == 400
        )
    rui = logged_in(played.rui.user)
    not_his = rui.post(
        "/api/players/me/complaints/", {"game": played.game.pk, "text": "x"}, content_type="application/json"
    )
    assert not_his.status_code == 400
    assert "game" in not_his.json()
    cashier = logged_in(played.lobby.cashier)
    assert cashier.get("/api/players/me/complaints/").status_code == 403
    assert PlayerComplaint.objects.count() == 1
