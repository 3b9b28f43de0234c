"""The acta in the inspector's portal (actas/views.py, R58-R61): on screen, as PDF and JSON, and
its integrity check, which names the first record changed behind the system's back."""

from __future__ import annotations

import io
import json

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from pypdf import PdfReader

from actas.models import ActaEntry, ActaReceipt
from actas.selectors import acta_verify
from actas.signing import signing_identity, signing_key
from bingo.common.roles import Role, user_roles_set
from bingo.engine.acta import acta_file_check, receipt_signature_fault
from tests.actas.test_selectors import tampering
from tests.actas.test_views import as_user
from tests.actas.world import AuditedHall
from tests.factories import UserFactory, two_halls

pytestmark = pytest.mark.django_db


praia, mindelo = two_halls(AuditedHall)


def urls(session_id: int) -> dict[str, str]:
    return {
        name: reverse(f"actas:{name}", args=[session_id])
        for name in ("acta_detail", "acta_pdf", "acta_json", "acta_file")
    }


def test_the_session_page_links_the_acta_and_its_check(praia: AuditedHall) -> None:
    body = (
        as_user(praia.inspector)
        .get(reverse("actas:session_detail", args=[praia.session.pk]))
        .content.decode()
    )
    for url in urls(praia.session.pk).values():
        assert url in body
    assert "Verificar a integridade" in body


def test_the_inspector_reads_the_acta_on_screen(praia: AuditedHall) -> None:
    response = as_user(praia.inspector).get(urls(praia.session.pk)["acta_detail"])
    body = response.content.decode()
    assert response.status_code == 200
    assert "Acta da sessão" in body
    entries = ActaEntry.objects.filter(acta__session=praia.session).order_by("position")
    assert entries.exists()
    for entry in entries:
        assert entry.content_hash in body
    assert "data-integrity" not in body  # checked only when asked


def test_the_integrity_check_says_the_acta_is_intact(praia: AuditedHall) -> None:
    body = (
        as_user(praia.inspector)
        .get(urls(praia.session.pk)["acta_detail"], {"verificar": "1"})
        .content.decode()
    )
    assert 'data-integrity="intact"' in body
    assert "A acta está íntegra" in body


def test_the_integrity_check_names_the_entry_changed_in_the_database(praia: AuditedHall) -> None:
    entry = ActaEntry.objects.filter(acta__session=praia.session).order_by("position").first()
    assert entry is not None
    with tampering(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE actas_actaentry SET content = REPLACE(content, '\"cards_sold\":', '\"cards_sold_\":') "
            "WHERE id = %s",
            [entry.pk],
        )
    body = (
        as_user(praia.inspector)
        .get(urls(praia.session.pk)["acta_detail"], {"verificar": "1"})
        .content.decode()
    )
    assert 'data-integrity="broken"' in body
    with translation.override("pt"):
        first = acta_verify(session=praia.session).first
    assert first is not None
    assert (first.record, first.position, first.fault) == ("entry", entry.position, "changed")
    assert escape(first.describe()) in body


def test_the_pdf_downloads_in_portuguese(praia: AuditedHall) -> None:
    response = as_user(praia.inspector, language="en").get(urls(praia.session.pk)["acta_pdf"])
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert f"acta-sessao-{praia.session.pk}.pdf" in response["Content-Disposition"]
    reader = PdfReader(io.BytesIO(response.content))
    text = "".join(page.extract_text() for page in reader.pages)
    assert "Acta da sessão de bingo" in text  # Portuguese whatever the reader's language (R54)


def test_the_json_is_the_acta_as_recorded(praia: AuditedHall) -> None:
    response = as_user(praia.inspector).get(urls(praia.session.pk)["acta_json"])
    assert response.status_code == 200
    data = json.loads(response.content)
    entries = list(ActaEntry.objects.filter(acta__session=praia.session).order_by("position"))
    assert [e["content_hash"] for e in data["entries"]] == [e.content_hash for e in entries]
    for entry, shown in zip(entries, data["entries"], strict=True):
        assert shown["game"] == json.loads(entry.content)["export"]
    assert len(data["final_hash"]) == 64


