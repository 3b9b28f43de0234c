"""The acta's signed receipts (actas.services, actas.models.ActaReceipt, docs/acta.md «Signed
receipts»): after each game, each note and the session's close the operator's key signs the
acta's state in the same transaction; the receipt checks with nothing but the engine, names the
acta exactly as it stood, and a new key is written in the acta before it signs."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, connection, transaction
from django.test import override_settings

from actas import services as acta_services
from actas.models import ActaEntry, ActaNote, ActaReceipt
from actas.selectors import acta_document, acta_verify
from bingo.engine.acta import (
    GENESIS,
    Link,
    ReceiptFault,
    ReceiptMiss,
    acta_seal,
    canonical_json,
    key_id,
    public_key_text,
    receipt_extension_fault,
    receipt_signature_fault,
)
from bingo.games import services
from tests.actas.test_selectors import tampering
from tests.actas.test_services import ActaHall
from tests.db_roles import as_table_owner

pytestmark = pytest.mark.django_db


@contextmanager
def signing_with(key: Ed25519PrivateKey) -> Iterator[None]:
    """The operator's key is ``key``, given as ACTA_SIGNING_KEY (base64 of its seed)."""
    seed = base64.b64encode(key.private_bytes_raw()).decode()
    with override_settings(
        ACTA_SIGNING_KEY=seed, ACTA_SIGNING_KEY_FILE="", ACTA_SIGNING_KEY_DEVELOPMENT_FILE=""
    ):
        yield


@pytest.fixture
def key() -> Iterator[Ed25519PrivateKey]:
    key = Ed25519PrivateKey.generate()
    with signing_with(key):
        yield key


@pytest.fixture
def hall(db: None, key: Ed25519PrivateKey) -> ActaHall:
    return ActaHall()


def receipts(hall: ActaHall) -> list[ActaReceipt]:
    return list(ActaReceipt.objects.filter(acta__session=hall.session).order_by("number"))


def links(model: type[ActaEntry] | type[ActaNote], hall: ActaHall) -> list[Link]:
    rows = model.objects.filter(acta__session=hall.session).order_by("position")
    return [Link(r.position, r.content, r.content_hash, r.previous_hash) for r in rows]


def assert_sound(receipt: ActaReceipt, key: Ed25519PrivateKey) -> dict:
    """The receipt as downloaded checks with the engine alone, signed by ``key``, and its columns
    say what it signed."""
    signed = receipt.as_receipt()
    assert receipt_signature_fault(signed, trusted=[key.public_key()]) is None
    statement = signed["statement"]
    assert receipt.statement == canonical_json(statement)
    assert (receipt.entries, receipt.entries_hash, receipt.notes, receipt.notes_hash) == (
        statement["entries"],
        statement["entries_hash"],
        statement["notes"],
        statement["notes_hash"],
    )
    assert (
        receipt.seal
        == statement["seal"]
        == acta_seal(entries_hash=receipt.entries_hash, notes_hash=receipt.notes_hash)
    )
    assert (receipt.key_id, receipt.public_key) == (
        key_id(key.public_key()),
        public_key_text(key.public_key()),
    )
    assert statement["reason"] == receipt.reason
    return statement


# --- when the acta is signed ----------------------------------------------------------------------


def test_a_receipt_is_signed_after_each_game(hall: ActaHall, key: Ed25519PrivateKey) -> None:
    first = ActaEntry.objects.get(game=hall.finished(cards=4))
    second = ActaEntry.objects.get(game=hall.annulled())

    signed = receipts(hall)
    assert [(r.number, r.reason) for r in signed] == [(1, "game"), (2, "game")]
    statements = [assert_sound(r, key) for r in signed]
    assert [(s["entries"], s["entries_hash"]) for s in statements] == [
        (1, first.content_hash),
        (2, second.content_hash),
    ]
    assert [(s["notes"], s["notes_hash"]) for s in statements] == [(0, GENESIS), (0, GENESIS)]
    assert statements[0]["session"] == hall.session.pk
    # On the hall's clock, with its offset, the moment the entry was recorded.
    assert statements[1]["signed_at"] == json.loads(second.content)["recorded_at"]


