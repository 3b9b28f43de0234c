"""Reads of online play (R85-R97): the online rooms, the series an online game sells, the
player's lobby and the player's view of one game (cards, marks, one to go, prizes). The player's
history of online games (R100) is the player's: bingo/players/selectors.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, Prefetch, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common.money import money_display
from bingo.draw import detection
from bingo.engine import Variant
from bingo.engine.prizes import default_plan
from bingo.engine.screen import (
    RealPart,
    ScreenAward,
    ScreenCard,
    ScreenGame,
    ScreenOutcome,
    ScreenPlayer,
    ScreenPrize,
    card_label,
    screen_state,
)
from bingo.jackpot import selectors as jackpot_selectors
from bingo.jackpot.selectors import JackpotState
from bingo.models import (
    Ball,
    Game,
    GameState,
    OnlineRoom,
    Player,
    PlayerVisit,
    Prize,
    PrizeKind,
    PrizeWinner,
    RoomMode,
    Sale,
    WalletEntry,
)
from bingo.players import selectors as player_selectors
from bingo.playtime import selectors as playtime_selectors
from bingo.sales import selectors as sales_selectors
from cards.models import CardSet, Series
from cards.selectors import card_get
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


def online_series_pick(*, hall: Hall, variant: str, price: Decimal | None = None) -> Series | None:
    """The series an online game of ``variant`` (and cards of face value ``price``) puts on
    sale: the hall's online, ready series in stock with cards left, not on sale in another game,
    not double cards (an online game plays its cards once), lowest order number first, so the
    series are sold in their order (R36-R37, R85). None when there is none. The manager's
    scheduling and the autodraw loop both pick with it."""
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
    return found.select_related("card_set").order_by("order_number").first()


def online_series_available(*, hall: Hall, variant: str, price: Decimal | None = None) -> bool:
    """Whether ``hall`` has an online series of ``variant`` (and cards of face value ``price``)
    with cards left to sell: in stock or on sale, its card set ready, not double cards. What a
    continuous room needs to be opened (R90) and each game of a scheduled session (R92);
    ``online_series_pick`` chooses among them when a game's sales open."""
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
        zone = ZoneInfo(online_room.room.hall.time_zone)
        start = datetime.fromisoformat(idle["starts_at"]).astimezone(zone).strftime("%Y-%m-%d %H:%M")
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


@dataclass(frozen=True)
class LobbyGame:
    """One coming game as the lobby lists it."""

    game: Game
    state_name: str
    price_display: str | None
    prizes: tuple[tuple[str, str], ...]
    cards_mine: int

    @property
    def selling(self) -> bool:
        return game_on_sale(game=self.game)


@dataclass(frozen=True)
class LobbyRoom:
    online_room: OnlineRoom
    games: tuple[LobbyGame, ...]


@dataclass(frozen=True)
class Lobby:
    """The player's lobby: the operator's open online rooms and their next games, the jackpot,
    the wallet's balance."""

    player: Player
    rooms: tuple[LobbyRoom, ...]
    jackpot: JackpotState
    balance: Decimal
    balance_display: str


def _prize_names() -> dict[str, str]:
    return {kind.value: str(kind.label) for kind in PrizeKind}


def online_lobby(*, player: Player) -> Lobby:
    """What the player's lobby shows (R94: the rooms open to them and the games to buy)."""
    hall = Hall.objects.get(pk=player.hall_id)
    names = _prize_names()
    mine = {
        row["game_id"]: row["n"]
        for row in Sale.objects.filter(buyer=player, game__state__in=COMING_STATES)
        .values("game_id")
        .annotate(n=Sum("quantity"))
        .order_by()
    }
    rooms = []
    for online_room in OnlineRoom.objects.filter(room__hall=hall, active=True).select_related("room__hall"):
        games = []
        for game in room_game_list(online_room=online_room):
            figures = sales_selectors.game_board_figures(game=game)
            games.append(
                LobbyGame(
                    game=game,
                    state_name=str(GameState(game.state).label),
                    price_display=money_display(game.price, hall.currency)
                    if game.price is not None
                    else None,
                    prizes=tuple((names.get(p.kind.value, p.kind.value), p.display) for p in figures.prizes),
                    cards_mine=mine.get(game.pk, 0),
                )
            )
        rooms.append(LobbyRoom(online_room, tuple(games)))
    balance = player_selectors.wallet_balance(player=player)
    return Lobby(
        player=player,
        rooms=tuple(rooms),
        jackpot=jackpot_selectors.jackpot_state(hall=hall),
        balance=balance,
        balance_display=money_display(balance, hall.currency),
    )


