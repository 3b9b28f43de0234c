"""A player's standing orders for a room's next games (buying ahead, issue 25; R93): the
player's orders and their fills, the terms an order placed now pins, the orders a game whose sales
opened fills, the lobby's view, and why an order ended or skipped a game, said in the reader's
language."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common import bounds
from bingo.common.money import money_display
from bingo.common.patterns import pattern_stored_normal, pattern_stored_of
from bingo.models import (
    ORDER_SKIPS_MAX,
    FillSkip,
    Game,
    GameState,
    OnlineOrder,
    OnlineOrderFill,
    OnlineRoom,
    OrderEnd,
    Player,
)
from bingo.online.selectors.rooms import STRIP_CARDS, online_series_pick, room_games_ahead
from cards.models import VARIANT_CHOICES

#: How long the lobby still shows an order that ended for a reason other than its completion or
#: its cancel (a refusal, the room's closing, an exclusion or a break, too many games skipped).
ENDED_SHOWN_FOR = timedelta(hours=24)
#: The ends the lobby shows for a while, with why.
ENDS_SHOWN = (OrderEnd.REFUSED, OrderEnd.ROOM_CLOSED, OrderEnd.BARRED, OrderEnd.SKIPPED)
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


def player_open_order(*, player: Player, online_room: OnlineRoom) -> OnlineOrder | None:
    """``player``'s open order in ``online_room`` (one at most, the database holds it), or None."""
    return OnlineOrder.objects.filter(player=player, online_room=online_room, ended_at__isnull=True).first()


def room_has_open_orders(*, online_room_id: int) -> bool:
    """Whether any order of the room is still open: a game whose sales open then queues its fill."""
    return OnlineOrder.objects.filter(online_room_id=online_room_id, ended_at__isnull=True).exists()


def game_orders_due(*, game: Game) -> list[int]:
    """The ids of the open orders ``game`` fills, oldest first: its room's, placed before its
    sales opened (R93: an order fills only a game whose sales opened for everyone after it was
    placed) and not yet filled (nor skipped) in it. None before its sales open."""
    if game.sales_opened_at is None:
        return []
    return list(
        OnlineOrder.objects.filter(online_room_id=game.session.room_id, ended_at__isnull=True)
        .filter(Q(fills_after__isnull=True) | Q(fills_after__lt=game.sales_opened_at))
        .exclude(fills__game=game)
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)
    )


def games_filled_together(*, game: Game) -> list[Game]:
    """``game`` and the games of its session selling beside it (a session's games open together,
    R93), lowest number first: the orders are filled game by game in that order, so an order with
    one game left buys in the session's first, whichever game's task runs first."""
    return list(
        Game.objects.filter(
            Q(pk=game.pk)
            | Q(session_id=game.session_id, state=GameState.SELLING.value, sales_opened_at__isnull=False)
        )
        .select_related("session__room__hall", "session__room__online")
        .order_by("number", "pk")
    )


@dataclass(frozen=True)
class OrderTerms:
    """What a standing order pins, as the player saw it: the card's price, the variant and the
    75-ball pattern (``pattern_stored_normal``; blank for the full card and other variants)."""

    price: Decimal
    variant: str
    pattern: str


def order_terms(*, online_room: OnlineRoom) -> OrderTerms | None:
    """The terms an order placed now in ``online_room`` pins, those the lobby shows for its next
    games: a session's first game whose sales are not open yet (its price, variant and pattern,
    R92, kept since it was scheduled); with none (a continuous room's next games are created as
    they come, R90), the room's variant and pattern at the price of its game selling now, else of
    the online series it sells next. None when no price is known (nothing to sell)."""
    ahead = room_games_ahead(online_room=online_room, limit=bounds.BUY_AHEAD_GAMES_MAX)
    planned = next((g for g in ahead if g.state == GameState.PLANNED.value and g.price is not None), None)
    if planned is not None and planned.price is not None:
        pattern = pattern_stored_of(planned.win_rules) if planned.variant == "75" else ""
        return OrderTerms(planned.price, planned.variant, pattern)
    variant = online_room.variant
    pattern = pattern_stored_normal(online_room.pattern) if variant == "75" else ""
    selling = next(
        (
            g
            for g in ahead
            if g.state == GameState.SELLING.value and g.variant == variant and g.price is not None
        ),
        None,
    )
    if selling is not None and selling.price is not None:
        return OrderTerms(selling.price, variant, pattern)
    series = online_series_pick(
        hall=online_room.room.hall, variant=variant, strips=online_room.strips and variant == "90"
    )
    return OrderTerms(series.price, variant, pattern) if series is not None else None


def variant_name(variant: str) -> str:
    """A variant as the screens name it («90 bolas»), in the current language."""
    return str(dict(VARIANT_CHOICES).get(variant, variant))


