"""The acta's chain of records (R58-R61): canonical JSON and SHA-256, nothing else.

A session's acta is written record by record (R59: game by game; notes in between). Each
record is kept as its *content*: canonical JSON text (keys sorted, no whitespace, UTF-8, money
as strings, never a float) that names its own position. Its hash covers the previous record's
hash and that text::

    hash(n) = SHA-256(hash(n - 1) + "\\n" + content(n))      (hex; hash(0) is GENESIS)

so changing a record breaks its own hash, and removing or moving one breaks the link of the
record after it. ``chain_fault`` names the first record where the chain does not hold.

PostgreSQL recomputes the same hash when a record is inserted (actas/migrations), so the text
hashed here and the text stored are the same bytes: keep the formula in step with it.
"""

from __future__ import annotations

import base64
import binascii
import enum
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

#: The "previous hash" of a chain's first record.
GENESIS = "0" * 64


class CanonicalError(TypeError):
    """A value with no single JSON spelling (a float, a non-string key, an unknown type)."""


def _plain(value: object) -> object:
    """``value`` as JSON-ready data with one spelling only: Decimals become strings."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise CanonicalError(f"no canonical form for {value!r}")
        return str(value)
    if isinstance(value, Mapping):
        if not all(isinstance(key, str) for key in value):
            raise CanonicalError("object keys must be strings")
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    # Floats round-trip differently between writers: money is a Decimal, counts are ints.
    raise CanonicalError(f"no canonical form for {type(value).__name__} {value!r}")


def canonical_json(value: object) -> str:
    """``value`` as canonical JSON: sorted keys, no whitespace, non-ASCII kept, Decimals as strings."""
    return json.dumps(
        _plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def record_hash(*, previous_hash: str, content: str) -> str:
    """The hash of a record: SHA-256 (hex) of the previous record's hash, a newline, its content."""
    return hashlib.sha256(f"{previous_hash}\n{content}".encode()).hexdigest()


def acta_seal(*, entries_hash: str, notes_hash: str) -> str:
    """One hash for a whole acta: its games' chain and its notes' chain, each by its last hash
    (GENESIS for an empty chain). Printed on every page of the PDF and by ``acta_verify``, it
    lets a copy kept outside the database show that the acta was not rewritten since."""
    return record_hash(previous_hash=entries_hash, content=notes_hash)


@dataclass(frozen=True)
class Link:
    """One record of a chain as stored: where it stands, what it says, and the two hashes."""

    position: int
    content: str
    content_hash: str
    previous_hash: str


def link_make(*, position: int, previous_hash: str, body: Mapping[str, object]) -> Link:
    """The record at ``position`` (1 for the first) holding ``body``, chained after ``previous_hash``.

    The content is ``body`` with its position added, as canonical JSON.
    """
    if isinstance(position, bool) or not isinstance(position, int) or position < 1:
        raise ValueError(f"positions start at 1, not {position!r}")
    if "position" in body:
        raise ValueError("the body must not name its own position: the chain does")
    content = canonical_json({**body, "position": position})
    return Link(position, content, record_hash(previous_hash=previous_hash, content=content), previous_hash)


class Fault(enum.Enum):
    """Why a chain does not hold at a record."""

    #: No record at this position: one was deleted (or the chain was cut short).
    MISSING = "missing"
    #: The record's content no longer matches its hash: it was changed.
    CHANGED = "changed"
    #: The record says it was written at another position: it was moved.
    REORDERED = "reordered"
    #: Its previous hash is not the hash of the record before it: one before it was replaced,
    #: or the records were shuffled.
    UNCHAINED = "unchained"


@dataclass(frozen=True)
class ChainFault:
    """The first record where a chain does not hold, and why."""

    position: int
    fault: Fault


def _stated_position(content: str) -> object:
    try:
        data = json.loads(content)
    except ValueError:
        return None
    return data.get("position") if isinstance(data, dict) else None


def chain_fault(links: Sequence[Link]) -> ChainFault | None:
    """The first record of ``links`` (in the order stored: by position) where the chain breaks,
    or None when every record is intact, in place, and chained to the one before it."""
    previous = GENESIS
    for expected, link in enumerate(links, start=1):
        if link.position != expected:
            return ChainFault(expected, Fault.MISSING)
        if record_hash(previous_hash=link.previous_hash, content=link.content) != link.content_hash:
            return ChainFault(expected, Fault.CHANGED)
        if _stated_position(link.content) != expected:
            return ChainFault(expected, Fault.REORDERED)
        if link.previous_hash != previous:
            return ChainFault(expected, Fault.UNCHAINED)
        previous = link.content_hash
    return None


