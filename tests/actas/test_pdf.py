"""The acta as a PDF (actas.pdf, R58-R61), read back with a PDF text extractor: every R61 item is
there, in Portuguese, with "página N de M" and the seal on every page; and ``acta_pdf`` writes it."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import translation
from pypdf import PdfReader

from actas import services as acta_services
from actas.models import ActaReceipt
from actas.pdf import render_acta_pdf
from actas.selectors import acta_document, acta_verify
from bingo.ballsets import services as ballset_services
from bingo.common.money import money_display
from bingo.games import services
from bingo.models import Game
from tests.actas.test_services import ActaHall

pytestmark = pytest.mark.django_db


class Session(ActaHall):
    """A session with a game won (line and bingo, taxed), a game annulled, a complaint decided
    later, a failure, an occurrence and a replaced ball; then closed without its end-of-session
    ball-set check, which could not be made (R23): an occurrence too."""

    def __init__(self) -> None:
        super().__init__(tax_rate=Decimal("20.00"), tax_threshold=Decimal("10.00"))
        self.manager_user = self.manager()
        self.won = self.finished(cards=12)
        self.annulled_game = self.annulled()
        complaint = acta_services.acta_note_record(
            session=self.session,
            kind="complaint",
            user=self.caller,
            text="Jogador do cartão 7 diz que a bola 44 não foi anunciada",
            game=self.won,
        )
        acta_services.acta_note_record(
            session=self.session,
            kind="decision",
            user=self.manager_user,
            decision="Indeferida: a bola 44 consta do registo e do ecrã",
            refers_to=complaint,
        )
        acta_services.acta_note_record(
            session=self.session,
            kind="equipment_failure",
            user=self.caller,
            text="O ecrã da sala 1 apagou-se durante dois minutos",
            decision="Reiniciado",
        )
        acta_services.acta_note_record(
            session=self.session,
            kind="occurrence",
            user=self.manager_user,
            text="Cartão apresentado com sinais de rasura",
        )
        ballset_services.ball_replace(
            ball_set=self.ball_set,
            ball_number=17,
            reason="bola rachada",
            session=self.session,
            user=self.caller,
        )
        series = self.won.on_sale.get(position=1).series.order_number
        acta_services.game_cards_destroy_record(
            game=self.won, user=self.caller, evidence=[(series, 11)], reason="Cartão com sinais de rasura"
        )
        services.session_close(
            session=self.session,
            user=self.manager_user,
            missing_check_reason="O motor do mecanismo de extração queimou-se no fim da última jogada",
        )


def pdf_text(session: Session) -> tuple[str, list[str]]:
    out = io.BytesIO()
    with translation.override("pt"):
        pages = render_acta_pdf(acta_document(session=session.session), out)
    reader = PdfReader(io.BytesIO(out.getvalue()))
    texts = [page.extract_text() for page in reader.pages]
    assert len(texts) == pages
    return "\n".join(texts), texts


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_every_r61_item_is_in_the_pdf_in_portuguese(db: None) -> None:
    hall = Session()
    document = acta_document(session=hall.session)
    text, _pages = pdf_text(hall)
    flat = squash(text)
    won = next(e["game"] for e in document["entries"] if e["game"]["number"] == hall.won.number)
    annulled = next(
        e["game"] for e in document["entries"] if e["game"]["number"] == hall.annulled_game.number
    )
    series = won["series_sold"][0]

    assert "Ata da sessão de bingo" in flat or "Acta da sessão de bingo" in flat
    # a) the session's start and h) its end, in the hall's time zone.
    assert "hora de Cabo Verde" in flat  # the zone by its name, not Atlantic/Cape_Verde
    assert "Início da sessão (R61 a)" in flat
    assert "Fim da sessão (R61 h)" in flat
    assert "sessão ainda aberta" not in flat
    # b) each series' order number, c) its price, d) the card numbers sold.
    assert f"ordem n.º {series['order_number']}" in flat
    assert f"série {series['label']}: {cve(series['price'])}" in flat
    assert f"cartões n.º {series['first_card_sold']} a n.º {series['last_card_sold']}" in flat
    # e) the total collected, f) paid for line and bingo, g) the tax.
    assert "Total arrecadado (R61 e)" in flat
    assert cve(document["totals"]["collected"]) in flat
    assert "Pago por linha / bingo (R61 f)" in flat
    assert f"{cve(document['totals']['paid_line'])} / {cve(document['totals']['paid_bingo'])}" in flat
    assert "Imposto sobre os prémios, devido / retido (R61 g)" in flat
    assert Decimal(document["totals"]["tax_due"]) > 0
    assert cve(document["totals"]["tax_due"]) in flat
    # i) the annulled game and why.
    assert "Anulada" in flat
    assert annulled["state_reason"] in flat
    # j) the complaint and the decision taken, k) the ball replaced, l) the failure, m) the occurrence.
    assert "Jogador do cartão 7 diz que a bola 44 não foi anunciada" in flat
    assert "Indeferida: a bola 44 consta do registo e do ecrã" in flat
    assert "bola 17 do jogo de bolas JB-1" in flat
    assert "O ecrã da sala 1 apagou-se durante dois minutos" in flat
    assert "Cartão apresentado com sinais de rasura" in flat
    # R23: the end-of-session check that could not be made, and why (R61 m)).
    assert (
        "Verificação de fim de sessão do jogo de bolas JB-1 não realizada (R23): "
        "O motor do mecanismo de extração queimou-se no fim da última jogada"
    ) in flat
    # R51: the cards destroyed after the game, the card kept as evidence, the winners kept (R52).
    assert f"Cartões da jogada {hall.won.number} destruídos (R51)" in flat
    evidence = f"série {series['order_number']} cartão 11"
    assert f"guardados como prova para a entidade reguladora: {evidence}" in flat
    assert "cartões premiados guardados" in flat
    # The balls in order, the winning cards, the prize split with its remainder.
    assert " ".join(str(ball) for ball in won["balls"]) in flat
    bingo = next(p for p in won["prizes"] if p["kind"] == "bingo")
    card = bingo["winning_cards"][0]
    assert f"série {card['series']} cartão {card['card']}" in flat
    assert f"resto {cve(bingo['remainder'])}" in flat
    # The seal, and the signatures.
    assert document["final_hash"] in flat
    assert "O gerente" in flat
    assert "O locutor" in flat


def test_every_page_says_which_page_of_how_many_and_carries_the_seal(db: None) -> None:
    hall = Session()
    seal = acta_document(session=hall.session)["final_hash"]
    _text, pages = pdf_text(hall)
    assert len(pages) >= 1
    for number, page in enumerate(pages, start=1):
        assert f"Página {number} de {len(pages)}" in page
        assert seal in squash(page)


def test_the_seal_is_the_one_acta_verify_computes(db: None) -> None:
    hall = Session()
    assert acta_document(session=hall.session)["final_hash"] == acta_verify(session=hall.session).seal


def test_a_long_session_paginates(db: None) -> None:
    hall = ActaHall()
    for _ in range(6):
        hall.finished(cards=4)
    _text, pages = pdf_text(hall)  # type: ignore[arg-type]
    assert len(pages) >= 2


def test_the_command_writes_the_pdf(db: None, tmp_path: Path) -> None:
    hall = Session()
    target = tmp_path / "acta.pdf"
    out = io.StringIO()
    call_command("acta_pdf", str(hall.session.pk), "--output", str(target), stdout=out)
    reader = PdfReader(str(target))
    assert len(reader.pages) >= 1
    assert "Jogador do cartão 7" in squash(
        reader.pages[-1].extract_text() + "".join(page.extract_text() for page in reader.pages)
    )
    assert acta_document(session=hall.session)["final_hash"] in out.getvalue()
    assert Game.objects.filter(session=hall.session).count() == 2


def test_the_pdf_prints_the_latest_signed_receipt(db: None) -> None:
    hall = Session()
    document = acta_document(session=hall.session)
    latest = ActaReceipt.objects.filter(acta__session=hall.session).order_by("number").last()
    assert latest is not None
    text, _pages = pdf_text(hall)
    flat = squash(text)

    assert latest.reason == "session_closed"  # the close is the last record, and signed
    assert f"Último recibo assinado n.º {latest.number} de " in flat
    assert f"chave {latest.key_id}" in flat
    assert f"Selo que assinou {latest.seal}" in flat
    assert latest.seal == document["final_hash"]  # every record is signed: the acta as it stands


def test_the_pdf_says_when_no_receipt_was_signed_yet(db: None) -> None:
    hall = ActaHall()  # nothing recorded yet
    text, _pages = pdf_text(hall)  # type: ignore[arg-type]
    assert "Último recibo assinado nenhum assinado ainda" in squash(text)


def cve(amount: str) -> str:
    """An amount of the acta's data as every PDF writes money (issue 25: one format)."""
    return money_display(Decimal(amount), "CVE")
