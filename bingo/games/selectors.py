"""Reads of sessions and games, per hall."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection
from django.db.models import Prefetch, QuerySet, Sum, prefetch_related_objects

from bingo.common import rows
from bingo.common.roles import Role
from bingo.models import Game, GameSeries, PrizePayment, Session
from cards.models import CardSet
from halls.models import Hall, Room
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


# A game with its session, room and hall, written out for PostgreSQL: compiling the queryset
# (its joins and the model's ordering) cost the desk's sale more than the rest of its view.
_GAME_JOINED = f"""
SELECT {rows.columns(Game, "g")}, {rows.columns(Session, "s")}, {rows.columns(Room, "r")},
       {rows.columns(Hall, "h")}
  FROM bingo_game g
  JOIN bingo_session s ON s.id = g.session_id
  JOIN halls_room r ON r.id = s.room_id
  JOIN halls_hall h ON h.id = r.hall_id
 WHERE g.id = %s
"""  # noqa: S608 - the models' column names, no input


def game_get_joined(*, game_id: int, series: bool = True) -> Game | None:
    """Game ``game_id`` with its session, room and hall joined (and, with ``series``, its series
    on sale prefetched in position order, as ``game_list_for``); None when there is none."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_GAME_JOINED, [game_id])
            row = cursor.fetchone()
        if row is None:
            return None
        game, session, room, hall = rows.instances(row, Game, Session, Room, Hall)
        assert isinstance(game, Game)
        assert isinstance(session, Session)
        assert isinstance(room, Room)
        room.hall = hall  # type: ignore[assignment]
        session.room = room
        game.session = session
    else:
        try:
            game = Game.objects.select_related("session__room__hall").get(pk=game_id)
        except Game.DoesNotExist:
            return None
    if series:
        prefetch_related_objects(
            [game],
            Prefetch("on_sale", queryset=GameSeries.objects.select_related("series").order_by("position")),
        )
    return game


def session_card_set_list(*, session: Session) -> QuerySet[CardSet]:
    """The card sets of the series played in ``session``, by id: what an inspector regenerates
    and compares with their fingerprints (R14)."""
    return CardSet.objects.filter(series__games__game__session=session).distinct().order_by("pk")


def session_prizes_paid(*, session: Session) -> dict[int, Decimal]:
    """What the cash desks paid out of each game's prizes in ``session`` (gross, before tax), by game id."""
    rows = (
        PrizePayment.objects.filter(winner__prize__game__session=session)
        .values("winner__prize__game_id")
        .annotate(total=Sum("gross"))
    )
    return {row["winner__prize__game_id"]: row["total"] for row in rows}
