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

import enum
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

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