def test_a_receipt_is_signed_after_each_note_and_at_the_close(hall: ActaHall, key: Ed25519PrivateKey) -> None:
    hall.finished(cards=4)
    complaint = acta_services.acta_note_record(
        session=hall.session, kind="complaint", user=hall.caller, text="a bola 44 não foi anunciada"
    )
    decision = acta_services.acta_note_record(
        session=hall.session, kind="decision", user=hall.caller, decision="indeferida", refers_to=complaint
    )
    services.session_close(session=hall.session, user=hall.caller, missing_check_reason="o motor queimou-se")
    close = ActaNote.objects.get(acta__session=hall.session, kind=ActaNote.Kind.SESSION_CLOSED)

    signed = receipts(hall)
    # The game, the complaint, its decision, the occurrence the close writes (R23), the close.
    assert [r.reason for r in signed] == ["game", "note", "note", "note", "session_closed"]
    assert [r.number for r in signed] == [1, 2, 3, 4, 5]
    statements = [assert_sound(r, key) for r in signed]
    assert (statements[1]["notes"], statements[1]["notes_hash"]) == (1, complaint.content_hash)
    assert (statements[2]["notes"], statements[2]["notes_hash"]) == (2, decision.content_hash)
    assert (statements[-1]["notes"], statements[-1]["notes_hash"]) == (close.position, close.content_hash)
    assert all(s["entries"] == 1 for s in statements)
    # The last receipt signs the acta's seal as it stands.
    assert statements[-1]["seal"] == acta_verify(session=hall.session).seal
    assert acta_verify(session=hall.session).intact


def test_every_receipt_is_extended_by_the_acta_as_it_stands(hall: ActaHall) -> None:
    hall.finished(cards=4)
    acta_services.acta_note_record(session=hall.session, kind="occurrence", user=hall.caller, text="rasura")
    hall.finished(cards=4)

    entries, notes = links(ActaEntry, hall), links(ActaNote, hall)
    for receipt in receipts(hall):
        statement = receipt.as_receipt()["statement"]
        assert (
            receipt_extension_fault(statement, session=hall.session.pk, entries=entries, notes=notes) is None
        )


