"""The acta end to end in a real browser (R58-R61): the caller records a player's complaint at the
console during a game, the game ends, and an inspector opens the session's acta, sees the
complaint, checks its integrity and downloads the PDF, which carries the complaint and the seal."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from actas.selectors import acta_document
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.engine import acta as acta_module
from bingo.models import GameState
from cards import selectors as card_selectors
from halls.models import StaffMembership
from tests.actas.test_services import ActaHall
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


def test_the_inspector_downloads_the_acta_file_and_a_receipt_and_checks_them_on_their_own_machine(
    asgi_server: str, browser: RunInBrowser[Any], tmp_path: Path
) -> None:
    """Issue 22: the file and a receipt downloaded in the browser, then the offline checker — its
    two files copied into a folder of their own, run as a separate process with no project on its
    path — accepts them with the operator's public key as the page shows it, and rejects a copy
    with one byte changed, naming the record."""
    hall = ActaHall(name="Salão do Plateau")
    inspector = UserFactory(username="inspetor-plateau", roles=[Role.INSPECTOR])
    StaffMembership.objects.create(hall=hall.hall, user=inspector, role=Role.INSPECTOR.value)
    hall.finished(cards=4)
    hall.finished(cards=4)
    base = asgi_server

    def inspector_downloads(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        log_in(page, base, inspector.username, "/inspetor/")
        page.goto(f"{base}/inspecao/sessoes/{hall.session.pk}/acta/")
        seen["public_key"] = page.locator("[data-public-key]").first.inner_text().strip()
        with page.expect_download() as download:
            page.locator("a[data-acta-file]").click()
        download.value.save_as(tmp_path / "acta.json")
        seen["file_name"] = download.value.suggested_filename
        with page.expect_download() as download:
            page.locator("[data-receipt] a").last.click()
        download.value.save_as(tmp_path / "recibo.json")
        return seen

    seen = browser(inspector_downloads)
    assert seen["file_name"] == f"acta-sessao-{hall.session.pk}.verificavel.json"

    laptop = tmp_path / "portatil"
    laptop.mkdir()
    engine = Path(acta_module.__file__).parent
    for name in ("acta.py", "acta_check.py"):
        shutil.copy(engine / name, laptop / name)

    def check(acta_file: Path) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-E", "-s", "acta_check.py", str(acta_file)]
        command += ["--receipt", str(tmp_path / "recibo.json"), "--public-key", seen["public_key"]]
        return subprocess.run(command, cwd=laptop, capture_output=True, text=True, check=False, timeout=60)

    accepted = check(tmp_path / "acta.json")
    assert accepted.returncode == 0, accepted.stderr
    assert f"A acta da sessão {hall.session.pk} está íntegra" in accepted.stdout
    data = json.loads((tmp_path / "acta.json").read_text(encoding="utf-8"))
    assert data["seal"] in accepted.stdout

    first = data["entries"][0]
    assert '"cards_sold":4' in first["content"]
    first["content"] = first["content"].replace('"cards_sold":4', '"cards_sold":5', 1)
    tampered = tmp_path / "adulterada.json"
    tampered.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    refused = check(tampered)
    assert refused.returncode == 1
    assert "NÃO está íntegra" in refused.stderr
    assert "O registo de jogada 1 foi alterado depois de lavrado" in refused.stderr