def online_game_get(*, player: Player, game_id: int) -> Game:
    """A game of one of the player's operator's online rooms; Game.DoesNotExist otherwise."""
    return Game.objects.select_related("session__room__hall", "session__room__online").get(
        pk=game_id, session__room__hall_id=player.hall_id, session__room__online__isnull=False
    )


def _screen_cards(sales: list[Sale]) -> list[ScreenCard]:
    """The player's cards in ``sales`` (their rows read one by one), in the order bought."""
    return [
        ScreenCard(
            series=sale.series.label,
            series_id=sale.series_id,
            number=number,
            label=card_label(sale.series.label, number),
            grid=card_get(card_set=sale.series.card_set, number=number),
        )
        for sale in sales
        for number in range(sale.first_number, sale.last_number + 1)
    ]


def _screen_awarded(game: Game, mine: set[tuple[int, int]], currency: str) -> dict[str, ScreenAward]:
    """The prizes awarded in ``game`` by kind, with their winning cards and whether one is in ``mine``."""
    with_cards = Prefetch("cards", queryset=PrizeWinner.objects.select_related("series"))
    awarded = {}
    for prize in Prize.objects.filter(game=game).prefetch_related(with_cards):
        winners = list(prize.cards.all())
        awarded[prize.kind] = ScreenAward(
            winners=tuple(card_label(w.series.label, w.card_number) for w in winners),
            each=money_display(prize.amount_each, currency),
            mine=any((w.series_id, w.card_number) in mine for w in winners),
        )
    return awarded


def _screen_outcome(*, player: Player, game: Game, currency: str) -> ScreenOutcome:
    """R99: what ``game`` left the player with once over (prizes are paid when it ends and
    refunds when it is null: nothing to read before)."""
    over = game.state in (GameState.FINISHED.value, GameState.ANNULLED.value)
    outcome = (
        game_outcome(player=player, game=game)
        if over
        else GameOutcome(game, False, False, "", Decimal("0.00"), Decimal("0.00"), Decimal("0.00"))
    )
    return ScreenOutcome(
        over=outcome.over,
        annulled=outcome.annulled,
        reason=outcome.reason,
        credited=f"{outcome.credited:.2f}",
        credited_display=money_display(outcome.credited, currency),
        refunded=f"{outcome.refunded:.2f}",
        refunded_display=money_display(outcome.refunded, currency),
    )


