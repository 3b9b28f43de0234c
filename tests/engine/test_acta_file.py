"""The acta checked with nothing but the code (issue 22): signed receipts (Ed25519) and the
self-contained acta file, each way of tampering caught and named — bingo/engine/acta.py and the
inspector's offline checker, bingo/engine/acta_check.py, run as a separate process from a folder
holding only its two files."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bingo.engine import acta, acta_check
from bingo.engine.acta import (
    FILE_FORMAT,
    GENESIS,
    Link,
    Problem,
    ReceiptFault,
    acta_file_check,
    acta_seal,
    key_id,
    link_make,
    public_key_parse,
    public_key_text,
    receipt_extension_fault,
    receipt_sign,
    receipt_signature_fault,
    receipt_statement,
)

SESSION = 12
KEY = Ed25519PrivateKey.generate()


def _chain(bodies: list[dict]) -> list[Link]:
    links: list[Link] = []
    for position, body in enumerate(bodies, start=1):
        previous = links[-1].content_hash if links else GENESIS
        links.append(link_make(position=position, previous_hash=previous, body=body))
    return links


def _acta(games: int = 3, notes: int = 2, session: int = SESSION) -> tuple[list[Link], list[Link]]:
    """A session's two chains as the system writes them: notes, then entries naming the notes seen."""
    note_links = _chain(
        [{"record": "note", "session": session, "kind": "occurrence", "text": f"n{i}"} for i in range(notes)]
    )
    entries = []
    for number in range(1, games + 1):
        seen = min(number, notes)
        entries.append(
            {
                "record": "game",
                "session": {"id": session},
                "game": number,
                "notes": {"count": seen, "last_hash": note_links[seen - 1].content_hash if seen else GENESIS},
            }
        )
    return _chain(entries), note_links


def _receipt(entries, notes, *, key=KEY, session=SESSION, reason="game") -> dict:
    statement = receipt_statement(
        session=session,
        entries=len(entries),
        entries_hash=entries[-1].content_hash if entries else GENESIS,
        notes=len(notes),
        notes_hash=notes[-1].content_hash if notes else GENESIS,
        signed_at="2026-11-27T21:00:00-01:00",
        reason=reason,
        public_key=key.public_key(),
    )
    return receipt_sign(statement, key)


def _file(entries, notes, receipts=(), session=SESSION) -> dict:
    def rows(links):
        return [
            {
                "position": link.position,
                "content": link.content,
                "hash": link.content_hash,
                "previous_hash": link.previous_hash,
            }
            for link in links
        ]

    return {
        "format": FILE_FORMAT,
        "session": session,
        "entries": rows(entries),
        "notes": rows(notes),
        "seal": acta_seal(
            entries_hash=entries[-1].content_hash if entries else GENESIS,
            notes_hash=notes[-1].content_hash if notes else GENESIS,
        ),
        "receipts": list(receipts),
    }


def _rehash(rows: list[dict], start: int = 0) -> None:
    """Rewrite a file's chain from index ``start`` on as a forger would: every hash recomputed."""
    for index in range(start, len(rows)):
        previous = rows[index - 1]["hash"] if index else GENESIS
        rows[index]["previous_hash"] = previous
        rows[index]["hash"] = acta.record_hash(previous_hash=previous, content=rows[index]["content"])


def _reseal(data: dict) -> None:
    data["seal"] = acta_seal(
        entries_hash=data["entries"][-1]["hash"] if data["entries"] else GENESIS,
        notes_hash=data["notes"][-1]["hash"] if data["notes"] else GENESIS,
    )


# --- receipts --------------------------------------------------------------------------------------


def test_a_receipt_signs_the_session_each_chains_length_and_last_hash_and_the_seal():
    entries, notes = _acta()
    receipt = _receipt(entries, notes)
    statement = receipt["statement"]
    assert statement["entries"] == 3
    assert statement["entries_hash"] == entries[-1].content_hash
    assert statement["notes"] == 2
    assert statement["notes_hash"] == notes[-1].content_hash
    assert statement["seal"] == acta_seal(
        entries_hash=entries[-1].content_hash, notes_hash=notes[-1].content_hash
    )
    assert statement["key_id"] == key_id(KEY.public_key())
    assert receipt_signature_fault(receipt) is None
    assert receipt_signature_fault(receipt, [KEY.public_key()]) is None
    assert receipt_extension_fault(statement, session=SESSION, entries=entries, notes=notes) is None


def test_a_receipt_altered_after_signing_is_forged():
    entries, notes = _acta()
    receipt = _receipt(entries, notes)
    receipt["statement"]["entries"] = 2
    assert receipt_signature_fault(receipt) is ReceiptFault.FORGED


def test_a_receipt_signed_by_another_key_is_refused_against_the_operators_key():
    entries, notes = _acta()
    other = Ed25519PrivateKey.generate()
    receipt = _receipt(entries, notes, key=other)
    assert receipt_signature_fault(receipt) is None  # sound, but not the operator's
    assert receipt_signature_fault(receipt, [KEY.public_key()]) is ReceiptFault.UNTRUSTED_KEY