def test_a_note_removed_from_the_end_fails_against_the_receipt_signed_after_it(hall: ActaHall) -> None:
    """Why every note is signed, not only the games and the close: a note deleted from the end of
    its chain leaves no gap, and no entry was written after it to name it, but its receipt did."""
    hall.finished(cards=4)
    note = acta_services.acta_note_record(session=hall.session, kind="occurrence", user=hall.caller, text="x")
    statement = receipts(hall)[-1].as_receipt()["statement"]
    with tampering(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM actas_actanote WHERE id = %s", [note.pk])

    # The chains alone cannot tell; the receipt the system stored after the note does.
    result = acta_verify(session=hall.session)
    assert [(p.record, p.position, p.fault) for p in result.problems] == [("note", 1, "truncated")]
    miss = receipt_extension_fault(
        statement, session=hall.session.pk, entries=links(ActaEntry, hall), notes=links(ActaNote, hall)
    )
    assert miss == ReceiptMiss("note", 1, ReceiptFault.TRUNCATED)


def test_a_game_rolled_back_leaves_no_receipt(hall: ActaHall) -> None:
    game = hall.drawing(cards=4)
    seen = []

    def finish_then_roll_back() -> None:
        with transaction.atomic():
            hall.finish(game)
            seen.append(len(receipts(hall)))  # signed inside it
            raise RuntimeError("the transaction that ended the game rolls back")

    with pytest.raises(RuntimeError):
        finish_then_roll_back()
    assert seen == [1]
    assert not ActaReceipt.objects.exists()


def test_with_no_key_nothing_is_recorded(hall: ActaHall) -> None:
    game = hall.drawing(cards=4)
    with (
        override_settings(
            ACTA_SIGNING_KEY="", ACTA_SIGNING_KEY_FILE="", ACTA_SIGNING_KEY_DEVELOPMENT_FILE=""
        ),
        pytest.raises(ImproperlyConfigured, match="ACTA_SIGNING_KEY or ACTA_SIGNING_KEY_FILE"),
    ):
        hall.finish(game)
    # The game does not end unrecorded (R59): the award rolled back with the refusal.
    assert not ActaEntry.objects.exists()
    assert not ActaReceipt.objects.exists()
    assert game.prizes.count() == 1  # the line, awarded before the key went


# --- a new key ------------------------------------------------------------------------------------


def test_a_new_key_is_recorded_in_the_acta_before_it_signs(hall: ActaHall, key: Ed25519PrivateKey) -> None:
    hall.finished(cards=4)
    new = Ed25519PrivateKey.generate()
    with signing_with(new):
        entry = ActaEntry.objects.get(game=hall.finished(cards=4))
        acta_services.acta_note_record(session=hall.session, kind="occurrence", user=hall.caller, text="y")

    change = ActaNote.objects.get(acta__session=hall.session, kind=ActaNote.Kind.SIGNING_KEY_CHANGED)
    assert json.loads(change.content)["signing_key"] == {
        "previous_key": {"key_id": key_id(key.public_key()), "public_key": public_key_text(key.public_key())},
        "key": {"key_id": key_id(new.public_key()), "public_key": public_key_text(new.public_key())},
    }
    assert change.recorded_by is None  # the system's
    # Written before the game the new key signs first: that entry saw it.
    assert json.loads(entry.content)["notes"] == {"count": change.position, "last_hash": change.content_hash}
    first, second, third = receipts(hall)
    assert_sound(first, key)
    assert assert_sound(second, new)["notes_hash"] == change.content_hash
    assert_sound(third, new)
    assert (
        receipt_signature_fault(second.as_receipt(), trusted=[key.public_key()]) is ReceiptFault.UNTRUSTED_KEY
    )
    # Once: the next records under the same key write no other change.
    assert ActaNote.objects.filter(kind=ActaNote.Kind.SIGNING_KEY_CHANGED).count() == 1
    assert acta_verify(session=hall.session).intact

    document = acta_document(session=hall.session)
    assert [c["key"]["key_id"] for c in document["signing_keys_changed"]] == [key_id(new.public_key())]
    assert ActaNote.Kind.SIGNING_KEY_CHANGED not in {n["kind"] for n in document["notes"]}  # no complaint
    assert [r["key_id"] for r in document["receipts"]] == [first.key_id, second.key_id, third.key_id]


# --- the table ------------------------------------------------------------------------------------


def needs_postgres() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the triggers exist on PostgreSQL only; the services never update or delete")


@pytest.mark.postgres
def test_postgres_refuses_to_change_or_delete_a_receipt(hall: ActaHall) -> None:
    needs_postgres()
    hall.finished(cards=4)
    receipt = ActaReceipt.objects.get()
    # As the tables' owner: the app's role may not even try (tests/common/test_db_roles.py).
    with as_table_owner():
        with pytest.raises(IntegrityError, match="never changed or deleted"), transaction.atomic():
            ActaReceipt.objects.filter(pk=receipt.pk).update(signature=receipt.signature[::-1])
        with (
            pytest.raises(IntegrityError, match="never changed or deleted"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute("DELETE FROM actas_actareceipt WHERE id = %s", [receipt.pk])
    # TRUNCATE: tests/common/test_db_roles.py, as for every ledger.
    assert ActaReceipt.objects.get().signature == receipt.signature


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"number": 3}, "not the next one"),
        ({"notes": 1}, "does not sign the acta as it stands"),
        ({"entries_hash": "a" * 64}, "does not sign the acta as it stands"),
        ({"seal": "b" * 64}, "seal"),
        ({"reason": "note"}, "does not say what its statement signed"),
    ],
)
def test_postgres_admits_only_a_receipt_of_the_acta_as_it_stands(
    hall: ActaHall, changes: dict, message: str
) -> None:
    needs_postgres()
    hall.finished(cards=4)
    first = ActaReceipt.objects.get()
    fields = {
        f.attname: getattr(first, f.attname) for f in ActaReceipt._meta.concrete_fields if f.attname != "id"
    }
    with pytest.raises(IntegrityError, match=message), transaction.atomic():
        ActaReceipt.objects.create(**{**fields, "number": 2, **changes})
    ActaReceipt.objects.create(**{**fields, "number": 2})  # the same state signed again gets in
    assert ActaReceipt.objects.count() == 2