def notes_seen_fault(
    entry_contents: Sequence[str], notes: Sequence[Link], fault: ChainFault | None = None
) -> ChainFault | None:
    """The notes each entry saw when it was recorded (their count and the last one's hash, its
    ``notes`` field) must still be there: deleting notes from the end of their chain leaves no
    gap, but an entry recorded after them still names them. The earliest fault of the notes'
    chain, this or ``fault``."""
    hashes = {n.position: n.content_hash for n in notes}
    for content in entry_contents:
        seen = content_object(content).get("notes")
        if not isinstance(seen, dict):
            continue
        count = seen.get("count")
        if (
            isinstance(count, bool)
            or not isinstance(count, int)
            or count < 1
            or hashes.get(count) == seen.get("last_hash")
        ):
            continue
        if fault is None or count < fault.position:
            fault = ChainFault(count, Fault.CHANGED if count in hashes else Fault.MISSING)
    return fault


def content_object(content: str) -> dict[str, Any]:
    """A record's content as a JSON object; empty when it is not one (a damaged record)."""
    try:
        data = json.loads(content)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


# --- signed receipts (Ed25519) ------------------------------------------------------------------
#
# A receipt is the operator's signature over the acta's state at one moment: the session, how many
# records each chain held and the last one's hash, the seal over both, and when. An inspector who
# keeps a receipt can later show that the acta still extends it: a chain cut short, or rewritten
# from some record on (notes included), no longer holds the records the receipt signed.

#: What a receipt file says it is.
RECEIPT_FORMAT = "bingo-acta-receipt/1"
#: What a self-contained acta file says it is.
FILE_FORMAT = "bingo-acta/1"


def key_id(public_key: Ed25519PublicKey) -> str:
    """A public key's short name: the first 16 hex digits of SHA-256 over its 32 raw bytes."""
    return hashlib.sha256(public_key_bytes(public_key)).hexdigest()[:16]