def test_another_halls_acta_is_not_found(praia: AuditedHall, mindelo: AuditedHall) -> None:
    client = as_user(mindelo.inspector)
    for url in urls(praia.session.pk).values():
        assert client.get(url).status_code == 404


@pytest.mark.parametrize("role", [Role.CASHIER, Role.CALLER])
def test_only_inspectors_and_managers_read_the_acta_here(praia: AuditedHall, role: Role) -> None:
    user = UserFactory(username=f"someone-{role.value}", roles=[role])
    client = as_user(user)
    for url in urls(praia.session.pk).values():
        assert client.get(url).status_code == 403


def test_the_managers_read_their_halls_acta(praia: AuditedHall) -> None:
    user_roles_set(user=praia.manager, roles=[Role.MANAGER])
    assert as_user(praia.manager).get(urls(praia.session.pk)["acta_pdf"]).status_code == 200


# --- the signed receipts (docs/acta.md, «Signed receipts») ---------------------------------------


def receipt_url(session_id: int, number: int) -> str:
    return reverse("actas:acta_receipt", args=[session_id, number])


def test_the_acta_page_lists_the_receipts_and_shows_the_public_key(praia: AuditedHall) -> None:
    body = as_user(praia.inspector).get(urls(praia.session.pk)["acta_detail"]).content.decode()
    receipts = list(ActaReceipt.objects.filter(acta__session=praia.session).order_by("number"))
    identity = signing_identity()

    assert receipts
    assert "Recibos assinados" in body
    for receipt in receipts:
        assert f'data-receipt="{receipt.number}"' in body
        assert receipt.seal in body
        assert receipt_url(praia.session.pk, receipt.number) in body
    assert identity is not None
    assert f"<code data-key-id>{identity.key_id}</code>" in body
    assert identity.public_key in body
    assert "A entidade reguladora regista esta chave pública" in body


def test_the_portals_hall_list_shows_the_public_key(praia: AuditedHall) -> None:
    body = as_user(praia.inspector).get(reverse("actas:hall_list")).content.decode()
    identity = signing_identity()
    assert identity is not None
    assert identity.public_key in body
    assert identity.key_id in body


def test_the_inspector_downloads_a_receipt_as_signed(praia: AuditedHall) -> None:
    receipt = ActaReceipt.objects.filter(acta__session=praia.session).order_by("number").last()
    assert receipt is not None

    response = as_user(praia.inspector).get(receipt_url(praia.session.pk, receipt.number))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert (
        response["Content-Disposition"]
        == f'attachment; filename="recibo-sessao-{praia.session.pk}-{receipt.number}.json"'
    )
    downloaded = json.loads(response.content)
    assert downloaded == receipt.as_receipt()
    assert receipt_signature_fault(downloaded) is None
    assert downloaded["statement"]["session"] == praia.session.pk


def test_a_receipt_of_another_hall_or_that_does_not_exist_is_not_found(
    praia: AuditedHall, mindelo: AuditedHall
) -> None:
    assert ActaReceipt.objects.filter(acta__session=praia.session, number=1).exists()
    assert as_user(mindelo.inspector).get(receipt_url(praia.session.pk, 1)).status_code == 404
    assert as_user(praia.inspector).get(receipt_url(praia.session.pk, 9999)).status_code == 404


@pytest.mark.parametrize("role", [Role.CASHIER, Role.CALLER])
def test_only_inspectors_and_managers_download_a_receipt(praia: AuditedHall, role: Role) -> None:
    user = UserFactory(username=f"someone-{role.value}", roles=[role])
    assert as_user(user).get(receipt_url(praia.session.pk, 1)).status_code == 403


def test_the_inspector_downloads_the_acta_file_which_checks_whole(praia: AuditedHall) -> None:
    """Issue 22: the file to check offline, every record as hashed and the signed receipts."""
    response = as_user(praia.inspector).get(urls(praia.session.pk)["acta_file"])
    assert response.status_code == 200
    assert (
        response["Content-Disposition"]
        == f'attachment; filename="acta-sessao-{praia.session.pk}.verificavel.json"'
    )
    data = json.loads(response.content)
    check = acta_file_check(data, trusted=[signing_key().public_key()])
    assert check.intact, check.problems
    assert check.receipts == ActaReceipt.objects.filter(acta__session=praia.session).count() > 0
