"""Writes of the acta (R58-R61): each game recorded as it ends, the session's notes, and the
check that the next game may start (R60).

``acta_record_game`` runs inside the transaction that finishes or annuls the game
(``bingo.draw.services.prize_award`` and ``game_annul``): the game ends and is recorded, or
neither. Every record is insert-only and chained (``bingo.engine.acta``); the acta's row is
locked while a record is added, after the game's row when there is one, so two records never
take the same position.

After each record, under the same lock and in the same transaction, the operator's key signs the
acta's state (``ActaReceipt``, docs/acta.md «Signed receipts»): a game, every note, the session's
close. When the key is not the one that signed the acta's last receipt, a ``signing_key_changed``
note records the change first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from actas import selectors
from actas.models import Acta, ActaEntry, ActaNote, ActaReceipt
from actas.signing import signing_key
from bingo.common.clock import hall_isoformat
from bingo.common.roles import Role
from bingo.engine.acta import (
    GENESIS,
    canonical_json,
    key_id,
    link_make,
    public_key_text,
    receipt_sign,
    receipt_statement,
)
from bingo.engine.cards_kept import Card, cards_destroyed
from bingo.games import locks
from bingo.games.exports import game_export_data, session_equipment_data, session_header_data
from bingo.models import Game, GameSeries, GameState, Session
from halls.selectors import staff_has_role

#: The daily task that records the winning cards whose 8 days are over (R52): its name in
#: Celery's registry and in the beat schedule (settings.CELERY_BEAT_SCHEDULE).
WINNING_CARDS_DESTROY_DUE_TASK = "actas.winning_cards_destroy_due"


def _locked_acta(session_id: int) -> Acta:
    """The session's acta, created on its first record, locked until the transaction ends (its
    session, room and hall joined, not locked)."""
    # The lock order (docs/architecture.md): after the game and the jackpot, before the wallets
    # and the series on sale.
    locked = Acta.objects.select_for_update(of=("self",), no_key=True).select_related("session__room__hall")
    acta = locked.filter(session_id=session_id).first()
    if acta is None:
        Acta.objects.get_or_create(session_id=session_id)
        acta = locked.get(session_id=session_id)
    return acta


def acta_lock(*, session_id: int) -> Acta:
    """Lock the session's acta until the transaction ends (made on first use), for a transaction
    that may record in it only after locking a series on sale: the reconciler's close of games
    that may be annulled takes it first, since nothing of the lock order is locked after a series
    on sale (docs/architecture.md)."""
    return _locked_acta(session_id)


def _who(user: User | None) -> dict[str, Any] | None:
    return {"id": user.pk, "username": user.get_username()} if user is not None else None


def acta_record_game(*, game: Game, user: User | None = None) -> ActaEntry:
    """Record ``game``, which has just finished or been annulled, in its session's acta (R59-R61):
    its ``session_export`` form, chained to the entry before it. Call it inside the transaction
    that ends the game; recording a game again returns its entry."""
    with transaction.atomic():
        state, session_id = Game.objects.filter(pk=game.pk).values_list("state", "session_id").get()
        if state not in selectors.ENDED_STATES:
            raise ValidationError(_("Only a game that has ended is recorded in the acta (R59)."))
        acta = _locked_acta(session_id)
        existing = ActaEntry.objects.filter(game_id=game.pk).first()
        if existing is not None:
            return existing
        now = timezone.now()
        signer = _signer_ready(acta=acta, now=now)
        last = acta.entries.order_by("-position").values_list("position", "content_hash").first()
        position, previous_hash = (last[0] + 1, last[1]) if last is not None else (1, GENESIS)
        # R61: the hall and the session with its start (a)), then the game as it ended (b)-(i)).
        header = session_header_data(session=acta.session)
        export = game_export_data(game=game)
        kind = ActaEntry.Kind.FINISHED if state == GameState.FINISHED.value else ActaEntry.Kind.ANNULLED
        notes = selectors.notes_head(acta=acta)
        link = link_make(
            position=position,
            previous_hash=previous_hash,
            body={
                "record": "game",
                "hall": header["hall"],
                "session": header["session"],
                "game": export["number"],
                "kind": kind.value,
                "recorded_at": hall_isoformat(now, header["hall"]["time_zone"]),
                "recorded_by": _who(user),
                # The notes recorded so far: deleting the last of them leaves no gap in their
                # chain, but this entry still names them.
                "notes": notes,
                "export": export,
            },
        )
        entry = ActaEntry.objects.create(
            acta=acta,
            position=link.position,
            game_id=game.pk,
            kind=kind,
            content=link.content,
            content_hash=link.content_hash,
            previous_hash=link.previous_hash,
            recorded_at=now,
            recorded_by=user,
        )
        _receipt_add(
            signer,
            reason=ActaReceipt.Reason.GAME,
            entries=(entry.position, entry.content_hash),
            notes=(notes["count"], notes["last_hash"]),
        )
        return entry


def acta_require_recorded(*, game: Game) -> None:
    """R60: refuse to start ``game`` while an earlier game of its session ended and is not in the
    acta. (Games are recorded as they end, so this holds unless a record is missing.)"""
    if missing := selectors.games_unrecorded(session_id=game.session_id, before_number=game.number):
        raise ValidationError(
            _("Game %(n)d has ended but is not in the acta: the next game starts once it is recorded (R60).")
            % {"n": missing[0]}
        )


#: Notes that say what happened (the others say what was decided or done).
_TEXT_REQUIRED = (ActaNote.Kind.COMPLAINT, ActaNote.Kind.EQUIPMENT_FAILURE, ActaNote.Kind.OCCURRENCE)
_DESTRUCTION = (ActaNote.Kind.CARDS_DESTROYED, ActaNote.Kind.WINNING_CARDS_DESTROYED)


def _may_write(user: User, hall_id: int) -> bool:
    return (
        user.is_superuser
        or staff_has_role(user=user, hall_id=hall_id, role=Role.CALLER)
        or staff_has_role(user=user, hall_id=hall_id, role=Role.MANAGER)
    )


def acta_note_record(
    *,
    session: Session,
    kind: str,
    user: User,
    text: str = "",
    decision: str = "",
    game: Game | None = None,
    refers_to: ActaNote | None = None,
) -> ActaNote:
    """Record in ``session``'s acta, with who and when, a player's complaint and any decision
    taken on it, a later decision on a complaint (``refers_to``) (R61 j), an equipment failure
    (R61 l) or an occurrence that may involve an offence (R61 m). Only the hall's callers and
    managers record notes; nothing recorded is changed afterwards. (The cards destroyed have
    their own services, which list them: ``game_cards_destroy_record``, R51, and
    ``winning_cards_destroy_due``, R52.)"""
    if kind not in ActaNote.Kind.values:
        raise ValidationError(_("Unknown kind of note."))
    note_kind = ActaNote.Kind(kind)
    if note_kind in _DESTRUCTION:
        raise ValidationError(
            _("The destruction of a game's cards is recorded with the cards it names (R51-R52).")
        )
    text, decision = text.strip(), decision.strip()
    with transaction.atomic():
        session = Session.objects.select_related("room__hall").get(pk=session.pk)
        if not _may_write(user, session.room.hall_id):
            raise ValidationError(_("Only the hall's callers and managers write in its acta."))
        if game is not None:
            game = Game.objects.get(pk=game.pk)
            if game.session_id != session.pk:
                raise ValidationError(_("Game %(n)d belongs to another session.") % {"n": game.number})
        if note_kind in _TEXT_REQUIRED and not text:
            raise ValidationError(_("Say what happened."))
        acta = _locked_acta(session.pk)
        if note_kind == ActaNote.Kind.DECISION:
            if (
                refers_to is None
                or not ActaNote.objects.filter(
                    pk=refers_to.pk, acta=acta, kind=ActaNote.Kind.COMPLAINT
                ).exists()
            ):
                raise ValidationError(_("A decision names the complaint of this session it decides (R61 j)."))
            if not decision:
                raise ValidationError(_("Say what was decided."))
            refers_to = ActaNote.objects.get(pk=refers_to.pk)
        elif refers_to is not None:
            raise ValidationError(_("Only a decision refers to a complaint."))
        return _note_add(
            acta=acta,
            kind=note_kind,
            user=user,
            text=text,
            decision=decision,
            game=game,
            refers_to=refers_to,
            now=timezone.now(),
        )


def _note_add(
    *,
    acta: Acta,
    kind: ActaNote.Kind,
    user: User | None,
    now: datetime,
    text: str = "",
    decision: str = "",
    game: Game | None = None,
    refers_to: ActaNote | None = None,
    cards: dict[str, Any] | None = None,
    closing: dict[str, Any] | None = None,
) -> ActaNote:
    """Add a note at the next position of ``acta``'s notes, chained to the one before, and sign
    the acta as it then stands; the caller holds the acta's lock (``_locked_acta``) and has
    checked the note may be written."""
    signer = _signer_ready(acta=acta, now=now)
    note = _note_insert(
        acta=acta,
        kind=kind,
        user=user,
        now=now,
        text=text,
        decision=decision,
        game=game,
        refers_to=refers_to,
        extra={"cards": cards, "closing": closing},
    )
    reason = (
        ActaReceipt.Reason.SESSION_CLOSED if kind == ActaNote.Kind.SESSION_CLOSED else ActaReceipt.Reason.NOTE
    )
    _receipt_add(signer, reason=reason, notes=(note.position, note.content_hash))
    return note


def _note_insert(
    *,
    acta: Acta,
    kind: ActaNote.Kind,
    user: User | None,
    now: datetime,
    text: str = "",
    decision: str = "",
    game: Game | None = None,
    refers_to: ActaNote | None = None,
    extra: dict[str, dict[str, Any] | None],
) -> ActaNote:
    """Insert the note at the next position of ``acta``'s notes, chained to the one before; the
    ``extra`` parts that are not None go into its content, which the hash covers."""
    last = acta.notes.order_by("-position").values_list("position", "content_hash").first()
    position, previous_hash = (last[0] + 1, last[1]) if last is not None else (1, GENESIS)
    body: dict[str, Any] = {
        "record": "note",
        "session": acta.session_id,
        "kind": kind.value,
        "text": text,
        "decision": decision,
        "game": game.number if game is not None else None,
        "refers_to": refers_to.position if refers_to is not None else None,
        "recorded_at": hall_isoformat(now, acta.session.room.hall),
        # None: the system (R52's daily task, a change of the signing key), shown as such.
        "recorded_by": _who(user),
    }
    # cards: R51-R52, which cards were destroyed and which kept (docs/acta.md); closing: R61 h),
    # k), R23, the session's end and its ball sets' record; signing_key: the keys before and after.
    body.update({name: part for name, part in extra.items() if part is not None})
    link = link_make(position=position, previous_hash=previous_hash, body=body)
    return ActaNote.objects.create(
        acta=acta,
        position=link.position,
        kind=kind,
        text=text,
        decision=decision,
        game=game,
        refers_to=refers_to,
        content=link.content,
        content_hash=link.content_hash,
        previous_hash=link.previous_hash,
        recorded_at=now,
        recorded_by=user,
    )


# --- the signed receipts (docs/acta.md, «Signed receipts») ---------------------------------------


@dataclass(frozen=True)
class _Signer:
    """What signs the acta's next receipt: the operator's key, the receipt's number, the moment."""

    acta: Acta
    key: Ed25519PrivateKey
    number: int
    now: datetime


