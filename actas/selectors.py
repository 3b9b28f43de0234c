"""Reads of the acta (R58-R61): a session's acta with its records, the games it still lacks
(R60), and the check that nothing was changed, removed or moved after it was recorded."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Prefetch, Q, QuerySet
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from actas.models import Acta, ActaEntry, ActaNote, ActaReceipt
from bingo.common.clock import hall_isoformat, hall_zone
from bingo.engine.acta import (
    FILE_FORMAT,
    GENESIS,
    ChainFault,
    Fault,
    Link,
    acta_seal,
    chain_fault,
    content_object,
    notes_seen_fault,
    receipts_problems,
)
from bingo.engine.acta import Problem as EngineProblem
from bingo.engine.acta_check import problem_text
from bingo.engine.cards_kept import Card, winning_cards_due_at
from bingo.games.exports import session_equipment_data, session_header_data
from bingo.models import Game, GameSeries, GameState, PrizeWinner, Sale, Session

#: The states in which a game is over and belongs in the acta (R59).
ENDED_STATES = (GameState.FINISHED.value, GameState.ANNULLED.value)


def acta_get(*, session: Session) -> Acta | None:
    """``session``'s acta with its entries (their games) and notes (their games, authors and the
    complaints they decide), each in the order recorded; None before anything was recorded."""
    return (
        Acta.objects.filter(session=session)
        .select_related("session__room__hall")
        .prefetch_related(
            Prefetch(
                "entries",
                queryset=ActaEntry.objects.select_related("game", "recorded_by").order_by("position"),
            ),
            Prefetch(
                "notes",
                queryset=ActaNote.objects.select_related("game", "recorded_by", "refers_to").order_by(
                    "position"
                ),
            ),
            Prefetch("receipts", queryset=ActaReceipt.objects.order_by("number")),
        )
        .first()
    )


def acta_receipt_list(*, session: Session) -> QuerySet[ActaReceipt]:
    """``session``'s signed receipts (docs/acta.md, «Signed receipts»), in the order signed."""
    return ActaReceipt.objects.filter(acta__session=session).order_by("number")


def acta_receipt_get(*, session: Session, number: int) -> ActaReceipt | None:
    """``session``'s receipt numbered ``number``, or None."""
    return acta_receipt_list(session=session).filter(number=number).first()


def games_unrecorded(*, session_id: int, before_number: int | None = None) -> list[int]:
    """The numbers of ``session_id``'s games that ended (finished or annulled) and are not in its
    acta, in order; only those numbered below ``before_number`` when it is given (R60)."""
    games = Game.objects.filter(session_id=session_id, state__in=ENDED_STATES, acta_entry__isnull=True)
    if before_number is not None:
        games = games.filter(number__lt=before_number)
    return list(games.order_by("number").values_list("number", flat=True))


@dataclass(frozen=True)
class ActaProblem:
    """Where an acta does not hold: a record (``entry`` or ``note``) at a position, and why."""

    record: str
    position: int
    #: A ``bingo.engine.acta.Fault`` value, or ``unrecorded`` for an ended game with no entry.
    fault: str
    #: The game it concerns, when known.
    game: int | None = None
    #: The receipt (1 for the first checked) that the acta no longer extends, or that does not hold.
    receipt: int | None = None

    def describe(self) -> str:
        """The problem in a sentence or two, in the active language."""
        if self.receipt is not None:
            # The receipts' problems are worded by the offline checker, the same on both sides.
            problem = EngineProblem(self.record, self.position, self.fault, self.receipt, self.game)
            return problem_text(problem, (get_language() or "pt")[:2])
        if self.fault == "unrecorded":
            return _("Game %(game)d ended but is not recorded in the acta (R60).") % {"game": self.game}
        sentences = {
            ("entry", Fault.MISSING.value): _("Entry %(n)d of the acta is missing: it was deleted."),
            ("entry", Fault.CHANGED.value): _("Entry %(n)d of the acta was changed after it was recorded."),
            ("entry", Fault.REORDERED.value): _(
                "Entry %(n)d of the acta was moved from the position it was recorded at."
            ),
            ("entry", Fault.UNCHAINED.value): _(
                "Entry %(n)d of the acta does not follow the one before it: records were changed or shuffled."
            ),
            ("note", Fault.MISSING.value): _("Note %(n)d of the acta is missing: it was deleted."),
            ("note", Fault.CHANGED.value): _("Note %(n)d of the acta was changed after it was recorded."),
            ("note", Fault.REORDERED.value): _(
                "Note %(n)d of the acta was moved from the position it was recorded at."
            ),
            ("note", Fault.UNCHAINED.value): _(
                "Note %(n)d of the acta does not follow the one before it: records were changed or shuffled."
            ),
        }
        text = sentences[(self.record, self.fault)] % {"n": self.position}
        if self.game is not None:
            concerns = _("It concerns game %(game)d.") % {"game": self.game}
            text = f"{text} {concerns}"
        return text


