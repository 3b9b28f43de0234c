"""The tamper matrix of issue 22, against the database and against the downloaded file: a session
played and closed, the inspector keeping every signed receipt as it was taken; then someone with
the database's keys changes the acta (the triggers switched off, the stored receipts deleted, as a
forger would), and both ``acta_verify`` on the database and ``acta_file_check`` on the file
exported afterwards name the first record that does not hold."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from actas import services as acta_services
from actas.models import ActaEntry, ActaNote, ActaReceipt
from actas.selectors import acta_file_data, acta_receipts_signed, acta_verify
from actas.signing import signing_key
from bingo.ballsets import services as ballset_services
from bingo.engine.acta import acta_file_check, record_hash
from bingo.engine.acta_check import problem_text
from bingo.games import services as game_services
from tests.actas.test_selectors import tampering
from tests.actas.test_services import ActaHall

pytestmark = pytest.mark.django_db


@dataclass
class Played:
    hall: ActaHall
    #: Every receipt, downloaded by the inspector as it was signed.
    kept: list[dict[str, Any]]


@pytest.fixture
def played(db) -> Played:
    """Game 1 finished, an occurrence noted, game 2 annulled, game 3 finished, the session closed."""
    hall = ActaHall()
    hall.finished(cards=4)
    acta_services.acta_note_record(session=hall.session, kind="occurrence", user=hall.caller, text="A fight.")
    hall.annulled()
    hall.finished(cards=4)
    ballset_services.ball_set_check_record(
        ball_set=hall.ball_set, session=hall.session, phase="end", faulty_balls=[], user=hall.caller
    )
    game_services.session_close(session=hall.session, user=hall.caller)
    kept = acta_receipts_signed(session=hall.session)
    assert len(kept) >= 5  # one after each game, the note and the close
    return Played(hall, kept)


def _rehash_entries(session_id: int, start: int) -> None:
    """Recompute the entries' hashes from ``start`` on, each after the one before: a rewrite."""
    rows = list(ActaEntry.objects.filter(acta__session_id=session_id).order_by("position"))
    for index, row in enumerate(rows):
        if row.position < start:
            continue
        previous = rows[index - 1].content_hash if index else "0" * 64
        row.previous_hash = previous
        row.content_hash = record_hash(previous_hash=previous, content=row.content)
        ActaEntry.objects.filter(pk=row.pk).update(previous_hash=previous, content_hash=row.content_hash)


def _edit(session_id: int, position: int, old: str, new: str) -> None:
    entry = ActaEntry.objects.get(acta__session_id=session_id, position=position)
    assert old in entry.content
    ActaEntry.objects.filter(pk=entry.pk).update(content=entry.content.replace(old, new))


def _changed_byte(p: Played) -> None:
    _edit(p.hall.session.pk, 2, "ball 6 announced as 9", "ball 6 announced as 8")


def _rehashed_edit(p: Played) -> None:
    _edit(p.hall.session.pk, 2, "ball 6 announced as 9", "ball 6 announced as 8")
    entry = ActaEntry.objects.get(acta__session=p.hall.session, position=2)
    ActaEntry.objects.filter(pk=entry.pk).update(
        content_hash=record_hash(previous_hash=entry.previous_hash, content=entry.content)
    )


def _deleted(p: Played) -> None:
    ActaEntry.objects.filter(acta__session=p.hall.session, position=2).delete()


def _reordered(p: Played) -> None:
    rows = ActaEntry.objects.filter(acta__session=p.hall.session)
    rows.filter(position=1).update(position=100)
    rows.filter(position=2).update(position=1)
    rows.filter(position=100).update(position=2)


def _last_entry_removed(p: Played) -> None:
    ActaEntry.objects.filter(acta__session=p.hall.session, position=3).delete()


def _last_note_removed(p: Played) -> None:
    ActaNote.objects.filter(acta__session=p.hall.session, kind=ActaNote.Kind.SESSION_CLOSED).delete()


def _tail_rewritten(p: Played) -> None:
    _edit(p.hall.session.pk, 2, "ball 6 announced as 9", "ball 6 announced as 8")
    _rehash_entries(p.hall.session.pk, 2)