def _signer_ready(*, acta: Acta, now: datetime) -> _Signer:
    """The operator's key, ready to sign ``acta``'s next receipt (the caller holds the acta's
    lock). When another key signed the acta's last receipt, a ``signing_key_changed`` note
    records first which key gave way to which, so the acta itself says why its receipts change
    key. Refuses (ImproperlyConfigured) before anything is written when no key is set."""
    key = signing_key()
    public = key.public_key()
    current = {"key_id": key_id(public), "public_key": public_key_text(public)}
    last = acta.receipts.order_by("-number").values_list("number", "key_id", "public_key").first()
    if last is not None and last[1] != current["key_id"]:
        _note_insert(
            acta=acta,
            kind=ActaNote.Kind.SIGNING_KEY_CHANGED,
            user=None,
            now=now,
            extra={
                "signing_key": {"previous_key": {"key_id": last[1], "public_key": last[2]}, "key": current}
            },
        )
    return _Signer(acta=acta, key=key, number=last[0] + 1 if last is not None else 1, now=now)


def _chain_head(records: Any) -> tuple[int, str]:
    last = records.order_by("-position").values_list("position", "content_hash").first()
    return (last[0], last[1]) if last is not None else (0, GENESIS)


def _receipt_add(
    signer: _Signer,
    *,
    reason: ActaReceipt.Reason,
    entries: tuple[int, str] | None = None,
    notes: tuple[int, str] | None = None,
) -> ActaReceipt:
    """Sign the acta's state after a record and keep the receipt: each chain's length and last
    hash (``entries``, ``notes`` when the caller knows them, else read), the seal, the time on the
    hall's clock, why. One INSERT; Ed25519 signs in some 50 µs."""
    acta = signer.acta
    entries = entries if entries is not None else _chain_head(acta.entries)
    notes = notes if notes is not None else _chain_head(acta.notes)
    statement = receipt_statement(
        session=acta.session_id,
        entries=entries[0],
        entries_hash=entries[1],
        notes=notes[0],
        notes_hash=notes[1],
        signed_at=hall_isoformat(signer.now, acta.session.room.hall) or "",
        reason=reason.value,
        public_key=signer.key.public_key(),
    )
    receipt = receipt_sign(statement, signer.key)
    return ActaReceipt.objects.create(
        acta=acta,
        number=signer.number,
        reason=reason,
        entries=entries[0],
        entries_hash=entries[1],
        notes=notes[0],
        notes_hash=notes[1],
        seal=str(statement["seal"]),
        signed_at=signer.now,
        key_id=str(statement["key_id"]),
        public_key=str(receipt["public_key"]),
        signature=str(receipt["signature"]),
        statement=canonical_json(statement),
    )