def public_key_bytes(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_key_text(public_key: Ed25519PublicKey) -> str:
    """A public key as printed for the regulator: its 32 raw bytes in base64."""
    return base64.b64encode(public_key_bytes(public_key)).decode("ascii")


def public_key_parse(text: str) -> Ed25519PublicKey:
    """A public key from its base64 form (``public_key_text``) or a PEM block; ValueError else."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_public_key(text.encode())
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError("not an Ed25519 public key")
        return key
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("not a base64 public key") from None
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key has 32 bytes")
    return Ed25519PublicKey.from_public_bytes(raw)


def receipt_statement(
    *,
    session: int,
    entries: int,
    entries_hash: str,
    notes: int,
    notes_hash: str,
    signed_at: str,
    reason: str,
    public_key: Ed25519PublicKey,
) -> dict[str, object]:
    """What a receipt signs: the session, each chain's length and last hash (GENESIS when empty),
    the seal over both, the time (ISO 8601), why it was taken and which key signs it."""
    return {
        "session": session,
        "entries": entries,
        "entries_hash": entries_hash,
        "notes": notes,
        "notes_hash": notes_hash,
        "seal": acta_seal(entries_hash=entries_hash, notes_hash=notes_hash),
        "signed_at": signed_at,
        "reason": reason,
        "key_id": key_id(public_key),
    }


def receipt_sign(statement: Mapping[str, object], private_key: Ed25519PrivateKey) -> dict[str, object]:
    """A receipt: ``statement`` with the Ed25519 signature over its canonical JSON (base64) and
    the public key that checks it."""
    signature = private_key.sign(canonical_json(statement).encode())
    return {
        "format": RECEIPT_FORMAT,
        "statement": dict(statement),
        "signature": base64.b64encode(signature).decode("ascii"),
        "public_key": public_key_text(private_key.public_key()),
    }


class ReceiptFault(enum.Enum):
    """Why a receipt, or the acta against it, does not hold."""

    #: Not a receipt: a field is missing or of the wrong type.
    MALFORMED = "malformed"
    #: Its signature does not match what it says: it was altered or forged.
    FORGED = "forged"
    #: Signed by a key other than the operator's keys given to the check.
    UNTRUSTED_KEY = "untrusted_key"
    #: It was taken of another session's acta.
    OTHER_SESSION = "other_session"
    #: The acta holds fewer records of a chain than the receipt signed: its tail was removed.
    TRUNCATED = "truncated"
    #: The record at the receipt's count no longer has the hash it signed: rewritten since.
    REWRITTEN = "rewritten"


_STATEMENT_TYPES: dict[str, type] = {
    "session": int,
    "entries": int,
    "entries_hash": str,
    "notes": int,
    "notes_hash": str,
    "seal": str,
    "signed_at": str,
    "reason": str,
    "key_id": str,
}


def _statement_sound(statement: object) -> bool:
    return (
        isinstance(statement, dict)
        and all(
            isinstance(statement.get(k), t) and not isinstance(statement.get(k), bool)
            for k, t in _STATEMENT_TYPES.items()
        )
        and statement["entries"] >= 0
        and statement["notes"] >= 0
    )


def receipt_signature_fault(
    receipt: object, trusted: Sequence[Ed25519PublicKey] | None = None
) -> ReceiptFault | None:
    """Whether ``receipt`` is a sound receipt signed by the key it names (and, when ``trusted``
    is given, by one of those keys), its seal the one its hashes make; None when it holds."""
    if not isinstance(receipt, dict) or receipt.get("format") != RECEIPT_FORMAT:
        return ReceiptFault.MALFORMED
    statement = receipt.get("statement")
    if not _statement_sound(statement) or not isinstance(receipt.get("signature"), str):
        return ReceiptFault.MALFORMED
    assert isinstance(statement, dict)
    try:
        key = public_key_parse(str(receipt.get("public_key", "")))
        signature = base64.b64decode(receipt["signature"], validate=True)
    except (binascii.Error, ValueError):
        return ReceiptFault.MALFORMED
    try:
        key.verify(signature, canonical_json(statement).encode())
    except InvalidSignature:
        return ReceiptFault.FORGED
    sealed = acta_seal(entries_hash=statement["entries_hash"], notes_hash=statement["notes_hash"])
    if statement["key_id"] != key_id(key) or statement["seal"] != sealed:
        return ReceiptFault.FORGED
    if trusted is not None and public_key_bytes(key) not in {public_key_bytes(k) for k in trusted}:
        return ReceiptFault.UNTRUSTED_KEY
    return None


@dataclass(frozen=True)
class ReceiptMiss:
    """Where the acta does not extend a receipt: which chain (``entry`` or ``note``), at which
    position, and why (``ReceiptFault.TRUNCATED`` or ``REWRITTEN``)."""

    record: str
    position: int
    fault: ReceiptFault


def receipt_extension_fault(
    statement: Mapping[str, object], *, session: int, entries: Sequence[Link], notes: Sequence[Link]
) -> ReceiptMiss | ReceiptFault | None:
    """Whether the chains ``entries`` and ``notes`` of ``session``'s acta extend the state a
    (signature-checked) receipt's ``statement`` signed: the same session, at least as many records
    of each chain, and the record at each signed count still bearing the signed hash."""
    if statement.get("session") != session:
        return ReceiptFault.OTHER_SESSION
    for record, links, count_key, hash_key in (
        ("entry", entries, "entries", "entries_hash"),
        ("note", notes, "notes", "notes_hash"),
    ):
        count = statement[count_key]
        assert isinstance(count, int)
        if count > len(links):
            return ReceiptMiss(record, len(links) + 1, ReceiptFault.TRUNCATED)
        signed = links[count - 1].content_hash if count else GENESIS
        if signed != statement[hash_key]:
            return ReceiptMiss(record, count, ReceiptFault.REWRITTEN)
    return None


# --- the self-contained acta file, checked with nothing but this module -------------------------


@dataclass(frozen=True)
class Problem:
    """Where an acta (file or database) does not hold.

    ``record`` is ``entry`` or ``note`` (a record of that chain, at ``position``), ``receipt``
    (the receipt numbered ``receipt``, 1 for the first checked) or ``file`` (the file as a
    whole); ``fault`` a ``Fault`` or ``ReceiptFault`` value, or ``foreign`` (a record of another
    session), ``seal`` (the file's stated seal is not its chains'), ``malformed``."""

    record: str
    position: int
    fault: str
    receipt: int | None = None
    game: int | None = None


@dataclass(frozen=True)
class FileCheck:
    """What ``acta_file_check`` found: the session, how many records of each chain and receipts
    it checked, the seal the chains make, the keys that signed, and every problem, first first."""

    session: int | None
    entries: int
    notes: int
    receipts: int
    seal: str
    key_ids: tuple[str, ...]
    problems: tuple[Problem, ...]

    @property
    def intact(self) -> bool:
        return not self.problems


_LINK_TYPES = {"position": int, "content": str, "hash": str, "previous_hash": str}


def _links(items: object) -> list[Link] | None:
    if not isinstance(items, list):
        return None
    links = []
    for item in items:
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), t) and not isinstance(item.get(k), bool) for k, t in _LINK_TYPES.items()
        ):
            return None
        links.append(Link(item["position"], item["content"], item["hash"], item["previous_hash"]))
    return links


def _entry_session(content: str) -> object:
    session = content_object(content).get("session")
    return session.get("id") if isinstance(session, dict) else None


def _game_of(link: Link) -> int | None:
    game = content_object(link.content).get("game")
    return game if isinstance(game, int) and not isinstance(game, bool) else None


def _chain_problem(
    record: str, links: list[Link], fault: ChainFault | None, foreign: int | None
) -> Problem | None:
    """The earliest of the chain's fault and its first record of another session, as a Problem."""
    if foreign is not None and (fault is None or foreign < fault.position):
        fault = ChainFault(foreign, Fault.CHANGED)
        kind = "foreign"
    elif fault is None:
        return None
    else:
        kind = fault.fault.value
    at = links[fault.position - 1] if fault.position <= len(links) else None
    game = _game_of(at) if at is not None and fault.fault is not Fault.MISSING else None
    return Problem(record, fault.position, kind, game=game)


def acta_chains_problems(*, session: int, entries: Sequence[Link], notes: Sequence[Link]) -> list[Problem]:
    """The first record of each chain that does not hold: changed, missing, moved, unchained,
    of another session, or (notes) no longer the notes an entry saw."""
    problems = []
    foreign_entry = next((link.position for link in entries if _entry_session(link.content) != session), None)
    entry_problem = _chain_problem("entry", list(entries), chain_fault(entries), foreign_entry)
    if entry_problem is not None:
        problems.append(entry_problem)
    foreign_note = next(
        (link.position for link in notes if content_object(link.content).get("session") != session), None
    )
    note_fault = notes_seen_fault([e.content for e in entries], notes, chain_fault(notes))
    note_problem = _chain_problem("note", list(notes), note_fault, foreign_note)
    if note_problem is not None:
        problems.append(note_problem)
    return problems


def receipts_problems(
    receipts: Sequence[object],
    *,
    session: int,
    entries: Sequence[Link],
    notes: Sequence[Link],
    trusted: Sequence[Ed25519PublicKey] | None = None,
) -> list[Problem]:
    """Every receipt's signature (by one of the ``trusted`` keys, when given), and that the acta's
    chains extend each receipt: one problem per receipt that does not hold, in order."""
    problems = []
    for number, receipt in enumerate(receipts, start=1):
        fault = receipt_signature_fault(receipt, trusted)
        if fault is not None:
            problems.append(Problem("receipt", number, fault.value, receipt=number))
            continue
        assert isinstance(receipt, dict)
        miss = receipt_extension_fault(receipt["statement"], session=session, entries=entries, notes=notes)
        if isinstance(miss, ReceiptMiss):
            problems.append(Problem(miss.record, miss.position, miss.fault.value, receipt=number))
        elif miss is not None:
            problems.append(Problem("receipt", number, miss.value, receipt=number))
    return problems


def receipt_key_id(receipt: object) -> str | None:
    """The key id a receipt states, when it states one."""
    statement = receipt.get("statement") if isinstance(receipt, dict) else None
    key = statement.get("key_id") if isinstance(statement, dict) else None
    return key if isinstance(key, str) else None


def acta_file_check(
    data: object, *, receipts: Sequence[object] = (), trusted: Sequence[Ed25519PublicKey] | None = None
) -> FileCheck:
    """Check a self-contained acta file (``FILE_FORMAT``, docs/acta.md) with nothing but the code:
    each chain's hashes, links and positions, every record of the file's session, the notes
    each entry saw, the file's stated seal, and each receipt — those the file carries and
    ``receipts`` given apart — signed (by a ``trusted`` key, when given) and extended by the
    chains. Problems come chains first (entries, notes), then the file's seal, then receipts."""
    if not isinstance(data, dict) or data.get("format") != FILE_FORMAT:
        return FileCheck(None, 0, 0, 0, "", (), (Problem("file", 0, "malformed"),))
    session = data.get("session")
    entries, notes = _links(data.get("entries")), _links(data.get("notes"))
    carried = data.get("receipts", [])
    if (
        not isinstance(session, int)
        or isinstance(session, bool)
        or entries is None
        or notes is None
        or not isinstance(carried, list)
    ):
        return FileCheck(None, 0, 0, 0, "", (), (Problem("file", 0, "malformed"),))
    seal = acta_seal(
        entries_hash=entries[-1].content_hash if entries else GENESIS,
        notes_hash=notes[-1].content_hash if notes else GENESIS,
    )
    problems = acta_chains_problems(session=session, entries=entries, notes=notes)
    if data.get("seal") != seal:
        problems.append(Problem("file", 0, "seal"))
    every = [*carried, *receipts]
    problems += receipts_problems(every, session=session, entries=entries, notes=notes, trusted=trusted)
    key_ids = sorted({k for r in every if (k := receipt_key_id(r)) is not None})
    return FileCheck(session, len(entries), len(notes), len(every), seal, tuple(key_ids), tuple(problems))
