"""Faults of the system in online play (R98-R99, PT-803/33-34, PT-806/72-73).

R98: a fault on the system's side that keeps an online game from being decided makes it null,
and every card's stake goes back to the players' wallets, once. R99: a fault on the player's
side (their network, their device) changes nothing: their cards play on (the online loop,
``bingo/autodraw``, never waits for a player).

* ``online_game_fault``: a manager or caller of the hall declares it (the game's page, the API),
  or the system user when the reconciler finds it; the game is annulled through the draw's one
  refund core (``bingo.draw.services.game_refund_all``), the acta records the failure, and a
  ``GameFault`` row keeps who, when and from where (the reason lives in ``Game.state_reason``
  and the acta's note).
* ``online_game_fault_find``: the reconciler's check of one drawing game, under its lock: a ball
  ``ONLINE_FAULT_AFTER`` seconds overdue, or one whose task failed ``ONLINE_FAULT_FAILURES``
  times (``online_ball_failure_record``, called by the ball's task).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from actas import services as acta_services
from actas.models import ActaNote
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.engine.gamestate import GameState
from bingo.faults import selectors
from bingo.games import locks
from bingo.games import services as game_services
from bingo.models import (
    UNDER_WAY_STATES,
    Ball,
    BallFailure,
    DrawMode,
    FaultSource,
    Game,
    GameFault,
    OnlineRoom,
)
from halls.selectors import staff_has_role

logger = logging.getLogger(__name__)

#: Who declares a system fault on an online game (R98): the hall's managers and callers, who
#: suspend and annul its games (R55, R57), and the system user (a caller of every online hall)
#: when the reconciler finds one.
FAULT_ROLES = (Role.CALLER, Role.MANAGER)

#: The states in which a fault can still make a game null: its cards are sold or selling and it
#: is not decided yet, the games under way. A finished game was decided: its prizes stand (R99).
FAULT_STATES = UNDER_WAY_STATES


def fault_after() -> timedelta:
    """How late a ball may be before the game is declared null (settings.ONLINE_FAULT_AFTER)."""
    return timedelta(seconds=int(getattr(settings, "ONLINE_FAULT_AFTER", 300)))


def fault_failures() -> int:
    """How many times one ball's task may fail before the game is declared null."""
    return int(getattr(settings, "ONLINE_FAULT_FAILURES", 3))


def _may_declare(user: User, game: Game) -> None:
    hall_id = game.session.room.hall_id
    if not (
        user.is_superuser or any(staff_has_role(user=user, hall_id=hall_id, role=r) for r in FAULT_ROLES)
    ):
        raise ValidationError(_("Only the hall's managers and callers declare a system fault (R98)."))
    if not OnlineRoom.serves(game.session.room_id):
        raise ValidationError(
            _(
                "A system fault (R98) is declared on an online game; "
                "a game in the hall is suspended or annulled (R55, R57)."
            )
        )


def online_game_fault(
    *,
    game: Game,
    user: User,
    reason: str,
    source: str = FaultSource.OPERATOR,
    now: datetime | None = None,
) -> Game:
    """R98, PT-803/33, PT-806/72: a fault on the system's side keeps online ``game`` from being
    decided, so it is null and every card sold is refunded to its buyer's wallet, with
    ``reason`` in the acta (R61 i) the annulment, R61 l) the failure) and in the players'
    history, marked as a system fault. Declared by a manager or caller of the hall, or by the
    system user when the reconciler finds it (``source``).

    Any state not yet decided: a game still selling has its sales closed first, in a
    transaction of its own (the same locks as a sale: every card sold is counted and refunded,
    no later sale); sales closed, drawing, or suspended (at once: R55's 15 minutes are for the
    hall's own failures). Once: a game already null refunds nothing more (declared again, or
    retried, it is returned as it is). A finished game was decided: refused (R99, its prizes
    stand)."""
    reason = reason.strip()
    if not reason:
        raise ValidationError(_("Say what failed (R98)."))
    now = now or timezone.now()
    for _attempt in range(3):
        _sales_close_first(game, user)
        annulled = _fault_annul(game, user=user, reason=reason, source=source, now=now)
        if annulled is not None:
            return annulled
    raise RuntimeError(f"game {game.pk} kept selling again while its fault was declared")  # pragma: no cover


def _sales_close_first(game: Game, user: User) -> None:
    """A game still selling has its sales closed, in a transaction of its own that commits
    before the annulment: the annulment takes the buyers' wallets, which an online purchase
    holds while it waits for the series, so no transaction holds a series on sale while it waits
    for a wallet (docs/architecture.md, "Lock order"). The purchases in flight are counted by
    the close, or refused once it commits. Should the annulment then fail, the sales stay
    closed and the fault is declared again."""
    if not Game.objects.filter(pk=game.pk, state=GameState.SELLING.value).exists():
        return
    with transaction.atomic():
        closing = locks.game_lock(game_id=game.pk)
        _may_declare(user, closing)
        if closing.state == GameState.SELLING.value:
            game_services.game_close_sales(game=closing, user=user)