@dataclass(frozen=True)
class ActaVerification:
    """What ``acta_verify`` found: how many records it checked and every problem, first first."""

    session_id: int
    entries: int
    notes: int
    problems: tuple[ActaProblem, ...]
    #: The seal over both chains as stored (``bingo.engine.acta.acta_seal``): compare it with the
    #: one printed on a copy of the acta to see that nothing was rewritten since.
    seal: str = ""
    #: How many signed receipts were checked (those stored and those given).
    receipts: int = 0

    @property
    def intact(self) -> bool:
        return not self.problems

    @property
    def first(self) -> ActaProblem | None:
        return self.problems[0] if self.problems else None


def _same_time(text: object, value: datetime) -> bool:
    try:
        return isinstance(text, str) and datetime.fromisoformat(text) == value
    except ValueError:
        return False


def _session_id(body: dict[str, Any]) -> object:
    session = body.get("session")
    return session.get("id") if isinstance(session, dict) else None


def _recorder(body: dict[str, Any]) -> object:
    who = body.get("recorded_by")
    return who.get("id") if isinstance(who, dict) else None


def _first_fault(links: list[Link], agrees: list[bool]) -> ChainFault | None:
    """The chain's first fault, or the first record whose columns say something its content
    does not (a column changed behind the hash's back), whichever comes first."""
    fault = chain_fault(links)
    for index, ok in enumerate(agrees):
        if not ok and (fault is None or index + 1 < fault.position):
            return ChainFault(index + 1, Fault.CHANGED)
    return fault


def _entry_agrees(entry: ActaEntry, body: dict[str, Any], session_id: int) -> bool:
    """Whether the entry's columns say what its content recorded."""
    return (
        _session_id(body) == session_id
        and entry.game.session_id == session_id
        and body.get("game") == entry.game.number
        and body.get("kind") == entry.kind
        and _same_time(body.get("recorded_at"), entry.recorded_at)
        and _recorder(body) == entry.recorded_by_id
    )


def _note_agrees(note: ActaNote, body: dict[str, Any], session_id: int) -> bool:
    """Whether the note's columns say what its content recorded."""
    return (
        body.get("session") == session_id
        and body.get("kind") == note.kind
        and body.get("text") == note.text
        and body.get("decision") == note.decision
        and body.get("game") == (note.game.number if note.game else None)
        and body.get("refers_to") == (note.refers_to.position if note.refers_to else None)
        and _same_time(body.get("recorded_at"), note.recorded_at)
        and _recorder(body) == note.recorded_by_id
    )


#: What acta_verify reads of each record.
_ENTRY_FIELDS = (
    "position",
    "kind",
    "content",
    "content_hash",
    "previous_hash",
    "recorded_at",
    "recorded_by_id",
    "game__number",
    "game__session",
)
_NOTE_FIELDS = (
    "position",
    "kind",
    "text",
    "decision",
    "content",
    "content_hash",
    "previous_hash",
    "recorded_at",
    "recorded_by_id",
    "game__number",
    "refers_to__position",
)


def _links(rows: Sequence[ActaEntry] | Sequence[ActaNote]) -> list[Link]:
    return [Link(r.position, r.content, r.content_hash, r.previous_hash) for r in rows]


