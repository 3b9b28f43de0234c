"""The row locks of the rooms, sessions, games and series, taken in the one order every service
follows (docs/architecture.md, "Lock order"):

1. the online room (``online_room_lock``);
2. the session (``session_lock``);
3. the game, several in the order of their keys (``game_lock``, ``games_lock``);
4. then, each by its own service: the ball sets, the hall's jackpot, the session's acta, the
   prize shares being paid, and the players' wallets (in the order of their keys; an online
   purchase's first lock, ``bingo.players.services.wallet_lock``), each wallet before its
   player's play session;
5. last of all, the series on sale, in the order of their keys (``game_series_lock``,
   ``series_lock``): nothing of this order is locked after one.

A transaction takes a row only while it holds none that comes later. The desk's locked sale locks
its game before the series, and the close the game, the jackpot, then the series, so a sale
either goes through before the close and is counted, or waits and sees the game closed. An online
purchase locks its buyer's wallet, then, with its last statement, the series: the series row,
which every purchase of the game queues on, is held from there to the commit only.

Every lock is FOR NO KEY UPDATE (``no_key=True``), the lock PostgreSQL's own UPDATE takes, never
FOR UPDATE. Django's foreign keys are checked at commit (DEFERRABLE INITIALLY DEFERRED): a new row
then takes a key share of each row it names (a sale of its game and series, an acta note of its
game, a prize's winner of its series), the last lock of its transaction, which only FOR UPDATE
(a deletion) blocks. So those checks never wait for a lock of this order. Only the row locked
is locked (``of=("self",)``): the rows joined to it are read, not locked.

Rows a transaction created itself are held by no one else: they may come in any order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypedDict

from django.db.models import F

from bingo.models import Game, OnlineRoom, Session
from cards.models import Series

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    class _InGame(TypedDict):
        position: int
        start: int

    #: A series of a game, with its ``position`` there and the ``start`` number of its sale.
    SeriesInGame = WithAnnotations[Series, _InGame]


def online_room_lock(*, room_id: int) -> OnlineRoom:
    """Lock online room ``room_id`` (its room and hall joined, not locked): first of all."""
    return (
        OnlineRoom.objects.select_for_update(of=("self",), no_key=True)
        .select_related("room__hall")
        .get(pk=room_id)
    )


def session_lock(*, session_id: int) -> Session:
    """Lock session ``session_id`` (its room, hall and online room joined, not locked): before
    its games."""
    return (
        Session.objects.select_for_update(of=("self",), no_key=True)
        .select_related("room__hall", "room__online")
        .get(pk=session_id)
    )


def game_lock(*, game_id: int) -> Game:
    """Lock game ``game_id`` (its session, room, hall and online room joined, not locked): after
    its session, before its jackpot, acta and series."""
    return (
        Game.objects.select_for_update(of=("self",), no_key=True)
        .select_related("session__room__hall", "session__room__online")
        .get(pk=game_id)
    )


def games_lock(*, game_ids: Iterable[int]) -> dict[int, Game]:
    """Lock the games ``game_ids`` in the order of their keys (a session's games in their
    order); by key."""
    locked = (
        Game.objects.select_for_update(of=("self",), no_key=True)
        .select_related("session__room__hall")
        .filter(pk__in=list(game_ids))
        .order_by("pk")
    )
    return {game.pk: game for game in locked}


def game_series_lock(*, game_id: int) -> list[SeriesInGame]:
    """Lock the series of game ``game_id`` (on sale, or played again: R15), in the order of their
    keys, each with its ``position`` in the game and the ``start`` number of its sale there.
    Call it holding the game's lock, as late as the work allows: sales queue on these rows."""
    return list(
        Series.objects.select_for_update(of=("self",), no_key=True)
        .filter(games__game_id=game_id)
        .annotate(position=F("games__position"), start=F("games__start_number"))
        .order_by("pk")
    )


def series_lock(*, series_ids: Iterable[int]) -> dict[int, Series]:
    """Lock the series ``series_ids`` in the order of their keys (a game's sales opening on
    them, its lock held); by key."""
    locked = (
        Series.objects.select_for_update(of=("self",), no_key=True)
        .filter(pk__in=list(series_ids))
        .order_by("pk")
    )
    return {series.pk: series for series in locked}
