"""The acta's schema (actas.models, actas/migrations): constraints everywhere, and on PostgreSQL
triggers that refuse to change or delete a record and admit only a correctly chained one."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from actas import services as acta_services
from actas.models import Acta, ActaEntry, ActaNote
from actas.selectors import acta_verify
from bingo.engine.acta import GENESIS, link_make
from tests.actas.test_services import ActaHall
from tests.db_roles import as_table_owner

pytestmark = pytest.mark.django_db


@pytest.fixture
def hall(db) -> ActaHall:
    return ActaHall()


@pytest.fixture
def note(hall: ActaHall) -> ActaNote:
    hall.finished(cards=4)
    return acta_services.acta_note_record(session=hall.session, kind="complaint", user=hall.caller, text="x")


def needs_postgres() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the triggers exist on PostgreSQL only; the services never update or delete")


@pytest.mark.postgres
@pytest.mark.parametrize("model", [ActaEntry, ActaNote, Acta])
def test_postgres_refuses_to_change_or_delete_a_record(hall: ActaHall, note: ActaNote, model: type) -> None:
    needs_postgres()
    row = model.objects.get()
    change = {"created_at": row.created_at} if model is Acta else {"content": "{}"}
    # As the tables' owner: the app's role is refused by its privileges before any trigger is
    # asked (tests/common/test_db_roles.py).
    with as_table_owner():
        with pytest.raises(IntegrityError, match="never changed or deleted"), transaction.atomic():
            model.objects.filter(pk=row.pk).update(**change)
        with pytest.raises(IntegrityError, match="never changed or deleted"), transaction.atomic():
            row.save()
        # In SQL, past the ORM (which would refuse to delete an acta that has records first).
        table = model._meta.db_table
        with (
            pytest.raises(IntegrityError, match="never changed or deleted"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(f"DELETE FROM {table} WHERE id = %s", [row.pk])
    assert model.objects.filter(pk=row.pk).exists()
    assert acta_verify(session=hall.session).intact


def _insert_note(hall: ActaHall, note: ActaNote, **changes: object) -> None:
    link = link_make(position=2, previous_hash=note.content_hash, body={"kind": "occurrence"})
    fields = {
        "acta": note.acta,
        "position": link.position,
        "kind": "occurrence",
        "text": "y",
        "content": link.content,
        "content_hash": link.content_hash,
        "previous_hash": link.previous_hash,
        "recorded_at": note.recorded_at,
        "recorded_by": hall.caller,
    }
    ActaNote.objects.create(**{**fields, **changes})


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"position": 3}, "not the next one"),
        ({"previous_hash": GENESIS}, "hash of the record before it"),
        ({"content_hash": "a" * 64}, "not SHA-256"),
        ({"content": '{"kind":"occurrence","position":7}'}, "state its position"),
    ],
)
def test_postgres_admits_only_the_next_record_correctly_chained(
    hall: ActaHall, note: ActaNote, changes: dict, message: str
) -> None:
    needs_postgres()
    with pytest.raises(IntegrityError, match=message), transaction.atomic():
        _insert_note(hall, note, **changes)
    _insert_note(hall, note)  # the same, correct, gets in
    assert ActaNote.objects.count() == 2


@pytest.mark.parametrize(
    "changes",
    [
        {"kind": "decision"},  # a decision without the complaint it decides
        {"kind": "complaint", "text": ""},
        {"kind": "cards_destroyed"},  # without its game
        {"kind": "gossip"},
        {"recorded_by": None},  # only R52's destruction is recorded by the system
        {"content_hash": "not a hash"},
    ],
)
def test_the_schema_refuses_a_note_the_rules_do_not_allow(
    hall: ActaHall, note: ActaNote, changes: dict
) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        _insert_note(hall, note, **changes)


def test_the_schema_keeps_one_entry_per_game_and_per_position(hall: ActaHall) -> None:
    game = hall.finished(cards=4)
    entry = ActaEntry.objects.get(game=game)
    other = hall.drawing(cards=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        ActaEntry.objects.create(
            acta=entry.acta,
            position=2,
            game=game,  # recorded already
            kind="finished",
            content=entry.content,
            content_hash=entry.content_hash,
            previous_hash=entry.content_hash,
            recorded_at=entry.recorded_at,
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        ActaEntry.objects.create(
            acta=entry.acta,
            position=1,  # taken
            game=other,
            kind="finished",
            content=entry.content,
            content_hash=entry.content_hash,
            previous_hash=GENESIS,
            recorded_at=entry.recorded_at,
        )