def acta_verify(
    *,
    session: Session,
    receipts: Sequence[object] = (),
    trusted: Sequence[Ed25519PublicKey] | None = None,
) -> ActaVerification:
    """Recompute ``session``'s acta: each record's hash over its content, each link to the record
    before it, the positions without gaps, the columns against the content they were recorded
    with, the notes each entry saw, and every ended game present; then every signed receipt,
    those stored and the ``receipts`` given (kept by an inspector): its signature (by one of the
    ``trusted`` keys, when given) and that the chains still extend what it signed. Names the first
    record of each chain that does not hold, every ended game with no entry (R59-R60) and every
    receipt the acta no longer extends. A fixed number of queries; the work is linear in the
    records and receipts."""
    entries = list(
        ActaEntry.objects.filter(acta__session=session)
        .select_related("game")
        .order_by("position")
        .only(*_ENTRY_FIELDS)
    )
    notes = list(
        ActaNote.objects.filter(acta__session=session)
        .select_related("game", "refers_to")
        .order_by("position")
        .only(*_NOTE_FIELDS)
    )
    entry_links, note_links = _links(entries), _links(notes)
    problems: list[ActaProblem] = []

    entry_bodies = [content_object(e.content) for e in entries]
    entry_fault = _first_fault(
        entry_links,
        [_entry_agrees(e, body, session.pk) for e, body in zip(entries, entry_bodies, strict=True)],
    )
    if entry_fault is not None:
        # A missing entry's game is named among the unrecorded games below.
        game = None if entry_fault.fault is Fault.MISSING else entries[entry_fault.position - 1].game.number
        problems.append(ActaProblem("entry", entry_fault.position, entry_fault.fault.value, game))

    note_fault = _first_fault(
        note_links, [_note_agrees(n, content_object(n.content), session.pk) for n in notes]
    )
    note_fault = notes_seen_fault([e.content for e in entries], note_links, note_fault)
    if note_fault is not None:
        noted = notes[note_fault.position - 1] if note_fault.fault is not Fault.MISSING else None
        game = noted.game.number if noted is not None and noted.game is not None else None
        problems.append(ActaProblem("note", note_fault.position, note_fault.fault.value, game))

    problems += [
        ActaProblem("entry", 0, "unrecorded", number) for number in games_unrecorded(session_id=session.pk)
    ]
    every = [*acta_receipts_signed(session=session), *receipts]
    problems += [
        ActaProblem(p.record, p.position, p.fault, p.game, receipt=p.receipt)
        for p in receipts_problems(
            every, session=session.pk, entries=entry_links, notes=note_links, trusted=trusted
        )
    ]
    seal = acta_seal(
        entries_hash=entries[-1].content_hash if entries else GENESIS,
        notes_hash=notes[-1].content_hash if notes else GENESIS,
    )
    return ActaVerification(session.pk, len(entries), len(notes), tuple(problems), seal, len(every))


def acta_receipts_signed(*, session: Session) -> list[dict[str, Any]]:
    """``session``'s signed receipts in the order they were signed, each exactly as signed
    (``bingo.engine.acta.receipt_sign``'s form). One query."""
    return [r.as_receipt() for r in acta_receipt_list(session=session)]


def _file_links(rows: Iterable[tuple[int, str, str, str]]) -> list[dict[str, Any]]:
    return [
        {"position": position, "content": content, "hash": content_hash, "previous_hash": previous_hash}
        for position, content, content_hash, previous_hash in rows
    ]


_LINK_COLUMNS = ("position", "content", "content_hash", "previous_hash")


