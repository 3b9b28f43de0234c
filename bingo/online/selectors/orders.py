"""A player's standing orders for a room's next games (buying ahead, issue 25; R93): the
player's orders and their fills, the orders a game whose sales opened fills, the lobby's view."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from bingo.models import Game, OnlineOrder, OnlineOrderFill, OrderEnd, Player
from bingo.online.selectors.rooms import STRIP_CARDS

#: How long the lobby still shows an order a refusal (or the room's closing) ended, with why.
ENDED_SHOWN_FOR = timedelta(hours=24)
#: The most orders the player's list (the API's) returns, newest first.
ORDERS_LISTED = 50


def _with_fills(orders: QuerySet[OnlineOrder]) -> QuerySet[OnlineOrder]:
    return orders.select_related("online_room__room__hall").prefetch_related(
        Prefetch(
            "fills",
            queryset=OnlineOrderFill.objects.select_related("game", "sale").order_by("created_at", "pk"),
        )
    )


def player_order_list(*, player: Player, limit: int = ORDERS_LISTED) -> list[OnlineOrder]:
    """``player``'s standing orders, newest first, each with its room and fills (oldest first)."""
    return list(_with_fills(OnlineOrder.objects.filter(player=player)).order_by("-created_at", "-pk")[:limit])


def player_order_get(*, player: Player, order_id: int) -> OnlineOrder:
    """One of ``player``'s orders with its fills; OnlineOrder.DoesNotExist otherwise (another
    player's too)."""
    return _with_fills(OnlineOrder.objects.filter(player=player)).get(pk=order_id)


def room_has_open_orders(*, online_room_id: int) -> bool:
    """Whether any order of the room is still open: a game whose sales open then queues its fill."""
    return OnlineOrder.objects.filter(online_room_id=online_room_id, ended_at__isnull=True).exists()


def game_orders_due(*, game: Game) -> list[int]:
    """The ids of the open orders ``game`` fills, oldest first: its room's, placed before its
    sales opened (R93: an order fills only a game whose sales opened for everyone after it was
    placed) and not yet filled in it. None before its sales open."""
    if game.sales_opened_at is None:
        return []
    return list(
        OnlineOrder.objects.filter(online_room_id=game.session.room_id, ended_at__isnull=True)
        .filter(Q(fills_after__isnull=True) | Q(fills_after__lt=game.sales_opened_at))
        .exclude(fills__game=game)
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)
    )


@dataclass(frozen=True)
class LobbyOrder:
    """A standing order as the lobby shows it: open (games left, cancel), or ended by a refusal
    or the room's closing not long ago (why)."""

    order: OnlineOrder
    cards: int
    strips: int
    last_refusal: str

    @property
    def is_open(self) -> bool:
        return self.order.is_open


def lobby_orders(*, player: Player, now: datetime | None = None) -> dict[int, list[LobbyOrder]]:
    """``player``'s orders the lobby shows, by room: the open ones, and those a refusal or the
    room's closing ended in the last ``ENDED_SHOWN_FOR`` (with the reason), oldest first. One
    query for the orders, one for their refusals."""
    since = (now or timezone.now()) - ENDED_SHOWN_FOR
    orders = (
        OnlineOrder.objects.filter(player=player)
        .filter(
            Q(ended_at__isnull=True)
            | Q(ended_at__gte=since, end_reason__in=(OrderEnd.REFUSED, OrderEnd.ROOM_CLOSED))
        )
        .select_related("online_room")
        .prefetch_related(
            Prefetch(
                "fills",
                queryset=OnlineOrderFill.objects.exclude(refusal="").order_by("created_at", "pk"),
                to_attr="refusals",
            )
        )
        .order_by("created_at", "pk")
    )
    by_room: dict[int, list[LobbyOrder]] = {}
    for order in orders:
        refusals = getattr(order, "refusals", [])
        last = order.end_text or (refusals[-1].refusal if refusals else "")
        strips = order.quantity // STRIP_CARDS if order.online_room.strips else 0
        by_room.setdefault(order.online_room_id, []).append(LobbyOrder(order, order.quantity, strips, last))
    return by_room


#: The most fills the player's history lists, newest first.
FILLS_LISTED = 100


def player_order_fills(*, player: Player, limit: int = FILLS_LISTED) -> list[OnlineOrderFill]:
    """The games ``player``'s standing orders bought into or were refused in, newest first, each
    with its order, room, game and sale (R100: the history lists them)."""
    return list(
        OnlineOrderFill.objects.filter(order__player=player)
        .select_related("order__online_room__room", "game", "sale")
        .order_by("-created_at", "-pk")[:limit]
    )
