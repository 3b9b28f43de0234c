"""Writes of the acta (R58-R61): each game recorded as it ends, the session's notes, and the
check that the next game may start (R60).

``acta_record_game`` runs inside the transaction that finishes or annuls the game
(``bingo.draw.services.prize_award`` and ``game_annul``): the game ends and is recorded, or
neither. Every record is insert-only and chained (``bingo.engine.acta``); the acta's row is
locked while a record is added, after the game's row when there is one, so two records never
take the same position.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from actas import selectors
from actas.models import Acta, ActaEntry, ActaNote
from bingo.common.roles import Role
from bingo.engine.acta import GENESIS, link_make
from bingo.games.exports import game_export_data, session_header_data
from bingo.models import Game, GameState, Session
from halls.selectors import staff_has_role

#: R52: winning cards are kept this long after their game before they are destroyed.
WINNING_CARDS_KEPT = timedelta(days=8)


def _locked_acta(session_id: int) -> Acta:
    """The session's acta, created on its first record, locked until the transaction ends (its
    session, room and hall joined, not locked)."""
    locked = Acta.objects.select_for_update(of=("self",)).select_related("session__room__hall")
    acta = locked.filter(session_id=session_id).first()
    if acta is None:
        Acta.objects.get_or_create(session_id=session_id)
        acta = locked.get(session_id=session_id)
    return acta


def _who(user: User | None) -> dict[str, Any] | None:
    return {"id": user.pk, "username": user.get_username()} if user is not None else None


def _when(moment: Any, time_zone: str) -> str:
    return str(moment.astimezone(ZoneInfo(time_zone)).isoformat())


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
        last = acta.entries.order_by("-position").values_list("position", "content_hash").first()
        position, previous_hash = (last[0] + 1, last[1]) if last is not None else (1, GENESIS)
        # R61: the hall and the session with its start (a)), then the game as it ended (b)-(i)).
        header = session_header_data(session=acta.session)
        export = game_export_data(game=game)
        kind = ActaEntry.Kind.FINISHED if state == GameState.FINISHED.value else ActaEntry.Kind.ANNULLED
        now = timezone.now()
        link = link_make(
            position=position,
            previous_hash=previous_hash,
            body={
                "record": "game",
                "hall": header["hall"],
                "session": header["session"],
                "game": export["number"],
                "kind": kind.value,
                "recorded_at": _when(now, header["hall"]["time_zone"]),
                "recorded_by": _who(user),
                # The notes recorded so far: deleting the last of them leaves no gap in their
                # chain, but this entry still names them.
                "notes": selectors.notes_head(acta=acta),
                "export": export,
            },
        )
        return ActaEntry.objects.create(
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
    (R61 l), an occurrence that may involve an offence (R61 m), or the destruction of a game's
    cards (R51) and of its winning cards after 8 days (R52). Only the hall's callers and
    managers record notes; nothing recorded is changed afterwards."""
    if kind not in ActaNote.Kind.values:
        raise ValidationError(_("Unknown kind of note."))
    note_kind = ActaNote.Kind(kind)
    text, decision = text.strip(), decision.strip()
    with transaction.atomic():
        session = Session.objects.select_related("room__hall").get(pk=session.pk)
        hall = session.room.hall
        if not (
            user.is_superuser
            or staff_has_role(user=user, hall_id=hall.pk, role=Role.CALLER)
            or staff_has_role(user=user, hall_id=hall.pk, role=Role.MANAGER)
        ):
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
        if note_kind in _DESTRUCTION:
            _check_destruction(acta, note_kind, game)
        last = acta.notes.order_by("-position").values_list("position", "content_hash").first()
        position, previous_hash = (last[0] + 1, last[1]) if last is not None else (1, GENESIS)
        now = timezone.now()
        link = link_make(
            position=position,
            previous_hash=previous_hash,
            body={
                "record": "note",
                "session": session.pk,
                "kind": note_kind.value,
                "text": text,
                "decision": decision,
                "game": game.number if game is not None else None,
                "refers_to": refers_to.position if refers_to is not None else None,
                "recorded_at": _when(now, hall.time_zone),
                "recorded_by": _who(user),
            },
        )
        return ActaNote.objects.create(
            acta=acta,
            position=link.position,
            kind=note_kind,
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


def _check_destruction(acta: Acta, kind: ActaNote.Kind, game: Game | None) -> None:
    """R51: a game's cards are destroyed once it has ended; R52: its winning cards 8 days later.
    Each is recorded once."""
    if game is None:
        raise ValidationError(_("Say which game's cards were destroyed."))
    if kind == ActaNote.Kind.CARDS_DESTROYED:
        if game.state not in selectors.ENDED_STATES:
            raise ValidationError(_("A game's cards are destroyed once it has ended (R51)."))
    else:
        if game.state != GameState.FINISHED.value or game.finished_at is None:
            raise ValidationError(_("Only a finished game has winning cards to destroy (R52)."))
        kept_until = game.finished_at + WINNING_CARDS_KEPT
        if timezone.now() < kept_until:
            when = timezone.localtime(kept_until, ZoneInfo(acta.session.room.hall.time_zone))
            raise ValidationError(
                _("Winning cards are kept for 8 days after their game (R52): until %(date)s at %(time)s.")
                % {"date": when.strftime("%d/%m/%Y"), "time": when.strftime("%H:%M")}
            )
    if ActaNote.objects.filter(acta=acta, kind=kind, game=game).exists():
        raise ValidationError(_("The destruction of these cards is already recorded."))


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