def acta_file_data(*, session: Session) -> dict[str, Any]:
    """``session``'s acta as a self-contained file (``bingo-acta/1``, docs/acta.md): every record
    of both chains with its content exactly as hashed, its hash and the previous hash; the seal;
    every signed receipt; and, to read only, the hall and the session as the records name them.
    ``bingo.engine.acta.acta_file_check`` (``python -m bingo.engine.acta_check``) checks it with
    no database. Four queries."""
    header = session_header_data(session=session)
    entries = _file_links(
        ActaEntry.objects.filter(acta__session=session).order_by("position").values_list(*_LINK_COLUMNS)
    )
    notes = _file_links(
        ActaNote.objects.filter(acta__session=session).order_by("position").values_list(*_LINK_COLUMNS)
    )
    return {
        "format": FILE_FORMAT,
        "session": session.pk,
        "about": {"hall": header["hall"], "session": header["session"]},
        "exported_at": hall_isoformat(timezone.now(), header["hall"]["time_zone"]),
        "entries": entries,
        "notes": notes,
        "seal": acta_seal(
            entries_hash=entries[-1]["hash"] if entries else GENESIS,
            notes_hash=notes[-1]["hash"] if notes else GENESIS,
        ),
        "receipts": acta_receipts_signed(session=session),
    }


def notes_head(*, acta: Acta) -> dict[str, Any]:
    """How many notes ``acta`` holds and the last one's hash: what an entry records it saw."""
    last = acta.notes.order_by("-position").values_list("position", "content_hash").first()
    count, last_hash = last if last is not None else (0, GENESIS)
    return {"count": count, "last_hash": last_hash}


# --- the acta as a document: what the PDF, the JSON download and the screen show ---------------


def _username(user: Any) -> str | None:
    return user.get_username() if user is not None else None


def _paid_by_kind(export: dict[str, Any]) -> dict[str, str]:
    """R61 f): a game's prize money by kind (line, bingo, …), the jackpot apart."""
    paid: dict[str, Decimal] = {}
    for prize in export.get("prizes", []):
        paid[prize["kind"]] = paid.get(prize["kind"], Decimal(0)) + Decimal(prize["total"])
    return {kind: f"{amount:.2f}" for kind, amount in paid.items()}


def acta_document(*, session: Session) -> dict[str, Any]:
    """``session``'s acta as plain data (R58-R61): the hall and the session with its end (R61 h)
    and the ball-set checks (R23) and replacements (R61 k), as the closing note recorded them once
    the session closed (as they stand before); every recorded game as it was recorded, with its
    place in the chain; the notes (complaints with the decisions on them, failures,
    occurrences); the cards destroyed and kept (R51-R52); the receipts the operator's key signed
    and the changes of that key; the totals; the seal over both chains. Money stays in strings,
    times in ISO 8601 in the hall's time zone. A fixed number of queries whatever the number of
    games."""
    header = session_header_data(session=session)
    time_zone = header["hall"]["time_zone"]
    acta = acta_get(session=session)
    entry_rows = list(acta.entries.all()) if acta is not None else []
    note_rows = list(acta.notes.all()) if acta is not None else []

    # R61 h), k), R23: once closed, the end and the ball sets' record as the acta recorded them.
    closing = next(
        (
            content_object(n.content).get("closing")
            for n in note_rows
            if n.kind == ActaNote.Kind.SESSION_CLOSED
        ),
        None,
    )
    if closing:
        header["session"] = {**header["session"], "end": closing["end"]}
        equipment = {key: closing[key] for key in ("ball_set_checks", "ball_replacements")}
    else:
        equipment = session_equipment_data(session=session)

    entries = _acta_entries(entry_rows, time_zone)
    notes = _acta_notes(note_rows, time_zone)
    cards = _acta_cards_destroyed(note_rows, time_zone)
    receipts = [_receipt_summary(r, time_zone) for r in (acta.receipts.all() if acta is not None else [])]
    entries_hash = entry_rows[-1].content_hash if entry_rows else GENESIS
    notes_hash = note_rows[-1].content_hash if note_rows else GENESIS
    return {
        **header,
        **equipment,
        "entries": entries,
        "notes": notes,
        "cards_destroyed": cards,
        "receipts": receipts,
        "signing_keys_changed": _signing_keys_changed(note_rows, time_zone),
        "totals": _acta_totals(entries),
        "chains": {"entries": entries_hash, "notes": notes_hash},
        "final_hash": acta_seal(entries_hash=entries_hash, notes_hash=notes_hash),
    }