def player_game_state(*, player: Player, game: Game) -> dict[str, Any]:
    """Everything the player's game screen shows, as JSON, built by the engine's ``screen_state``
    (as the demo's is): the game's stage, the balls (the last large), the player's cards with their
    marks and, per card, the prizes one number away (R95), the prizes with their winners and
    whether the player won one (R97), the wallet's balance, the marking chosen (R96), the choices
    open now (R94), what the game left the player with (R99) and the play session (R101)."""
    game = Game.objects.select_related("session__room__hall", "session__room__online").get(pk=game.pk)
    hall = game.session.room.hall
    online_room = game.session.room.online
    balls = list(Ball.objects.filter(game=game).order_by("position").values_list("number", flat=True))
    rules = detection.game_rules(game)
    sales = list(
        Sale.objects.filter(game=game, buyer=player).select_related("series__card_set").order_by("pk")
    )
    mine = {(s.series_id, n) for s in sales for n in range(s.first_number, s.last_number + 1)}
    awarded = _screen_awarded(game, mine, hall.currency)
    cards = _screen_cards(sales)
    names = _prize_names()
    prizes = [
        ScreenPrize(
            kind=p.kind.value,
            name=names.get(p.kind.value, p.kind.value),
            amount=f"{p.amount:.2f}",
            display=p.display,
        )
        for p in sales_selectors.game_board_figures(game=game).prizes
    ]
    balance = player_selectors.wallet_balance(player=player)
    price = game.price
    return screen_state(
        game=ScreenGame(
            id=game.pk,
            number=game.number,
            room=game.session.room.name,
            variant=game.variant,
            state=game.state,
            state_name=str(GameState(game.state).label),
            price=f"{price:.2f}" if price is not None else None,
            price_display=money_display(price, hall.currency) if price is not None else None,
            sales_close_at=game.sales_close_at.isoformat() if game.sales_close_at else None,
            ball_interval=f"{game.ball_interval}" if game.ball_interval is not None else None,
        ),
        rules=rules,
        balls=balls,
        cards=cards,
        prizes=prizes,
        awarded=awarded,
        player=ScreenPlayer(
            marking=player.marking,
            balance=f"{balance:.2f}",
            balance_display=money_display(balance, hall.currency),
            cards_bought=sum(s.quantity for s in sales),
            card_limit=hall.card_limit_per_player,
        ),
        selling=game_on_sale(game=game) and online_room is not None and online_room.active,
        part=RealPart(
            outcome=_screen_outcome(player=player, game=game, currency=hall.currency),
            playtime=playtime_selectors.playtime_state(player=player),
        ),
    )


# --- what happened while the player was away (R99) ---------------------------------------------------


@dataclass(frozen=True)
class GameOutcome:
    """What an online game left one player with: over or not, null (R98) and why, the prizes
    credited to their wallet (net of tax) and the stake refunded."""

    game: Game
    over: bool
    annulled: bool
    reason: str
    credited: Decimal
    refunded: Decimal
    staked: Decimal

    @property
    def won(self) -> bool:
        return self.credited > 0


def game_outcome(*, player: Player, game: Game) -> GameOutcome:
    """R99: the player's result in ``game`` as their wallet shows it, whether or not they were
    connected when it was decided (prizes are paid by the system, R97; a null game refunds)."""
    return game_outcomes(player=player, games=[game])[0]


def game_outcomes(*, player: Player, games: list[Game]) -> list[GameOutcome]:
    """``game_outcome`` for each of ``games``, in their order, in three queries for all of them
    (the lobby reads many)."""
    ids = [game.pk for game in games]
    if not ids:
        return []
    credits = WalletEntry.objects.filter(player=player)
    credited = dict(
        credits.filter(kind=WalletEntry.Kind.PRIZE, prize_payment__winner__prize__game_id__in=ids)
        .values("prize_payment__winner__prize__game_id")
        .annotate(s=Sum("amount"))
        .order_by()
        .values_list("prize_payment__winner__prize__game_id", "s")
    )
    refunded = dict(
        credits.filter(kind=WalletEntry.Kind.REFUND, refund__game_id__in=ids)
        .values("refund__game_id")
        .annotate(s=Sum("amount"))
        .order_by()
        .values_list("refund__game_id", "s")
    )
    staked = dict(
        Sale.objects.filter(buyer=player, game_id__in=ids)
        .values("game_id")
        .annotate(s=Sum("amount"))
        .order_by()
        .values_list("game_id", "s")
    )
    zero = Decimal("0.00")
    return [
        GameOutcome(
            game=game,
            over=game.state in (GameState.FINISHED.value, GameState.ANNULLED.value),
            annulled=game.state == GameState.ANNULLED.value,
            reason=game.state_reason if game.state == GameState.ANNULLED.value else "",
            credited=credited.get(game.pk) or zero,
            refunded=refunded.get(game.pk) or zero,
            staked=staked.get(game.pk) or zero,
        )
        for game in games
    ]


#: A player never seen in the lobby before is shown the games that ended in this last stretch.
AWAY_FIRST_VISIT = timedelta(hours=24)


def player_lobby_seen_at(*, player: Player) -> datetime | None:
    """When ``player`` last opened the lobby (None: never)."""
    return PlayerVisit.objects.filter(player=player).values_list("lobby_seen_at", flat=True).first()


