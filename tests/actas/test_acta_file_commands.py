"""The acta file (issue 22) from the commands and the API: ``manage.py acta_export`` writes it,
``acta_verify --file`` checks it with no database (a separate process whose database does not
exist), ``acta_verify SESSION --receipt`` checks the database against receipts kept apart, and
``GET /api/sessions/{id}/acta/file/`` answers it to the hall's inspectors and managers only."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from actas import services as acta_services
from actas.models import ActaEntry, ActaNote, ActaReceipt
from actas.selectors import acta_receipts_signed
from actas.signing import signing_key
from bingo.engine.acta import acta_file_check, public_key_text
from tests.actas.notes_hall import NotesHall, as_user
from tests.actas.test_selectors import tampering
from tests.actas.test_services import ActaHall
from tests.processes import ROOT

pytestmark = pytest.mark.django_db


@pytest.fixture
def hall() -> ActaHall:
    hall = ActaHall()
    hall.finished(cards=4)
    acta_services.acta_note_record(session=hall.session, kind="occurrence", user=hall.caller, text="A fight.")
    hall.annulled()
    return hall


def export(session_id: int, target: Path) -> str:
    err = io.StringIO()
    call_command("acta_export", str(session_id), "--output", str(target), stderr=err)
    return err.getvalue()


def test_acta_export_writes_every_record_as_hashed_with_the_receipts(hall: ActaHall, tmp_path: Path) -> None:
    target = tmp_path / "acta.json"
    said = export(hall.session.pk, target)
    data = json.loads(target.read_text(encoding="utf-8"))
    entries = ActaEntry.objects.filter(acta__session=hall.session).order_by("position")
    assert [(r["position"], r["content"], r["hash"], r["previous_hash"]) for r in data["entries"]] == [
        (e.position, e.content, e.content_hash, e.previous_hash) for e in entries
    ]
    assert len(data["notes"]) == ActaNote.objects.filter(acta__session=hall.session).count() == 1
    assert data["receipts"] == acta_receipts_signed(session=hall.session)
    assert len(data["receipts"]) == 3  # after each game and the note
    assert data["session"] == hall.session.pk
    assert data["about"]["hall"]["name"] == hall.hall.name
    check = acta_file_check(data, trusted=[signing_key().public_key()])
    assert check.intact, check.problems
    assert check.seal == data["seal"]
    assert data["seal"] in said


def test_acta_export_to_standard_output(hall: ActaHall) -> None:
    out = io.StringIO()
    call_command("acta_export", str(hall.session.pk), "--output", "-", stdout=out)
    assert json.loads(out.getvalue())["format"] == "bingo-acta/1"
    with pytest.raises(CommandError, match="999999"):
        call_command("acta_export", "999999", "--output", "-")


def _verify_offline(*args: str) -> subprocess.CompletedProcess[str]:
    """``manage.py acta_verify`` in a process of its own whose database cannot be reached."""
    env = {**os.environ, "DATABASE_URL": "postgres://nobody@127.0.0.1:1/no_such_database"}
    return subprocess.run(
        [sys.executable, "manage.py", "acta_verify", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_acta_verify_file_checks_with_no_database_and_names_the_first_bad_record(
    hall: ActaHall, tmp_path: Path
) -> None:
    target = tmp_path / "acta.json"
    export(hall.session.pk, target)
    key = public_key_text(signing_key().public_key())
    receipt = tmp_path / "recibo.json"
    receipt.write_text(json.dumps(acta_receipts_signed(session=hall.session)[-1]), encoding="utf-8")

    ok = _verify_offline("--file", str(target), "--receipt", str(receipt), "--public-key", key)
    assert ok.returncode == 0, ok.stderr
    data = json.loads(target.read_text(encoding="utf-8"))
    assert f"A acta da sessão {hall.session.pk} está íntegra: 2 jogadas, 1 notas" in ok.stdout
    assert data["seal"] in ok.stdout

    data["entries"].pop()  # the last entry removed, the stored receipts with it
    data["receipts"] = []
    cut = tmp_path / "cortada.json"
    cut.write_text(json.dumps(data), encoding="utf-8")
    bad = _verify_offline("--file", str(cut), "--receipt", str(receipt), "--public-key", key)
    assert bad.returncode == 1
    assert "O registo de jogada 2 falta: a acta termina antes do que o recibo 1 assinou." in bad.stderr


def test_acta_verify_of_the_database_checks_the_receipts_it_is_given(hall: ActaHall, tmp_path: Path) -> None:
    kept = tmp_path / "recibos.json"
    kept.write_text(json.dumps(acta_receipts_signed(session=hall.session)), encoding="utf-8")
    out = io.StringIO()
    call_command("acta_verify", str(hall.session.pk), "--receipt", str(kept), stdout=out)
    assert "Recibos assinados verificados: 6." in out.getvalue()  # 3 stored, 3 given

    with tampering():
        ActaEntry.objects.filter(acta__session=hall.session, position=2).delete()
        ActaReceipt.objects.filter(acta__session=hall.session).delete()
    with pytest.raises(CommandError, match="não está íntegra"):
        call_command("acta_verify", str(hall.session.pk), "--receipt", str(kept), stderr=io.StringIO())


def test_acta_verify_wants_a_session_or_a_file_and_readable_keys(hall: ActaHall, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="--file"):
        call_command("acta_verify")
    with pytest.raises(CommandError, match="--file"):
        call_command("acta_verify", str(hall.session.pk), "--file", str(tmp_path / "a.json"))
    with pytest.raises(CommandError):
        call_command("acta_verify", str(hall.session.pk), "--public-key", "not a key")
    with pytest.raises(CommandError):
        call_command("acta_verify", "--file", str(tmp_path / "missing.json"))


# --- the API -----------------------------------------------------------------------------------------


def test_the_api_answers_the_file_to_the_halls_inspectors_and_managers_only() -> None:
    hall = NotesHall()
    url = reverse("api:session-acta-file", args=[hall.session.pk])
    assert url == f"/api/sessions/{hall.session.pk}/acta/file/"
    for reader in (hall.inspector, hall.manager):
        response = as_user(reader).get(url)
        assert response.status_code == 200, response.content
        assert acta_file_check(response.json()).intact
        assert response["Content-Disposition"] == f'attachment; filename="acta-sessao-{hall.session.pk}.json"'
    for other in (hall.cashier, hall.caller):
        assert as_user(other).get(url).status_code == 403
    stranger = NotesHall(name="Sala Mindelo")
    assert as_user(stranger.inspector).get(url).status_code == 404
