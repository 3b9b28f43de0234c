"""Reads of sessions and games, per hall."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch, QuerySet

from bingo.common.roles import Role
from bingo.models import Game, GameSeries, Session
from halls.selectors import hall_list_for

# --- sessions and games, per hall ----------------------------------------------------------------


def session_list_for(user: AbstractBaseUser | AnonymousUser, *roles: Role) -> QuerySet[Session]:
    """The sessions of the halls where ``user`` holds one of ``roles``, newest first, with their
    room, hall and opener joined and their games prefetched in number order."""
    return (
        Session.objects.filter(room__hall__in=hall_list_for(user, *roles))
        .select_related("room__hall", "opened_by")
        .prefetch_related(Prefetch("games", queryset=Game.objects.order_by("number")))
        .order_by("-starts_at", "-pk")
    )


def game_list_for(user: AbstractBaseUser | AnonymousUser, *roles: Role) -> QuerySet[Game]:
    """The games of the halls where ``user`` holds one of ``roles``, with their session, room and
    hall joined and the series on sale prefetched in position order."""
    return (
        Game.objects.filter(session__room__hall__in=hall_list_for(user, *roles))
        .select_related("session__room__hall")
        .prefetch_related(
            Prefetch("on_sale", queryset=GameSeries.objects.select_related("series").order_by("position"))
        )
        .order_by("session", "number")
    )
