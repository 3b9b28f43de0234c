"""Writes of the audit trail: one ``AuditEvent`` per action whose own row does not say who made it.

``audit_record`` is called by the service that makes the action, inside its transaction and
never with ``transaction.on_commit``: the record is data, not a side effect, so it commits with
the action or rolls back with it, and no action commits unrecorded (R61).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from actas.audit.models import AuditAction, AuditEvent
from bingo.models import Game, Session


def audit_record(
    *,
    user: User | None,
    hall_id: int,
    action: AuditAction,
    game: Game | None = None,
    session: Session | None = None,
    detail: str = "",
) -> AuditEvent:
    """Record that ``user`` (None: the system) did ``action`` in hall ``hall_id``, in this transaction."""
    if session is None and game is not None:
        session = Session(pk=game.session_id)
    # Inside the action's own transaction (an atomic block of its own when called without one,
    # so a savepoint at most: never a commit of its own).
    with transaction.atomic():
        return AuditEvent.objects.create(
            user_id=user.pk if user is not None and user.pk is not None else None,
            hall_id=hall_id,
            action=action,
            game=game,
            session=session,
            detail=detail,
        )