def acta_session_close_record(*, session: Session, user: User | None = None) -> ActaNote:
    """Record in ``session``'s acta, as its last note, that it closed (R61 h)): when, and the
    ball-set checks (R23) and replacements (R61 k) as they stood, so the end and the equipment's
    record are chained like the games. Call it inside the transaction that closes the session;
    ``user`` None: the system. Recording it again returns the note."""
    with transaction.atomic():
        acta = _locked_acta(session.pk)
        existing = acta.notes.filter(kind=ActaNote.Kind.SESSION_CLOSED).first()
        if existing is not None:
            return existing
        header = session_header_data(session=session)
        if header["session"]["end"] is None:
            raise ValidationError(_("Only a session that has ended is closed in its acta."))
        closing = {"end": header["session"]["end"], **session_equipment_data(session=session)}
        return _note_add(
            acta=acta, kind=ActaNote.Kind.SESSION_CLOSED, user=user, now=timezone.now(), closing=closing
        )


# --- R51-R52: the cards destroyed ---------------------------------------------------------------------


def _card_items(cards: Iterable[Card]) -> list[dict[str, int]]:
    return [{"series": series, "card": number} for series, number in sorted(set(cards))]


def _sold(card: Card, ranges: list[tuple[int, int, int]]) -> bool:
    return any(series == card[0] and first <= card[1] <= last for series, first, last in ranges)