def test_a_receipt_claiming_another_key_than_the_one_that_signed_is_forged():
    entries, notes = _acta()
    receipt = _receipt(entries, notes)
    receipt["public_key"] = public_key_text(Ed25519PrivateKey.generate().public_key())
    assert receipt_signature_fault(receipt) is ReceiptFault.FORGED


@pytest.mark.parametrize(
    "broken",
    [
        None,
        [],
        {"format": "x"},
        {"format": acta.RECEIPT_FORMAT, "statement": {}, "signature": "", "public_key": ""},
    ],
)
def test_what_is_not_a_receipt_is_malformed(broken):
    assert receipt_signature_fault(broken) is ReceiptFault.MALFORMED


def test_a_receipt_of_another_session_is_named():
    entries, notes = _acta()
    statement = _receipt(entries, notes, session=SESSION + 1)["statement"]
    fault = receipt_extension_fault(statement, session=SESSION, entries=entries, notes=notes)
    assert fault is ReceiptFault.OTHER_SESSION


def test_a_chain_cut_short_of_a_receipt_is_truncated_at_the_first_missing_record():
    entries, notes = _acta()
    statement = _receipt(entries, notes)["statement"]
    miss = receipt_extension_fault(statement, session=SESSION, entries=entries, notes=notes[:1])
    assert miss == acta.ReceiptMiss("note", 2, ReceiptFault.TRUNCATED)


def test_public_keys_read_as_base64_or_pem_and_nothing_else():
    from cryptography.hazmat.primitives import serialization

    public = KEY.public_key()
    pem = public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    assert acta.public_key_bytes(public_key_parse(public_key_text(public))) == acta.public_key_bytes(public)
    assert acta.public_key_bytes(public_key_parse(pem)) == acta.public_key_bytes(public)
    for bad in ("", "abc", "AAAA"):
        with pytest.raises(ValueError):
            public_key_parse(bad)


# --- the file: the tamper matrix ---------------------------------------------------------------------


def _intact():
    entries, notes = _acta()
    early = _receipt(entries[:2], notes[:1])
    return _file(entries, notes, [early, _receipt(entries, notes)]), early


def test_an_intact_file_holds_with_its_receipts_and_the_operators_key():
    data, early = _intact()
    check = acta_file_check(data, receipts=[early], trusted=[KEY.public_key()])
    assert check.intact, check.problems
    assert (check.session, check.entries, check.notes, check.receipts) == (SESSION, 3, 2, 3)
    assert check.seal == data["seal"]
    assert check.key_ids == (key_id(KEY.public_key()),)


def _changed_byte(data, _):
    row = data["entries"][1]
    row["content"] = row["content"].replace('"game":2', '"game":9')


def _rehashed_edit(data, _):
    data["entries"][1]["content"] = data["entries"][1]["content"].replace('"game":2', '"game":9')
    _rehash(data["entries"], 1)
    data["receipts"] = []
    _reseal(data)


def _deleted(data, _):
    del data["entries"][1]


def _reordered(data, _):
    """Entries 1 and 2 swapped, each keeping its hashes, renumbered to fill the other's place."""
    first, second = data["entries"][0], data["entries"][1]
    data["entries"][0], data["entries"][1] = {**second, "position": 1}, {**first, "position": 2}


def _last_entry_removed(data, _):
    data["entries"].pop()
    data["receipts"] = []
    _reseal(data)


def _last_notes_removed(data, _):
    data["notes"].pop()
    data["receipts"] = []
    _reseal(data)


def _tail_rewritten(data, _):
    for row in data["entries"][1:]:
        row["content"] = row["content"].replace('"record":"game"', '"record":"game","extra":1')
    _rehash(data["entries"], 1)
    data["receipts"] = []
    _reseal(data)


def _forged_signature(data, kept):
    kept[0]["statement"]["entries"] = 2


def _wrong_key(data, early):
    data["receipts"] = [_receipt(*_acta(), key=Ed25519PrivateKey.generate())]


def _other_session(data, early):
    data["receipts"] = [_receipt(*_acta(session=SESSION + 1), session=SESSION + 1)]


#: Each way of tampering, and the first problem the check must name for it.
TAMPERING = [
    ("changed byte", _changed_byte, Problem("entry", 2, "changed", game=9)),
    ("rehashed edit", _rehashed_edit, Problem("entry", 2, "rewritten", receipt=2)),
    ("deleted record", _deleted, Problem("entry", 2, "missing")),
    ("reordering", _reordered, Problem("entry", 1, "reordered", game=2)),
    ("removed last entry", _last_entry_removed, Problem("entry", 3, "truncated", receipt=3)),
    # Entries 2 and 3 saw the second note: its removal is a gap even before any receipt.
    ("removed last notes", _last_notes_removed, Problem("note", 2, "missing")),
    ("tail rewritten and rehashed", _tail_rewritten, Problem("entry", 2, "rewritten", receipt=2)),
    ("forged signature", _forged_signature, Problem("receipt", 1, "forged", receipt=1)),
    ("wrong key", _wrong_key, Problem("receipt", 1, "untrusted_key", receipt=1)),
    ("receipt of another session", _other_session, Problem("receipt", 1, "other_session", receipt=1)),
]


