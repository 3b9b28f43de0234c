"""The acta end to end in a real browser (R58-R61): the caller records a player's complaint at the
console during a game, the game ends, and an inspector opens the session's acta, sees the
complaint, checks its integrity and downloads the PDF, which carries the complaint and the seal."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from actas.selectors import acta_document
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.models import GameState
from cards import selectors as card_selectors
from halls.models import StaffMembership
from tests.draw.test_services import all_numbers
from tests.draw.test_views import Console
from tests.e2e.conftest import RunInBrowser, log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.browser

COMPLAINT = "Jogador do cartão 3 diz que a bola 27 não foi anunciada."


def test_a_complaint_at_the_console_reaches_the_inspectors_acta_and_its_pdf(
    asgi_server: str, browser: RunInBrowser[Any], tmp_path: Path
) -> None:
    hall = Console(name="Salão da Boa Vista")
    inspector = UserFactory(username="inspetora-bv", roles=[Role.INSPECTOR])
    StaffMembership.objects.create(hall=hall.hall, user=inspector, role=Role.INSPECTOR.value)
    game = hall.drawing(cards=6)
    base = asgi_server

    def caller_records(context: Any) -> None:
        page = context.new_page()
        log_in(page, base, hall.caller.username, "/locutor/")
        page.goto(f"{base}/locutor/jogo/{game.pk}/")
        page.wait_for_selector("[data-live].is-live")
        page.locator("#note_text").fill(COMPLAINT)
        page.locator("button[data-record-note]").click()
        page.wait_for_selector("[data-note-kind=complaint][data-pending]")

    browser(caller_records)

    # The game ends: the caller keys in card 1's numbers and awards the line and the bingo, which
    # records the game in the acta in the same transaction (R59).
    card = card_selectors.card_get(card_set=hall.series_of(game).card_set, number=1)
    hall.key(game, *all_numbers(card))
    draw_services.prize_award(game=game, user=hall.caller, kind="line")
    draw_services.prize_award(game=game, user=hall.caller, kind="bingo")
    game.refresh_from_db()
    assert game.state == GameState.FINISHED
    seal = acta_document(session=hall.session)["final_hash"]

    def inspector_reads(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        log_in(page, base, inspector.username, "/inspetor/")
        page.goto(f"{base}/inspecao/")
        page.get_by_role("link", name=hall.hall.name).click()
        page.locator(f'a[href="/inspecao/sessoes/{hall.session.pk}/"]').first.click()
        page.get_by_role("link", name="Ler a acta").click()
        page.wait_for_url(re.compile(r".*/acta/$"))
        seen["acta"] = page.locator("main").inner_text()
        page.locator("button[data-verify]").click()
        page.wait_for_selector("[data-integrity]")
        seen["integrity"] = page.locator("[data-integrity]").get_attribute("data-integrity")
        seen["integrity_text"] = page.locator("[data-integrity]").inner_text()
        with page.expect_download() as download:
            page.get_by_role("link", name="Descarregar o PDF").first.click()
        target = tmp_path / "acta.pdf"
        download.value.save_as(target)
        seen["file_name"] = download.value.suggested_filename
        return seen

    seen = browser(inspector_reads)

    assert COMPLAINT in seen["acta"]
    assert seal in seen["acta"]
    assert seen["integrity"] == "intact"
    assert "A acta está íntegra" in seen["integrity_text"]
    assert seen["file_name"] == f"acta-sessao-{hall.session.pk}.pdf"
    text = re.sub(
        r"\s+", " ", "".join(page.extract_text() for page in PdfReader(tmp_path / "acta.pdf").pages)
    )
    assert COMPLAINT in text
    assert seal in text
    assert "Página 1 de" in text
