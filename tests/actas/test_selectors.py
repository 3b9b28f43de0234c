"""Reading and checking the acta (actas.selectors): ``acta_get`` and ``acta_verify`` naming the
first record changed, deleted or moved after it was recorded (R58-R61)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection

from actas import services as acta_services
from actas.models import ActaEntry, ActaNote
from actas.selectors import acta_get, acta_verify
from bingo.models import Game
from tests.actas.test_services import ActaHall
from tests.db_roles import as_table_owner

pytestmark = pytest.mark.django_db


@contextmanager
def tampering() -> Iterator[None]:
    """What someone with the database's keys could do: on PostgreSQL the triggers that refuse
    changes are switched off for the duration (inside the test's transaction, rolled back), by
    the tables' owner (the app's role may not)."""
    tables = ("actas_actaentry", "actas_actanote", "actas_actareceipt")
    with as_table_owner():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                # ALTER TABLE waits for no deferred check: run the foreign keys' checks now.
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                for table in tables:
                    cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        yield
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                for table in tables:
                    cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")


@pytest.fixture
def hall(db) -> ActaHall:
    return ActaHall()


@pytest.fixture
def recorded(hall: ActaHall) -> list[Game]:
    """Three games recorded, a note between the first two."""
    games = [hall.finished(cards=4)]
    acta_services.acta_note_record(session=hall.session, kind="occurrence", user=hall.caller, text="A fight.")
    games += [hall.annulled(), hall.finished(cards=4)]
    return games


def problems(hall: ActaHall) -> list[tuple[str, int, str, int | None]]:
    """What the chains say; the receipts the system signed along the way name more
    (tests/actas/test_tamper_matrix.py), and are left out here."""
    found = acta_verify(session=hall.session).problems
    return [(p.record, p.position, p.fault, p.game) for p in found if p.receipt is None]


def test_the_acta_comes_with_its_entries_and_notes_in_order(hall: ActaHall, recorded: list[Game]) -> None:
    acta = acta_get(session=hall.session)
    assert acta is not None
    assert [(e.position, e.game) for e in acta.entries.all()] == [
        (1, recorded[0]),
        (2, recorded[1]),
        (3, recorded[2]),
    ]
    assert [n.text for n in acta.notes.all()] == ["A fight."]
    assert acta_get(session=ActaHall(name="Sala Mindelo").session) is None


def test_an_acta_as_recorded_is_intact(hall: ActaHall, recorded: list[Game]) -> None:
    result = acta_verify(session=hall.session)
    assert result.intact
    assert (result.entries, result.notes, result.first) == (3, 1, None)


def test_a_changed_entry_is_named(hall: ActaHall, recorded: list[Game]) -> None:
    entry = ActaEntry.objects.get(position=2)
    with tampering():
        ActaEntry.objects.filter(pk=entry.pk).update(content=entry.content.replace('"400.00"', '"40.00"'))
    assert problems(hall) == [("entry", 2, "changed", recorded[1].number)]
    assert acta_verify(session=hall.session).problems[0].describe() == (
        "O registo 2 da acta foi alterado depois de lavrado. Diz respeito à jogada 2."
    )


def test_a_changed_entry_with_its_hash_recomputed_breaks_the_next(
    hall: ActaHall, recorded: list[Game]
) -> None:
    from bingo.engine.acta import record_hash

    entry = ActaEntry.objects.get(position=2)
    forged = entry.content.replace('"400.00"', '"40.00"')
    with tampering():
        ActaEntry.objects.filter(pk=entry.pk).update(
            content=forged, content_hash=record_hash(previous_hash=entry.previous_hash, content=forged)
        )
    assert problems(hall) == [("entry", 3, "unchained", recorded[2].number)]


def test_a_column_changed_behind_the_hash_is_named(hall: ActaHall, recorded: list[Game]) -> None:
    with tampering():
        ActaEntry.objects.filter(position=1).update(kind="annulled")
    assert problems(hall) == [("entry", 1, "changed", recorded[0].number)]


def test_a_deleted_entry_is_named(hall: ActaHall, recorded: list[Game]) -> None:
    with tampering():
        ActaEntry.objects.filter(position=2).delete()
    assert problems(hall) == [("entry", 2, "missing", None), ("entry", 0, "unrecorded", recorded[1].number)]


def test_the_last_entry_deleted_leaves_its_game_unrecorded(hall: ActaHall, recorded: list[Game]) -> None:
    with tampering():
        ActaEntry.objects.filter(position=3).delete()
    assert problems(hall) == [("entry", 0, "unrecorded", recorded[2].number)]


def test_reordered_entries_are_named(hall: ActaHall, recorded: list[Game]) -> None:
    with tampering():
        ActaEntry.objects.filter(position=1).update(position=99)
        ActaEntry.objects.filter(position=2).update(position=1)
        ActaEntry.objects.filter(position=99).update(position=2)
    assert problems(hall) == [("entry", 1, "reordered", recorded[1].number)]


def test_a_changed_note_is_named(hall: ActaHall, recorded: list[Game]) -> None:
    with tampering():
        ActaNote.objects.filter(position=1).update(text="Nothing happened.")
    assert problems(hall) == [("note", 1, "changed", None)]


def test_a_note_deleted_from_the_end_is_named_by_the_entry_recorded_after_it(
    hall: ActaHall, recorded: list[Game]
) -> None:
    with tampering():
        ActaNote.objects.filter(position=1).delete()
    assert problems(hall) == [("note", 1, "missing", None)]
