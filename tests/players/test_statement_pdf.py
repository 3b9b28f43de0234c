"""The player's statement as a PDF (R100, PT-806/65): the same games and totals as «O meu
histórico», filtered the same way, read back with a PDF text extractor. Built on the history's
won, lost and annulled games (tests/players/test_history.py's ``played``: real purchases, draws,
prizes and an annulment with refund)."""

from __future__ import annotations

import io
import re

import pytest
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader

from bingo.common.money import money_display
from bingo.players.selectors import player_history
from tests.clients import logged_in
from tests.players.test_history import Played, _day, played  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db


def _text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def _games_listed(text: str) -> list[int]:
    """The game numbers of the statement's game lines, in order ("… · jogada N (90 bolas)")."""
    return [int(n) for n in re.findall(r"jogada (\d+) \(", text)]


def test_r100_the_pdf_statement_has_the_totals_and_every_game(played: Played) -> None:  # noqa: F811
    response = logged_in(played.ana.user).get(reverse("players:history_pdf"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert "historico.pdf" in response["Content-Disposition"]
    text = _text(response.content)
    history = player_history(player=played.ana)
    currency = played.lobby.hall.currency
    assert "Extrato das jogadas online" in text
    assert "ana" in text
    for label, amount in (
        ("Apostado", history.staked),
        ("Ganho", history.won),
        ("Reembolsado", history.refunded),
        ("Saldo", history.net),
    ):
        assert money_display(amount, currency) in text, label
    assert _games_listed(text) == [played.annulled.number, played.lost.number, played.won.number]
    annulled, lost, won = history.games
    staked = money_display(annulled.staked, currency)
    assert f"Apostado {staked} · ganho 0 {currency} · reembolsado 300 {currency}" in text
    assert f"saldo {money_display(lost.net, currency)} · Perdido" in text
    assert f"ganho {money_display(won.won, currency)}" in text
    assert "Página 1 de 1" in text
    assert "hora de Cabo Verde" in text  # the zone by its name (issue 25)


def test_the_pdf_takes_the_same_date_filter(played: Played) -> None:  # noqa: F811
    day = _day(played, played.lost)
    client = logged_in(played.ana.user)
    response = client.get(reverse("players:history_pdf"), {"date_from": day, "date_to": day})
    text = _text(response.content)
    assert _games_listed(text) == [played.lost.number]
    assert f"-100 {played.lobby.hall.currency}" in text
    assert client.get(reverse("players:history_pdf"), {"date_from": "2026-13-40"}).status_code == 400


def test_the_history_page_links_the_pdf_with_its_filter(played: Played) -> None:  # noqa: F811
    day = _day(played, played.won)
    html = logged_in(played.ana.user).get(reverse("players:history"), {"date_from": day}).content.decode()
    assert f"{reverse('players:history_pdf')}?date_from={day}" in html


def test_the_api_gives_the_same_pdf_and_only_the_players_own(played: Played) -> None:  # noqa: F811
    api = logged_in(played.ana.user).get("/api/players/me/history/pdf/", HTTP_ACCEPT="application/pdf")
    assert api.status_code == 200
    assert api["Content-Type"] == "application/pdf"
    assert _games_listed(_text(api.content)) == [
        played.annulled.number,
        played.lost.number,
        played.won.number,
    ]
    day = _day(played, played.won)
    only = logged_in(played.ana.user).get("/api/players/me/history/pdf/", {"from": day, "to": day})
    assert _games_listed(_text(only.content)) == [played.won.number]
    rui = _text(logged_in(played.rui.user).get(reverse("players:history_pdf")).content)
    assert _games_listed(rui) == [played.lost.number]
    staff = Client()
    staff.force_login(played.lobby.cashier)
    assert staff.get("/api/players/me/history/pdf/").status_code == 403
    assert staff.get(reverse("players:history_pdf")).status_code in (302, 403)
