"""The online rooms (R88-R93) and what they sell: the rooms of a hall, whether a game sells now
(R93), the online series a game puts on sale (R36-R37, R85), why a room sells nothing, its coming
games; the prizes' names every online screen shows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import F, QuerySet
from django.db.models.functions import Mod
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common.clock import hall_clock_text
from bingo.engine import ALGORITHM_STRIPS
from bingo.models import Game, GameState, OnlineRoom, PrizeKind
from cards.models import CardSet, Series
from halls.models import Hall

#: The games a lobby and a room's page list: those not over yet.
COMING_STATES = (
    GameState.PLANNED.value,
    GameState.SELLING.value,
    GameState.SALES_CLOSED.value,
    GameState.DRAWING.value,
    GameState.SUSPENDED.value,
)
#: How many coming games the lobby shows per room.
LOBBY_GAMES = 6
#: A 90-ball strip: six cards holding every number 1-90 once (bingo.engine.gen90.strips).
STRIP_CARDS = 6
#: How a card set generated as strips names its algorithm (bingo.engine.ALGORITHM_STRIPS).
STRIPS_PREFIX = ALGORITHM_STRIPS.split("/")[0] + "/"


def online_room_list(*, halls: QuerySet[Hall]) -> QuerySet[OnlineRoom]:
    """The online rooms of ``halls``, with their room and hall, by hall and name."""
    return (
        OnlineRoom.objects.filter(room__hall__in=halls)
        .select_related("room__hall")
        .order_by("room__hall__name", "room__name")
    )


def online_room_get(*, halls: QuerySet[Hall], room_id: int) -> OnlineRoom:
    """One online room of ``halls``; OnlineRoom.DoesNotExist otherwise (another hall's too)."""
    return online_room_list(halls=halls).get(pk=room_id)


def game_on_sale(*, game: Game, now: datetime | None = None) -> bool:
    """Whether ``game`` sells cards now: selling, and its announced close not reached. Sales
    close for everyone at ``sales_close_at`` (R93), whether or not the reconciler has closed
    them yet (it runs every second, and not at all while beat is down)."""
    if game.state != GameState.SELLING.value:
        return False
    return game.sales_close_at is None or (now or timezone.now()) < game.sales_close_at


def _strips_only(found: QuerySet[Series]) -> QuerySet[Series]:
    """Of ``found``, the series of a card set generated as 90-ball strips of six whose next card
    begins a strip: every card before it sold in whole strips (a number after a multiple of 6),
    so a strip sold next is six cards holding 1-90 once each (bingo.engine.gen90)."""
    return (
        found.filter(card_set__algorithm__startswith=STRIPS_PREFIX)
        .annotate(strip_rest=Mod("last_sold", STRIP_CARDS))
        .filter(strip_rest=0)
    )


def game_sells_strips(*, game: Game) -> bool:
    """Whether ``game`` sells 90-ball strips of six: its room sells strips (read with the game's
    session, room and online side)."""
    online = getattr(game.session.room, "online", None)
    return online is not None and bool(online.strips) and game.variant == "90"


def online_series_pick(
    *, hall: Hall, variant: str, price: Decimal | None = None, strips: bool = False
) -> Series | None:
    """The series an online game of ``variant`` (and cards of face value ``price``) puts on
    sale: the hall's online, ready series in stock with cards left, not on sale in another game,
    not double cards (an online game plays its cards once), lowest order number first, so the
    series are sold in their order (R36-R37, R85). With ``strips`` (a room selling strips of
    six), only a series of strips whose next card begins a strip. None when there is none. The
    manager's scheduling and the autodraw loop both pick with it."""
    found = Series.objects.filter(
        hall=hall,
        online=True,
        double=False,
        status=Series.Status.IN_STOCK,
        on_sale_in__isnull=True,
        last_sold__lt=F("size"),
        card_set__status=CardSet.Status.READY,
        card_set__variant=variant,
    ).exclude(games__game__state=GameState.SELLING.value)
    if price is not None:
        found = found.filter(price=price)
    if strips:
        found = _strips_only(found)
    return found.select_related("card_set").order_by("order_number").first()


def online_series_available(
    *, hall: Hall, variant: str, price: Decimal | None = None, strips: bool = False
) -> bool:
    """Whether ``hall`` has an online series of ``variant`` (and cards of face value ``price``)
    with cards left to sell: in stock or on sale, its card set ready, not double cards (with
    ``strips``, of strips of six with whole strips left). What a continuous room needs to be
    opened (R90) and each game of a scheduled session (R92); ``online_series_pick`` chooses
    among them when a game's sales open."""
    found = Series.objects.filter(
        hall=hall,
        online=True,
        double=False,
        status__in=[Series.Status.IN_STOCK, Series.Status.ON_SALE],
        last_sold__lt=F("size"),
        card_set__status=CardSet.Status.READY,
        card_set__variant=variant,
    )
    if price is not None:
        found = found.filter(price=price)
    if strips:
        found = _strips_only(found)
    return found.exists()


#: Why an online room sells nothing (``OnlineRoom.idle["reason"]``, written by the autodraw loop).
IDLE_NO_SERIES = "no_series"
IDLE_SESSION_NO_SERIES = "session_no_series"


@dataclass(frozen=True)
class RoomIdle:
    """Why an online room sells nothing, as the autodraw loop last found it, and since when."""

    reason: str
    message: str
    since: datetime | None


def online_room_idle(*, online_room: OnlineRoom) -> RoomIdle | None:
    """Why ``online_room`` sells nothing now, in the request's language; None when nothing
    stops it (or it is closed to players, which says why by itself). The players' lobby only
    shows that no game is coming; this is for the manager."""
    idle = online_room.idle or {}
    if not online_room.active or not idle.get("reason"):
        return None
    if idle["reason"] == IDLE_SESSION_NO_SERIES:
        start = hall_clock_text(datetime.fromisoformat(idle["starts_at"]), online_room.room.hall)
        message = _(
            "The session of %(start)s cannot open: game %(n)d has no online series of variant "
            "%(variant)s at %(price)s with cards left to sell (R92, R93)."
        ) % {"start": start, "n": idle["game"], "variant": idle["variant"], "price": idle["price"]}
    else:
        message = _(
            "No online series of variant %(variant)s with cards left to sell: create one "
            "(Series → New series, «Online play» ticked) and the room opens its next game."
        ) % {"variant": idle.get("variant", online_room.variant)}
    return RoomIdle(reason=idle["reason"], message=message, since=online_room.idle_since)


def room_game_list(*, online_room: OnlineRoom, limit: int = LOBBY_GAMES) -> list[Game]:
    """The room's games not over yet, soonest first (its sessions not ended)."""
    return list(
        Game.objects.filter(
            session__room_id=online_room.pk, session__ended_at__isnull=True, state__in=COMING_STATES
        )
        .select_related("session__room__hall")
        .order_by("session__starts_at", "number")[:limit]
    )


def room_games_ahead(*, online_room: OnlineRoom, limit: int) -> list[Game]:
    """The room's next ``limit`` games a player may buy ahead for: selling or planned (its
    sessions not ended), soonest first, each read with its session, room, hall and online side
    as a purchase reads it."""
    return list(
        Game.objects.filter(
            session__room_id=online_room.pk,
            session__ended_at__isnull=True,
            state__in=(GameState.PLANNED.value, GameState.SELLING.value),
        )
        .select_related("session__room__hall", "session__room__online")
        .order_by("session__starts_at", "number")[:limit]
    )


def prize_names() -> dict[str, str]:
    """The prizes' names in the request's language, by kind, as the online screens show them."""
    return {kind.value: str(kind.label) for kind in PrizeKind}