def game_cards_destroy_record(
    *, game: Game, user: User, evidence: Iterable[Card] = (), reason: str = ""
) -> ActaNote:
    """R51: record in the acta that the cards ``game`` played were collected and destroyed when it
    ended, except its winning cards (kept 8 days, R52) and the ``evidence`` cards
    (``(series order number, card number)``, sold in this game) that may prove an offence and
    go to the regulator with the acta, for the ``reason`` given. The hall's callers and
    managers record it, once per game."""
    evidence = sorted(set(evidence))
    reason = reason.strip()
    if evidence and not reason:
        raise ValidationError(_("Say why the cards kept as evidence may prove an offence (R51)."))
    with transaction.atomic():
        game = locks.game_lock(game_id=game.pk)  # then the acta: the lock order (docs/architecture.md)
        if not _may_write(user, game.session.room.hall_id):
            raise ValidationError(_("Only the hall's callers and managers write in its acta."))
        if game.state not in selectors.ENDED_STATES:
            raise ValidationError(_("A game's cards are destroyed once it has ended (R51)."))
        if (
            game.state == GameState.FINISHED
            and GameSeries.objects.filter(game=game, **selectors.DOUBLES_PLAYED_AGAIN).exists()
        ):
            raise ValidationError(
                _("Game %(n)d sold double cards: they are destroyed after their second game (R15, R51).")
                % {"n": game.number}
            )
        acta = _locked_acta(game.session_id)
        if ActaNote.objects.filter(acta=acta, kind=ActaNote.Kind.CARDS_DESTROYED, game=game).exists():
            raise ValidationError(_("The destruction of these cards is already recorded."))
        sold = selectors.game_cards_sold(game=game)
        for card in evidence:
            if not _sold(card, sold):
                raise ValidationError(
                    _("Card %(card)d of series %(series)d was not played in game %(n)d.")
                    % {"series": card[0], "card": card[1], "n": game.number}
                )
        winning = selectors.game_winning_cards(game=game)
        if ActaNote.objects.filter(
            acta=acta, kind=ActaNote.Kind.WINNING_CARDS_DESTROYED, game=game
        ).exists() and set(evidence) & set(winning):
            raise ValidationError(_("This game's winning cards are already recorded destroyed (R52)."))
        destroyed = cards_destroyed(sold=sold, kept=[*winning, *evidence])
        return _note_add(
            acta=acta,
            kind=ActaNote.Kind.CARDS_DESTROYED,
            user=user,
            now=timezone.now(),
            text=reason,
            game=game,
            cards={
                "destroyed": [{"series": s, "first": a, "last": b} for s, a, b in destroyed],
                "evidence": _card_items(evidence),
                "kept": _card_items(c for c in winning if c not in set(evidence)),
            },
        )