def _acta_entries(entry_rows: list[ActaEntry], time_zone: str) -> list[dict[str, Any]]:
    """Every recorded game as it was recorded (R59), with its place in the chain and what it paid
    by kind."""
    entries = []
    for entry in entry_rows:
        export = json.loads(entry.content)["export"]
        entries.append(
            {
                "position": entry.position,
                "kind": entry.kind,
                "recorded_at": hall_isoformat(entry.recorded_at, time_zone),
                "recorded_by": _username(entry.recorded_by),
                "content_hash": entry.content_hash,
                "previous_hash": entry.previous_hash,
                "paid": _paid_by_kind(export),
                "game": export,
            }
        )
    return entries


#: The notes that record the cards destroyed and kept (R51-R52): the acta lists them apart.
_DESTRUCTION = (ActaNote.Kind.CARDS_DESTROYED, ActaNote.Kind.WINNING_CARDS_DESTROYED)
#: The notes the acta shows elsewhere than among the complaints, failures and occurrences: the
#: decisions under their complaint, the close in the session's end, the cards destroyed, the
#: signing key's changes with the receipts.
_NOT_LISTED_AS_NOTES = (
    ActaNote.Kind.DECISION,
    ActaNote.Kind.SESSION_CLOSED,
    ActaNote.Kind.SIGNING_KEY_CHANGED,
    *_DESTRUCTION,
)


def _acta_notes(note_rows: list[ActaNote], time_zone: str) -> list[dict[str, Any]]:
    """The complaints, each with the decisions recorded on it later (R61 j), the failures and the
    occurrences (R61 l, m)."""
    decisions: dict[int, list[dict[str, Any]]] = {}
    for note in note_rows:
        if note.kind == ActaNote.Kind.DECISION and note.refers_to is not None:
            decisions.setdefault(note.refers_to.position, []).append(
                {
                    "at": hall_isoformat(note.recorded_at, time_zone),
                    "by": _username(note.recorded_by),
                    "decision": note.decision,
                }
            )
    return [
        {
            "position": note.position,
            "kind": note.kind,
            "game": note.game.number if note.game is not None else None,
            "at": hall_isoformat(note.recorded_at, time_zone),
            "by": _username(note.recorded_by),
            "text": note.text,
            "decision": note.decision,
            "decisions": decisions.get(note.position, []),
            "content_hash": note.content_hash,
        }
        for note in note_rows
        if note.kind not in _NOT_LISTED_AS_NOTES
    ]


def _receipt_summary(receipt: ActaReceipt, time_zone: str) -> dict[str, Any]:
    """A signed receipt as the acta lists it (the whole receipt: ``ActaReceipt.as_receipt``)."""
    return {
        "number": receipt.number,
        "reason": receipt.reason,
        "signed_at": hall_isoformat(receipt.signed_at, time_zone),
        "entries": receipt.entries,
        "notes": receipt.notes,
        "seal": receipt.seal,
        "key_id": receipt.key_id,
    }


def _signing_keys_changed(note_rows: list[ActaNote], time_zone: str) -> list[dict[str, Any]]:
    """Each change of the key that signs the receipts, as its note recorded it: when, the key
    before and the key after (``{"key_id", "public_key"}``)."""
    changes = []
    for note in note_rows:
        if note.kind != ActaNote.Kind.SIGNING_KEY_CHANGED:
            continue
        keys = content_object(note.content).get("signing_key") or {}
        changes.append(
            {
                "position": note.position,
                "at": hall_isoformat(note.recorded_at, time_zone),
                "previous_key": keys.get("previous_key"),
                "key": keys.get("key"),
            }
        )
    return changes


def _acta_cards_destroyed(note_rows: list[ActaNote], time_zone: str) -> list[dict[str, Any]]:
    """The cards destroyed after each game and those kept (R51), the winners destroyed (R52)."""
    return [
        {
            "kind": note.kind,
            "game": note.game.number if note.game is not None else None,
            "at": hall_isoformat(note.recorded_at, time_zone),
            "by": _username(note.recorded_by),
            "text": note.text,
            # R51: the cards destroyed, and those kept as evidence or as winners; R52: destroyed.
            "cards": note_cards(note),
        }
        for note in note_rows
        if note.kind in _DESTRUCTION
    ]


