"""Writes of the players' complaints (R61 j), issue 13 point 6): a player files one about an
online game they bought cards in; a manager of the hall decides it. Each lands in the session's
acta through ``actas.services.acta_note_record``, in the same transaction as the complaint's row.

Who writes the complaint in the acta: the online room's caller, which is the system
(``sistema-online``, ``bingo.autodraw.services.system_user``: a caller of the hall). In a hall
the caller writes down a player's complaint as it is made; online the system receives it, so
it is in the acta the moment it is filed, with the player named in its text, and never waits on
a manager. The manager's decision is a ``DECISION`` note of its own, recorded by the manager,
referring to the complaint's note. ``acta_note_record`` refuses no note once the session is
closed (as R52's destruction, recorded days later): a complaint about a game of a closed
session, or of a continuous room's earlier day, goes into that session's acta after its closing
note (docs/complaints.md).
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from actas.models import ActaNote
from actas.services import acta_note_record
from bingo.autodraw.services import system_user
from bingo.common.roles import Role
from bingo.models import COMPLAINT_MAX_LENGTH, Game, OnlineRoom, Player, PlayerComplaint, Sale
from halls.selectors import staff_has_role


def _text_check(text: str, *, field: str, empty: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationError({field: [empty]})
    if len(text) > COMPLAINT_MAX_LENGTH:
        raise ValidationError({field: [_("At most %(n)d characters, please.") % {"n": COMPLAINT_MAX_LENGTH}]})
    return text


def complaint_game_refused_message() -> str:
    """Why a game is refused: the same words whether it is another operator's, not online, or
    one the player bought nothing in (nothing said about other players' games)."""
    return _("You can only complain about an online game you bought cards in.")


def complaint_file(*, player: Player, game: Game, text: str, now: datetime | None = None) -> PlayerComplaint:
    """File ``player``'s complaint about ``game``, an online game they bought cards in, and write
    it in the session's acta as a complaint (R61 j)), recorded by the online room's caller (the
    system), the player named."""
    text = _text_check(text, field="text", empty=_("Say what your complaint is about."))
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_related("session__room__hall").get(pk=game.pk)
        room = game.session.room
        if room.hall_id != player.hall_id or not OnlineRoom.serves(room.pk):
            raise ValidationError({"game": [complaint_game_refused_message()]})
        if not Sale.objects.filter(game=game, buyer=player).exists():
            raise ValidationError({"game": [complaint_game_refused_message()]})
        with translation.override("pt"):  # the acta is written in Portuguese (R54)
            said = _("Online player %(player)s: %(text)s") % {
                "player": player.user.get_username(),
                "text": text,
            }
        note = acta_note_record(
            session=game.session,
            kind=ActaNote.Kind.COMPLAINT,
            user=system_user(hall=room.hall),
            text=said,
            game=game,
        )
        return PlayerComplaint.objects.create(
            player=player, game=game, text=text, filed_at=now, complaint_note=note
        )


def complaint_decide(
    *, complaint: PlayerComplaint, user: User, decision: str, now: datetime | None = None
) -> PlayerComplaint:
    """Record a manager of the game's hall's ``decision`` on ``complaint``, once, and write it in
    the session's acta as a decision referring to the complaint (R61 j))."""
    decision = _text_check(decision, field="decision", empty=_("Say what was decided."))
    now = now or timezone.now()
    with transaction.atomic():
        complaint = (
            PlayerComplaint.objects.select_for_update(of=("self",))
            .select_related("game__session__room", "complaint_note")
            .get(pk=complaint.pk)
        )
        hall_id = complaint.game.session.room.hall_id
        if not staff_has_role(user=user, hall_id=hall_id, role=Role.MANAGER):
            raise ValidationError(_("Only a manager of the hall decides its players' complaints."))
        if complaint.decided_at is not None:
            raise ValidationError(_("This complaint was decided already."))
        note = acta_note_record(
            session=complaint.game.session,
            kind=ActaNote.Kind.DECISION,
            user=user,
            decision=decision,
            game=complaint.game,
            refers_to=complaint.complaint_note,
        )
        complaint.decision = decision
        complaint.decided_by = user
        complaint.decided_at = now
        complaint.decision_note = note
        complaint.save(update_fields=["decision", "decided_by", "decided_at", "decision_note"])
        return complaint