def order_end_text(order: OnlineOrder) -> str:
    """Why ``order`` ended, in the current language: a refusal as the purchase said it (kept),
    every other end from its code (the room closed, R101, too many games skipped); blank while
    open, completed or cancelled."""
    if order.end_reason == OrderEnd.REFUSED:
        return order.end_text
    if order.end_reason == OrderEnd.ROOM_CLOSED:
        return _("The room was closed to players: the order buys nothing more.")
    if order.end_reason == OrderEnd.BARRED:
        return _("Responsible gaming (R101): an exclusion or a break began, so the order buys nothing more.")
    if order.end_reason == OrderEnd.SKIPPED:
        return _(
            "No game matched the order's price, variant and pattern, or could sell it its cards, "
            "in %(n)d games: the order buys nothing more."
        ) % {"n": ORDER_SKIPS_MAX}
    return ""


def fill_text(fill: OnlineOrderFill) -> str:
    """What a game of an order came to, in the current language: blank when it bought; the
    player's refusal as it was said; or why it was skipped (the operator's side), the order
    going on. Reads the fill's game and order (and its room's hall for a price)."""
    if fill.sale_id is not None:
        return ""
    number = fill.game.number
    if fill.skip == FillSkip.NOT_SELLING:
        return _(
            "Game %(n)d: its sales had closed when the order came to buy (R93). Skipped; the order goes on."
        ) % {"n": number}
    if fill.skip == FillSkip.PRICE:
        currency = fill.order.online_room.room.hall.currency
        return _(
            "Game %(n)d sells cards at %(price)s and the order was placed at %(ordered)s: skipped, "
            "never bought at another price; the order goes on."
        ) % {
            "n": number,
            "price": money_display(fill.game.price, currency) if fill.game.price is not None else "—",
            "ordered": money_display(fill.order.price, currency),
        }
    if fill.skip == FillSkip.VARIANT:
        return _(
            "Game %(n)d is played with %(variant)s and the order is for %(ordered)s: skipped; "
            "the order goes on."
        ) % {
            "n": number,
            "variant": variant_name(fill.game.variant),
            "ordered": variant_name(fill.order.variant),
        }
    if fill.skip == FillSkip.PATTERN:
        return _(
            "Game %(n)d's bingo is another pattern than the order's (R73 b)): skipped; the order goes on."
        ) % {"n": number}
    if fill.skip == FillSkip.UNAVAILABLE:
        return _("Game %(n)d could not sell the cards (%(why)s): skipped; the order goes on.") % {
            "n": number,
            "why": fill.refusal.rstrip("."),
        }
    return fill.refusal


@dataclass(frozen=True)
class LobbyOrder:
    """A standing order as the lobby shows it: open (games left, cancel, the last game it skipped
    and why), or ended not long ago for a reason the player should see (why)."""

    order: OnlineOrder
    cards: int
    strips: int
    #: Why it ended (an ended order), in the reader's language.
    end_note: str
    #: The last game an open order skipped, and why.
    skip_note: str

    @property
    def is_open(self) -> bool:
        return self.order.is_open


def lobby_orders(*, player: Player, now: datetime | None = None) -> dict[int, list[LobbyOrder]]:
    """``player``'s orders the lobby shows, by room: the open ones, and those ended in the last
    ``ENDED_SHOWN_FOR`` for a reason of ``ENDS_SHOWN`` (with the reason), oldest first. One query
    for the orders, one for the games they did not buy in."""
    since = (now or timezone.now()) - ENDED_SHOWN_FOR
    orders = (
        OnlineOrder.objects.filter(player=player)
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gte=since, end_reason__in=ENDS_SHOWN))
        .select_related("online_room__room__hall")
        .prefetch_related(
            Prefetch(
                "fills",
                queryset=OnlineOrderFill.objects.filter(sale__isnull=True)
                .select_related("game")
                .order_by("created_at", "pk"),
                to_attr="unbought",
            )
        )
        .order_by("created_at", "pk")
    )
    by_room: dict[int, list[LobbyOrder]] = {}
    for order in orders:
        unbought: list[OnlineOrderFill] = getattr(order, "unbought", [])
        for fill in unbought:
            fill.order = order
        end_note = "" if order.is_open else order_end_text(order)
        skips = [fill for fill in unbought if fill.skip]
        skip_note = fill_text(skips[-1]) if order.is_open and skips else ""
        strips = order.quantity // STRIP_CARDS if order.online_room.strips else 0
        by_room.setdefault(order.online_room_id, []).append(
            LobbyOrder(order, order.quantity, strips, end_note, skip_note)
        )
    return by_room


#: The most fills the player's history lists, newest first.
FILLS_LISTED = 100


@dataclass(frozen=True)
class HistoryFill:
    """A game an order came to as the history lists it: bought, refused or skipped, and why."""

    fill: OnlineOrderFill
    result: str
    note: str


def player_order_fills(*, player: Player, limit: int = FILLS_LISTED) -> list[HistoryFill]:
    """The games ``player``'s standing orders bought into, were refused in or skipped, newest
    first, each with its order, room, game and sale, and why it bought nothing (R100: the history
    lists them)."""
    fills = (
        OnlineOrderFill.objects.filter(order__player=player)
        .select_related("order__online_room__room__hall", "game", "sale")
        .order_by("-created_at", "-pk")[:limit]
    )
    return [
        HistoryFill(
            fill,
            "bought" if fill.sale_id is not None else "skipped" if fill.skip else "refused",
            fill_text(fill),
        )
        for fill in fills
    ]