def _acta_totals(entries: list[dict[str, Any]]) -> dict[str, str]:
    """The session's totals over its recorded games (R61 e-g), money in strings."""
    games = [entry["game"] for entry in entries]
    paid = [entry["paid"] for entry in entries]

    def total(values: list[str]) -> str:
        return f"{sum((Decimal(v) for v in values), Decimal(0)):.2f}"

    return {
        "collected": total([g.get("total_collected", "0") for g in games]),
        "paid_line": total([p.get("line", "0") for p in paid]),
        "paid_bingo": total([p.get("bingo", "0") for p in paid]),
        "paid_other": total([v for p in paid for k, v in p.items() if k not in ("line", "bingo")]),
        "tax_due": total([g.get("tax_due", "0") for g in games]),
        "tax_withheld": total([g.get("tax_withheld", "0") for g in games]),
        "refunded": total([g.get("refunded", "0") for g in games]),
    }


#: The notes a person records by hand (R61 j), l), m)); the others are written by the draw and the
#: destruction of the cards.
HAND_KINDS = (
    ActaNote.Kind.COMPLAINT,
    ActaNote.Kind.DECISION,
    ActaNote.Kind.EQUIPMENT_FAILURE,
    ActaNote.Kind.OCCURRENCE,
)


def acta_note_list(*, session: Session) -> QuerySet[ActaNote]:
    """``session``'s notes in the order recorded, with their game, author and the complaint a
    decision decides joined, and ``pending`` set on each complaint no decision answers yet: none
    taken on the spot and none recorded later (R61 j)). One query."""
    decided = ActaNote.objects.filter(refers_to=OuterRef("pk"))
    return (
        ActaNote.objects.filter(acta__session=session)
        .select_related("game", "recorded_by", "refers_to")
        .annotate(
            pending=ExpressionWrapper(
                Q(kind=ActaNote.Kind.COMPLAINT, decision="") & ~Exists(decided),
                output_field=BooleanField(),
            )
        )
        .order_by("position")
    )


# --- R51-R52: the cards of each game, destroyed or kept ----------------------------------------------


#: A game that sold double cards and finished: they play again in the next game (R15).
DOUBLES_PLAYED_AGAIN = {"carried": False, "series__double": True, "game__state": GameState.FINISHED}


def note_cards(note: ActaNote) -> dict[str, Any]:
    """The cards a destruction note recorded (R51-R52), as its content holds them (docs/acta.md):
    ``destroyed`` (R51: ``{"series", "first", "last"}`` ranges; R52: ``{"series", "card"}``),
    ``evidence`` and ``kept`` (``{"series", "card"}``); empty for any other note."""
    cards = content_object(note.content).get("cards")
    return cards if isinstance(cards, dict) else {}


def _card_list(items: object) -> list[Card]:
    if not isinstance(items, list):
        return []
    return [(int(c["series"]), int(c["card"])) for c in items if isinstance(c, dict)]


def game_cards_sold(*, game: Game) -> list[tuple[int, int, int]]:
    """The cards ``game`` played, as ``(series order number, first, last)`` ranges of its sales;
    the second game of double cards plays those its first game sold (R15)."""
    game_id = game.doubles_of_id or game.pk
    return [
        (order, first, last)
        for order, first, last in Sale.objects.filter(game_id=game_id)
        .order_by("series__order_number", "first_number")
        .values_list("series__order_number", "first_number", "last_number")
    ]


def game_winning_cards(*, game: Game) -> list[Card]:
    """The cards that won a prize in ``game`` (and, for the second game of double cards, in its
    first game, whose cards it played), without repeats, in order."""
    games = [game.pk] + ([game.doubles_of_id] if game.doubles_of_id else [])
    return sorted(
        set(
            PrizeWinner.objects.filter(prize__game_id__in=games).values_list(
                "series__order_number", "card_number"
            )
        )
    )