@dataclass(frozen=True)
class WinningCardsRun:
    """What ``winning_cards_destroy_due`` did: the notes it recorded, and the games whose cards
    are due but held by a pending complaint (with that complaint)."""

    recorded: tuple[ActaNote, ...]
    held: tuple[selectors.WinningCardsKept, ...]


def winning_cards_destroy_due(
    *, now: datetime | None = None, user: User | None = None, hall_ids: Iterable[int] | None = None
) -> WinningCardsRun:
    """R52: record destroyed the winning cards of every finished game (of ``hall_ids``, or of every
    hall) whose 8 days, counted on its hall's clock, are over at ``now`` and not yet recorded,
    except those a pending complaint on the game or its session holds; cards kept as evidence
    (R51) stay with the regulator. Recorded by ``user`` (a manager who asked) or, with none, by
    the system (the daily task). Each game in its own transaction; running it again records
    nothing twice."""
    now = now or timezone.now()
    hall_ids = None if hall_ids is None else list(hall_ids)
    if user is not None and not user.is_superuser:
        managed = hall_ids is not None and all(
            staff_has_role(user=user, hall_id=h, role=Role.MANAGER) for h in hall_ids
        )
        if not managed:
            raise ValidationError(_("Only the hall's managers record its cards destroyed."))
    recorded: list[ActaNote] = []
    held: list[selectors.WinningCardsKept] = []
    for kept in selectors.winning_cards_kept_list(now=now, hall_ids=hall_ids):
        if not kept.due:
            continue
        if kept.held_by is not None:
            held.append(kept)
            continue
        with transaction.atomic():
            acta = _locked_acta(kept.game.session_id)
            # Under the acta's lock: another run (a second worker, the manager's button) may
            # have recorded it, or a complaint arrived, since the list was read.
            if ActaNote.objects.filter(
                acta=acta, kind=ActaNote.Kind.WINNING_CARDS_DESTROYED, game_id=kept.game.pk
            ).exists():
                continue
            if any(
                c.game_id in (None, kept.game.pk)
                for c in selectors.complaints_pending(session_ids=[kept.game.session_id])
            ):
                continue
            recorded.append(
                _note_add(
                    acta=acta,
                    kind=ActaNote.Kind.WINNING_CARDS_DESTROYED,
                    user=user,
                    now=timezone.now(),
                    game=kept.game,
                    cards={"destroyed": _card_items(kept.to_destroy), "evidence": _card_items(kept.evidence)},
                )
            )
    return WinningCardsRun(tuple(recorded), tuple(held))


def acta_failure_record(
    *, game: Game, user: User, failure: str, manual_from_ball: int | None = None
) -> ActaNote:
    """R55, R61 l): record in the acta an equipment failure in ``game`` and what was done, in the
    hall's language (R54): the game suspended before its first ball, or, from
    ``manual_from_ball`` on, continued by manual extraction."""
    with translation.override(settings.LANGUAGE_CODE):
        if manual_from_ball is None:
            measure = _("Game %(n)d suspended before its first ball (R55).") % {"n": game.number}
        else:
            measure = _("Game %(n)d continued by manual extraction from ball %(ball)d (R55).") % {
                "n": game.number,
                "ball": manual_from_ball,
            }
    return acta_note_record(
        session=game.session,
        kind=ActaNote.Kind.EQUIPMENT_FAILURE,
        user=user,
        text=failure,
        decision=measure,
        game=game,
    )