def _fault_annul(game: Game, *, user: User, reason: str, source: str, now: datetime) -> Game | None:
    """Annul ``game`` for a fault (R98) and refund its cards, in one transaction; None, writing
    nothing, when it is selling again (suspended and resumed since its close): its sales close
    first once more."""
    with transaction.atomic():
        # The lock order (docs/architecture.md): the game, then the jackpot, the acta and the
        # buyers' wallets; no series.
        game = locks.game_lock(game_id=game.pk)
        _may_declare(user, game)
        if game.state == GameState.ANNULLED.value:
            return game  # null already: nothing more is refunded
        if game.state == GameState.SELLING.value:
            return None
        if game.state not in FAULT_STATES:
            raise ValidationError(
                _(
                    "Game %(n)d is %(state)s: "
                    "only a game not yet decided is made null by a system fault (R98)."
                )
                % {"n": game.number, "state": Game.State(game.state).label}
            )
        # The acta is in the hall's language (R54), and so is the reason the players read.
        with translation.override(settings.LANGUAGE_CODE):
            marked = _("System fault (R98): %(reason)s") % {"reason": reason}
            measure = _("Game %(n)d is null: every card sold was refunded to the players' wallets (R98).") % {
                "n": game.number
            }
        # At once, in any state not decided (R98): none of R55's wait nor R57's balls drawn.
        game = draw_services.game_refund_all(game=game, user=user, reason=marked)
        GameFault.objects.create(game=game, source=source, declared_by=user, declared_at=now)
        acta_services.acta_note_record(
            session=game.session,
            kind=ActaNote.Kind.EQUIPMENT_FAILURE,
            user=user,
            text=marked,
            decision=measure,
            game=game,
        )
    return game


def _fault_found(game: Game, now: datetime) -> str | None:
    """Why the system cannot decide ``game`` (locked, drawing), or None if it can go on: its
    next ball ``ONLINE_FAULT_AFTER`` seconds overdue (the system was down too long to finish it
    in real time), or the same ball's task failed ``ONLINE_FAULT_FAILURES`` times."""
    if (
        game.state != GameState.DRAWING.value
        or game.draw_mode != DrawMode.ELECTRONIC
        or game.manual_from_ball is not None
    ):
        return None
    position = Ball.objects.filter(game=game).count() + 1
    failures = selectors.ball_failures_count(game=game, position=position)
    with translation.override(settings.LANGUAGE_CODE):
        if failures >= fault_failures():
            return _(
                "Ball %(position)d could not be drawn: "
                "its task failed %(count)d times with an error of the system."
            ) % {
                "position": position,
                "count": failures,
            }
        if game.next_ball_at is not None and game.next_ball_at <= now - fault_after():
            late = int((now - game.next_ball_at).total_seconds())
            return _(
                "Ball %(position)d was due %(late)d seconds ago: "
                "the system was down too long to finish the game in real time."
            ) % {"position": position, "late": late}
    return None


def online_game_fault_find(*, game_id: int, user: User, now: datetime | None = None) -> Game | None:
    """The reconciler's check of one drawing online game, under its lock: if the system cannot
    decide it (``_fault_found``), ``user`` — the system user, a caller of the game's hall —
    declares the fault (R98) and the game is null, every card refunded; otherwise nothing (a
    ball drawn meanwhile, a short gap). Returns the game made null, or None."""
    now = now or timezone.now()
    with transaction.atomic():
        game = locks.game_lock(game_id=game_id)
        reason = _fault_found(game, now)
        if reason is None:
            return None
        logger.warning("online game %s: system fault declared: %s", game.pk, reason)
        return online_game_fault(game=game, user=user, reason=reason, source=FaultSource.SYSTEM, now=now)


def online_ball_failure_record(*, game_id: int, position: int, error: str) -> None:
    """Record that ball ``position`` of ``game_id``'s task failed with an error it did not
    expect (its transaction undone, nothing drawn): counted by the reconciler (R98). Never
    raises: a database that is down cannot record it, and the ball is overdue anyway."""
    try:
        with transaction.atomic():
            BallFailure.objects.create(
                game_id=game_id, position=position, error=error[:2000], at=timezone.now()
            )
    except Exception:
        logger.exception("online game %s: the failure of ball %s could not be recorded", game_id, position)


__all__ = [
    "FAULT_ROLES",
    "FAULT_STATES",
    "fault_after",
    "fault_failures",
    "online_ball_failure_record",
    "online_game_fault",
    "online_game_fault_find",
]