def complaints_pending(*, session_ids: Iterable[int]) -> list[ActaNote]:
    """The complaints of those sessions still waiting for a decision (R61 j), R52): none taken on
    the spot and no later decision names them; oldest first."""
    return list(
        ActaNote.objects.filter(
            acta__session_id__in=list(session_ids),
            kind=ActaNote.Kind.COMPLAINT,
            decision="",
            decisions__isnull=True,
        )
        .select_related("acta", "game")
        .order_by("acta__session_id", "position")
    )


@dataclass(frozen=True)
class WinningCardsKept:
    """A finished game whose winning cards are kept (R52): until when, whether that is over, and
    the pending complaint that holds them past it, if any."""

    game: Game
    #: When they may be destroyed, on the hall's clock (bingo.engine.cards_kept).
    due_at: datetime
    due: bool
    #: The winning cards, and those of them kept as evidence for the regulator (R51), which the
    #: hall hands over rather than destroys.
    winning: tuple[Card, ...]
    evidence: tuple[Card, ...]
    held_by: ActaNote | None

    @property
    def to_destroy(self) -> tuple[Card, ...]:
        return tuple(c for c in self.winning if c not in set(self.evidence))


def winning_cards_kept_list(
    *, now: datetime, hall_ids: Iterable[int] | None = None
) -> list[WinningCardsKept]:
    """Every finished game (of those halls, or of all) whose winning cards are kept and not yet
    recorded destroyed (R52), first due first: when they fall due on the hall's clock, whether
    ``now`` is past it, and the pending complaint on the game or its session that holds them.
    Five queries, whatever the number of games."""
    games = (
        Game.objects.filter(state=GameState.FINISHED, finished_at__isnull=False, prizes__isnull=False)
        .exclude(acta_notes__kind=ActaNote.Kind.WINNING_CARDS_DESTROYED)
        .select_related("session__room__hall")
        .prefetch_related(
            Prefetch("prizes__cards", queryset=PrizeWinner.objects.select_related("series").order_by("pk"))
        )
        .distinct()
        .order_by("finished_at", "pk")
    )
    if hall_ids is not None:
        games = games.filter(session__room__hall_id__in=list(hall_ids))
    games_list = list(games)
    pending: dict[tuple[int, int | None], ActaNote] = {}
    for complaint in complaints_pending(session_ids={g.session_id for g in games_list}):
        pending.setdefault((complaint.acta.session_id, complaint.game_id), complaint)
    evidence: dict[int, list[Card]] = {}
    for note in ActaNote.objects.filter(
        kind=ActaNote.Kind.CARDS_DESTROYED, game_id__in=[g.pk for g in games_list]
    ).only("game_id", "content"):
        assert note.game_id is not None  # the schema says so
        evidence[note.game_id] = _card_list(note_cards(note).get("evidence"))
    kept = []
    for game in games_list:
        assert game.finished_at is not None
        zone = hall_zone(game.session.room.hall)
        due_at = winning_cards_due_at(finished_at=game.finished_at, time_zone=zone)
        winning = sorted(
            {(w.series.order_number, w.card_number) for p in game.prizes.all() for w in p.cards.all()}
        )
        kept.append(
            WinningCardsKept(
                game=game,
                due_at=due_at,
                due=now >= due_at,
                winning=tuple(winning),
                evidence=tuple(c for c in evidence.get(game.pk, []) if c in set(winning)),
                held_by=pending.get((game.session_id, game.pk)) or pending.get((game.session_id, None)),
            )
        )
    return sorted(kept, key=lambda k: (k.due_at, k.game.pk))


def cards_destruction_unrecorded(*, hall_ids: Iterable[int]) -> list[Game]:
    """The ended games of those halls whose used cards are not yet recorded destroyed (R51),
    oldest first, with their sessions."""
    return list(
        Game.objects.filter(session__room__hall_id__in=list(hall_ids), state__in=ENDED_STATES)
        .exclude(acta_notes__kind=ActaNote.Kind.CARDS_DESTROYED)
        # R15: double cards are collected after their second game, and recorded with it.
        .exclude(pk__in=GameSeries.objects.filter(**DOUBLES_PLAYED_AGAIN).values("game_id"))
        .select_related("session__room__hall")
        .order_by("finished_at", "pk")
    )