@pytest.mark.parametrize(("name", "tamper", "first"), TAMPERING, ids=[t[0] for t in TAMPERING])
def test_each_way_of_tampering_with_a_file_is_caught_and_named(name, tamper, first):
    entries, notes = _acta()
    # The inspector's receipts, downloaded along the way: one after each game, as the system signs.
    kept = [_receipt(entries[:n], notes[: min(n, 2)]) for n in (1, 2, 3)]
    data = _file(entries, notes, [])
    tamper(data, kept)
    given = [] if name in ("wrong key", "receipt of another session") else kept
    check = acta_file_check(data, receipts=given, trusted=[KEY.public_key()])
    assert not check.intact
    assert check.problems[0] == first, check.problems
    text = acta_check.problem_text(check.problems[0])
    assert text
    assert text[0].isupper()


def test_a_removed_note_is_caught_by_the_entry_that_saw_it_even_with_no_receipt():
    entries, notes = _acta()
    data = _file(entries, notes[:1])
    check = acta_file_check(data)
    assert check.problems[0] == Problem("note", 2, "missing")


def test_a_record_of_another_session_is_named():
    foreign, _ = _acta(session=SESSION + 1)
    data = _file(foreign, [], session=SESSION)
    assert acta_file_check(data).problems[0] == Problem("entry", 1, "foreign", game=1)


def test_a_file_whose_stated_seal_is_not_its_chains_is_caught():
    entries, notes = _acta()
    data = _file(entries, notes)
    data["seal"] = GENESIS
    assert acta_file_check(data).problems == (Problem("file", 0, "seal"),)


@pytest.mark.parametrize(
    "broken",
    [
        None,
        {},
        {"format": "bingo-acta/9"},
        {"format": FILE_FORMAT, "session": "1", "entries": [], "notes": []},
        {"format": FILE_FORMAT, "session": 1, "entries": [{"position": 1}], "notes": []},
    ],
)
def test_what_is_not_an_acta_file_is_malformed(broken):
    assert acta_file_check(broken).problems == (Problem("file", 0, "malformed"),)


# --- the inspector's checker, as a program ----------------------------------------------------------


def _write(folder: Path, name: str, value: object) -> str:
    path = folder / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def test_the_checker_says_intact_with_the_seal_or_names_the_first_problem_in_portuguese(tmp_path, capsys):
    data, _ = _intact()
    good = _write(tmp_path, "acta.json", data)
    receipt = _write(tmp_path, "r.json", data["receipts"][-1])
    key = tmp_path / "key.txt"
    key.write_text(public_key_text(KEY.public_key()))
    assert acta_check.main([good, "--receipt", receipt, "--public-key", str(key)]) == 0
    out = capsys.readouterr().out
    assert f"A acta da sessão {SESSION} está íntegra" in out
    assert data["seal"] in out

    _last_entry_removed(data, None)
    bad = _write(tmp_path, "cut.json", data)
    assert acta_check.main([bad, "--receipt", receipt]) == 1
    err = capsys.readouterr().err
    assert "NÃO está íntegra" in err
    assert "O registo de jogada 3 falta: a acta termina antes do que o recibo 1 assinou." in err

    assert acta_check.main([str(tmp_path / "none.json")]) == 2
    assert acta_check.main([good, "--public-key", "not a key"]) == 2


def test_the_checker_runs_alone_from_a_folder_with_its_two_files(tmp_path):
    """An inspector's laptop: the two files copied into a folder, no project, no Django."""
    engine = Path(acta.__file__).parent
    for name in ("acta.py", "acta_check.py"):
        shutil.copy(engine / name, tmp_path / name)
    data, early = _intact()
    good = _write(tmp_path, "acta.json", data)
    receipt = _write(tmp_path, "r.json", early)
    key = public_key_text(KEY.public_key())
    # -E -s: no PYTHONPATH, no user site; the project is not on the path, only the folder is.
    run = [sys.executable, "-E", "-s", "acta_check.py"]
    ok = subprocess.run(
        [*run, "acta.json", "--receipt", "r.json", "--public-key", key],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert "está íntegra" in ok.stdout
    assert data["seal"] in ok.stdout
    probe = subprocess.run([*run[:-1], "-c", "import bingo"], cwd=tmp_path, capture_output=True, check=False)
    assert probe.returncode != 0, "the project must not be importable there"
    data["entries"][0]["content"] = data["entries"][0]["content"].replace('"game":1', '"game":5')
    _write(tmp_path, "acta.json", data)
    bad = subprocess.run(
        [*run, good, "--receipt", receipt], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert bad.returncode == 1
    assert "O registo de jogada 1 foi alterado depois de lavrado" in bad.stderr