def _forged_signature(p: Played) -> None:
    p.kept[0]["statement"]["entries"] = 2


def _wrong_key(p: Played) -> None:
    pass  # the inspector checks against a key that is not the one that signed


def _other_session(p: Played) -> None:
    other = ActaHall(name="Sala Mindelo")
    other.finished(cards=4)
    p.kept.append(acta_receipts_signed(session=other.session)[0])


@dataclass(frozen=True)
class Row:
    name: str
    tamper: Callable[[Played], None]
    #: The first problem named (record, position or receipt, fault), from the database and the file.
    database: tuple[str, int | None, str]
    file: tuple[str, int | None, str]
    #: The inspector's registered key is another one.
    wrong_key: bool = False


MATRIX = [
    Row("changed byte", _changed_byte, ("entry", 2, "changed"), ("entry", 2, "changed")),
    Row("rehashed edit", _rehashed_edit, ("entry", 3, "unchained"), ("entry", 3, "unchained")),
    Row("deleted record", _deleted, ("entry", 2, "missing"), ("entry", 2, "missing")),
    Row("reordering", _reordered, ("entry", 1, "reordered"), ("entry", 1, "reordered")),
    # The database also knows game 3 ended: it is unrecorded; the file knows it from the receipts.
    Row("removed last entry", _last_entry_removed, ("entry", 0, "unrecorded"), ("entry", 3, "truncated")),
    Row("removed last notes", _last_note_removed, ("note", None, "truncated"), ("note", None, "truncated")),
    Row("whole tail rewritten", _tail_rewritten, ("entry", 2, "rewritten"), ("entry", 2, "rewritten")),
    Row("forged signature", _forged_signature, ("receipt", 1, "forged"), ("receipt", 1, "forged")),
    Row("wrong key", _wrong_key, ("receipt", 1, "untrusted_key"), ("receipt", 1, "untrusted_key"), True),
    Row(
        "receipt of another session",
        _other_session,
        ("receipt", None, "other_session"),
        ("receipt", None, "other_session"),
    ),
]


def _first(problems: Any) -> tuple[str, int | None, str]:
    first = problems[0]
    position = first.receipt if first.record == "receipt" else first.position
    return first.record, position, first.fault


def _matches(found: tuple[str, int | None, str], expected: tuple[str, int | None, str]) -> bool:
    return found[0] == expected[0] and found[2] == expected[2] and expected[1] in (None, found[1])


@pytest.mark.parametrize("row", MATRIX, ids=[r.name for r in MATRIX])
def test_each_way_of_tampering_is_caught_and_named_in_the_database_and_in_the_file(
    played: Played, row: Row
) -> None:
    session = played.hall.session
    assert acta_verify(session=session, receipts=played.kept).intact
    with tampering():
        row.tamper(played)
        # A forger removes the receipts the system stored; the inspector's are out of reach.
        ActaReceipt.objects.filter(acta__session=session).delete()
    key: Ed25519PublicKey = (
        Ed25519PrivateKey.generate().public_key() if row.wrong_key else signing_key().public_key()
    )

    in_database = acta_verify(session=session, receipts=played.kept, trusted=[key])
    assert not in_database.intact
    assert _matches(_first(in_database.problems), row.database), in_database.problems
    assert in_database.problems[0].describe()

    exported = json.loads(json.dumps(acta_file_data(session=session)))
    in_file = acta_file_check(exported, receipts=played.kept, trusted=[key])
    assert not in_file.intact
    assert _matches(_first(in_file.problems), row.file), in_file.problems
    assert problem_text(in_file.problems[0]).startswith(("O ", "A "))


def test_the_untouched_acta_holds_in_the_database_and_in_its_file(played: Played) -> None:
    key = signing_key().public_key()
    session = played.hall.session
    assert acta_verify(session=session, receipts=played.kept, trusted=[key]).intact
    check = acta_file_check(acta_file_data(session=session), receipts=played.kept, trusted=[key])
    assert check.intact, check.problems
    assert check.entries == 3
