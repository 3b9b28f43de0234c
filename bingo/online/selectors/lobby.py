"""The player's lobby (R94): the operator's open online rooms with the pattern their 75-ball
games' bingo is (R73 b)), their next games with prices, prizes, each game's own pattern and the
player's cards, the player's standing orders in each, the jackpot, the wallet's balance."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db.models import Sum

from bingo.common import bounds
from bingo.common.clock import hall_clock_text
from bingo.common.money import money_display
from bingo.common.patterns import pattern_shown, pattern_stored_shown
from bingo.jackpot import selectors as jackpot_selectors
from bingo.jackpot.selectors import JackpotState
from bingo.models import Game, GameState, OnlineRoom, Player, Sale
from bingo.online.selectors.orders import LobbyOrder, OrderTerms, lobby_orders, order_terms
from bingo.online.selectors.rooms import COMING_STATES, game_on_sale, prize_names, room_game_list
from bingo.players import selectors as player_selectors
from bingo.sales import selectors as sales_selectors
from halls.models import Hall

#: A close of sales on the hall's clock, to the second (the countdown's end).
CLOCK_SECONDS = "%H:%M:%S"


@dataclass(frozen=True)
class LobbyPrize:
    """A prize as the lobby shows it: its name, its share of the game's sales (the prize plan,
    R7) and its value so far (from the cards sold until now, R29)."""

    name: str
    share: Decimal | None
    display: str


@dataclass(frozen=True)
class LobbyGame:
    """One coming game as the lobby lists it, its times on the hall's clock: when its sales close
    (selling), or when they open (planned: at its session's start, R93)."""

    game: Game
    state_name: str
    price_display: str | None
    prizes: tuple[LobbyPrize, ...]
    cards_mine: int
    closes_at_text: str
    opens_at_text: str
    #: The pattern this game's bingo is (R73 b)), as it was when the game was created; None: the
    #: full card.
    pattern: dict[str, Any] | None = None

    @property
    def selling(self) -> bool:
        return game_on_sale(game=self.game)

    @property
    def planned(self) -> bool:
        return self.game.state == GameState.PLANNED.value


@dataclass(frozen=True)
class LobbyRoom:
    online_room: OnlineRoom
    games: tuple[LobbyGame, ...]
    #: The player's standing orders in the room: open, or ended by a refusal not long ago.
    orders: tuple[LobbyOrder, ...] = ()
    #: What an order placed now pins (the price and variant of the room's next games); None when
    #: the room has nothing to sell.
    terms: OrderTerms | None = None

    @property
    def pattern(self) -> dict[str, Any] | None:
        """The pattern of the room's 75-ball games from now on (R73 b)); None: the full card."""
        return pattern_stored_shown(self.online_room.pattern)

    @property
    def selling(self) -> tuple[LobbyGame, ...]:
        """The room's games selling now: what a purchase ahead buys into (R93)."""
        return tuple(item for item in self.games if item.selling)

    @property
    def ahead_max(self) -> int:
        """How many games a purchase ahead may take in this room (those not selling yet by a
        standing order)."""
        return bounds.BUY_AHEAD_GAMES_MAX

    @property
    def ahead_initial(self) -> int:
        """The games the lobby's form suggests: those selling now, and at least two."""
        return max(len(self.selling), 2)


@dataclass(frozen=True)
class Lobby:
    """The player's lobby: the operator's open online rooms and their next games, the jackpot,
    the wallet's balance."""

    player: Player
    rooms: tuple[LobbyRoom, ...]
    jackpot: JackpotState
    balance: Decimal
    balance_display: str
    #: The player's orders in rooms no longer open to players (their closing ended them): listed
    #: apart, with why, as the rooms themselves are not.
    closed_room_orders: tuple[LobbyOrder, ...] = ()


def _share(value: str | None) -> Decimal | None:
    """A prize plan's share (percent of sales), shown without trailing zeros ("20", "12.5")."""
    try:
        share = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return share.quantize(Decimal(1)) if share == share.to_integral_value() else share.normalize()


def _lobby_game(game: Game, hall: Hall, names: dict[str, str], cards_mine: int) -> LobbyGame:
    figures = sales_selectors.game_board_figures(game=game)
    plan = game.prize_plan or {}
    return LobbyGame(
        game=game,
        state_name=str(GameState(game.state).label),
        price_display=money_display(game.price, hall.currency) if game.price is not None else None,
        prizes=tuple(
            LobbyPrize(names.get(p.kind.value, p.kind.value), _share(plan.get(p.kind.value)), p.display)
            for p in figures.prizes
        ),
        cards_mine=cards_mine,
        closes_at_text=hall_clock_text(game.sales_close_at, hall, CLOCK_SECONDS)
        if game.sales_close_at
        else "",
        opens_at_text=hall_clock_text(game.session.starts_at, hall),
        pattern=pattern_shown(game.win_rules),
    )


def online_lobby(*, player: Player) -> Lobby:
    """What the player's lobby shows (R94: the rooms open to them and the games to buy)."""
    hall = Hall.objects.get(pk=player.hall_id)
    names = prize_names()
    mine = {
        row["game_id"]: row["n"]
        for row in Sale.objects.filter(buyer=player, game__state__in=COMING_STATES)
        .values("game_id")
        .annotate(n=Sum("quantity"))
        .order_by()
    }
    orders = lobby_orders(player=player)
    rooms = []
    for online_room in OnlineRoom.objects.filter(room__hall=hall, active=True).select_related("room__hall"):
        games = tuple(
            _lobby_game(game, hall, names, mine.get(game.pk, 0))
            for game in room_game_list(online_room=online_room)
        )
        rooms.append(
            LobbyRoom(
                online_room,
                games,
                tuple(orders.get(online_room.pk, ())),
                order_terms(online_room=online_room),
            )
        )
    balance = player_selectors.wallet_balance(player=player)
    listed = {entry.online_room.pk for entry in rooms}
    return Lobby(
        player=player,
        rooms=tuple(rooms),
        jackpot=jackpot_selectors.jackpot_state(hall=hall),
        balance=balance,
        balance_display=money_display(balance, hall.currency),
        closed_room_orders=tuple(
            item for room_id, items in orders.items() if room_id not in listed for item in items
        ),
    )
