"""``manage.py acta_verify SESSION`` (bingo/management/commands/acta_verify.py): exit 0 for an
intact acta, 1 naming the first record that does not hold."""

from __future__ import annotations

import io

import pytest
from django.core.management import base as management_base
from django.core.management import call_command, execute_from_command_line
from django.core.management.base import CommandError

from actas.models import ActaEntry
from actas.selectors import acta_verify
from tests.actas.test_selectors import tampering
from tests.actas.test_services import ActaHall

pytestmark = pytest.mark.django_db


def verify(session_id: int) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("acta_verify", str(session_id), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_an_intact_acta_exits_0_and_says_so() -> None:
    hall = ActaHall()
    hall.finished(cards=4)
    hall.annulled()
    out, err = verify(hall.session.pk)
    seal = acta_verify(session=hall.session).seal
    assert out.strip().splitlines() == [
        f"A acta da sessão {hall.session.pk} está íntegra (jogadas registadas: 2; notas: 0).",
        "Recibos assinados verificados: 2.",
        f"Selo: {seal}",  # to compare with the seal printed on the PDF
    ]
    assert err == ""


def test_a_changed_acta_exits_1_naming_the_first_bad_entry() -> None:
    hall = ActaHall()
    games = [hall.finished(cards=4), hall.finished(cards=4), hall.finished(cards=4)]
    with tampering():
        ActaEntry.objects.filter(position=2).update(content="{}")
        ActaEntry.objects.filter(position=3).update(content="{}")
    with pytest.raises(CommandError, match="O registo 2 da acta foi alterado") as failed:
        verify(hall.session.pk)
    assert f"jogada {games[1].number}" in str(failed.value)


def test_from_the_shell_the_exit_status_is_0_when_intact_and_1_otherwise(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A command run from the shell closes the database connections as it ends; here that would
    # close the test's transaction.
    monkeypatch.setattr(management_base.connections, "close_all", lambda: None)
    hall = ActaHall()
    hall.finished(cards=4)
    execute_from_command_line(["manage.py", "acta_verify", str(hall.session.pk)])  # exit 0: returns
    assert "íntegra" in capsys.readouterr().out
    with tampering():
        ActaEntry.objects.filter(position=1).delete()
    with pytest.raises(SystemExit) as exited:
        execute_from_command_line(["manage.py", "acta_verify", str(hall.session.pk)])
    assert exited.value.code == 1
    assert "A jogada 1 terminou mas não está registada na acta (R60)." in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        execute_from_command_line(["manage.py", "acta_verify", "999999"])
    assert exited.value.code == 1
