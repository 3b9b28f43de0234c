"""Reads of the players' complaints: the player's own, and the ones a manager decides."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from bingo.common.roles import Role
from bingo.models import Game, Player, PlayerComplaint, Sale
from halls.selectors import hall_list_for


def _joined() -> QuerySet[PlayerComplaint]:
    return PlayerComplaint.objects.select_related(
        "player__user", "game__session__room__hall", "decided_by", "complaint_note", "decision_note"
    )


def complaint_list_for_player(*, player: Player) -> QuerySet[PlayerComplaint]:
    """``player``'s complaints, newest first (never another player's)."""
    return _joined().filter(player=player).order_by("-filed_at", "-pk")


def complaint_game_get(*, player: Player, game_id: int) -> Game:
    """A game ``player`` bought cards in, with its session, room and hall; Game.DoesNotExist for
    any other (another player's games are not found, never refused by name)."""
    return (
        Game.objects.filter(pk=game_id, pk__in=Sale.objects.filter(buyer=player).values("game_id"))
        .select_related("session__room__hall")
        .get()
    )


def complaint_by_game(*, player: Player, game_ids: Iterable[int]) -> dict[int, list[PlayerComplaint]]:
    """``player``'s complaints about each of ``game_ids``, oldest first, by game id (one query)."""
    found: dict[int, list[PlayerComplaint]] = {}
    for complaint in _joined().filter(player=player, game_id__in=list(game_ids)).order_by("filed_at", "pk"):
        found.setdefault(complaint.game_id, []).append(complaint)
    return found


def complaint_list_for_staff(
    *, user: AbstractBaseUser | AnonymousUser, open_only: bool | None = None
) -> QuerySet[PlayerComplaint]:
    """The complaints about the games of the halls ``user`` manages: open ones first (oldest
    first, the next to decide), then decided ones (newest decision first)."""
    found = _joined().filter(game__session__room__hall__in=hall_list_for(user, Role.MANAGER))
    if open_only is True:
        found = found.filter(decided_at__isnull=True)
    elif open_only is False:
        found = found.filter(decided_at__isnull=False)
    return (
        found.order_by("-decided_at", "filed_at", "pk")
        if open_only is False
        else found.order_by("filed_at", "pk")
    )


def complaint_get_for_staff(*, user: AbstractBaseUser | AnonymousUser, complaint_id: int) -> PlayerComplaint:
    """One complaint of the halls ``user`` manages; PlayerComplaint.DoesNotExist for any other."""
    return complaint_list_for_staff(user=user).get(pk=complaint_id)