def player_games_ended_since(
    *, player: Player, since: datetime | None, now: datetime | None = None
) -> list[GameOutcome]:
    """R99: the online games ``player`` had cards in that ended (finished or null) after
    ``since`` (their last visit to the lobby; the last ``AWAY_FIRST_VISIT`` if never), newest
    first, each with what it left them with: the lobby's «While you were away»."""
    now = now or timezone.now()
    since = since if since is not None else now - AWAY_FIRST_VISIT
    games = list(
        Game.objects.filter(
            pk__in=Sale.objects.filter(buyer=player).values("game_id"),
            state__in=(GameState.FINISHED.value, GameState.ANNULLED.value),
            finished_at__gt=since,
            session__room__online__isnull=False,
        )
        .select_related("session__room")
        .order_by("-finished_at", "-pk")
    )
    return game_outcomes(player=player, games=games)


# --- the rules page (R103, PT-806/66, PT-803/38) -----------------------------------------------


@dataclass(frozen=True)
class RulesGame:
    """A coming game of a session room as the rules page lists it: its card price and plan."""

    game: Game
    price_display: str | None
    plan: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RulesRoom:
    """One open online room on the rules page: how it runs, the price of its cards, its prize
    plan (percent of the sales of each game, R5-R7) and the time between balls (R88)."""

    online_room: OnlineRoom
    mode_name: str
    variant_name: str
    ball_interval: Decimal
    price_display: str | None
    plan: tuple[tuple[str, str], ...]
    games: tuple[RulesGame, ...]
    jackpot: bool


def _plan_rows(shares: dict[str, str] | None, variant: str) -> tuple[tuple[str, str], ...]:
    """A plan's prizes and their percent of sales, as stored on a game or room (the variant's
    default plan when the room sets none, as the games it opens then get)."""
    names = _prize_names()
    if shares:
        return tuple(
            (names.get(kind, kind), f"{Decimal(str(share)).normalize():f}") for kind, share in shares.items()
        )
    return tuple(
        (names.get(kind.value, kind.value), f"{share.normalize():f}")
        for kind, share in default_plan(Variant(variant)).shares
    )


def rules_player(*, user: AbstractBaseUser | AnonymousUser) -> Player | None:
    """The player ``user`` is, with their hall; None for anyone else (not logged in, staff)."""
    if not user.is_authenticated:
        return None
    return Player.objects.select_related("hall").filter(user_id=user.pk).first()


def rules_hall_list(*, player: Player | None) -> QuerySet[Hall]:
    """The halls whose online rooms the rules page shows: the player's operator; for anyone else
    every hall with an open online room."""
    if player is not None:
        return Hall.objects.filter(pk=player.hall_id)
    return Hall.objects.filter(rooms__online__active=True).distinct().order_by("name")


def online_rules(*, halls: QuerySet[Hall]) -> list[RulesRoom]:
    """The open online rooms of ``halls`` with what a player needs before buying (R103,
    PT-806/66): a continuous room's card price (its next series') and plan, a session room's
    coming games with theirs; the interval between balls; whether the jackpot takes its share."""
    found = []
    for online_room in (
        OnlineRoom.objects.filter(room__hall__in=halls, active=True)
        .select_related("room__hall")
        .order_by("room__hall__name", "room__name")
    ):
        hall = online_room.room.hall
        price = None
        games: list[RulesGame] = []
        if online_room.mode == RoomMode.CONTINUOUS:
            series = online_series_pick(hall=hall, variant=online_room.variant)
            price = money_display(series.price, hall.currency) if series is not None else None
        else:
            for game in room_game_list(online_room=online_room):
                games.append(
                    RulesGame(
                        game=game,
                        price_display=money_display(game.price, hall.currency)
                        if game.price is not None
                        else None,
                        plan=_plan_rows(game.prize_plan, game.variant),
                    )
                )
        found.append(
            RulesRoom(
                online_room=online_room,
                mode_name=str(RoomMode(online_room.mode).label),
                variant_name=online_room.get_variant_display(),
                ball_interval=online_room.ball_interval,
                price_display=price,
                plan=_plan_rows(online_room.prize_plan, online_room.variant),
                games=tuple(games),
                jackpot=hall.jackpot_active,
            )
        )
    return found
