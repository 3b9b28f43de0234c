"""The player's lobby (R94): the operator's open online rooms, their next games with prices,
prizes and the player's cards, the jackpot, the wallet's balance."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Sum

from bingo.common.money import money_display
from bingo.jackpot import selectors as jackpot_selectors
from bingo.jackpot.selectors import JackpotState
from bingo.models import Game, GameState, OnlineRoom, Player, Sale
from bingo.online.selectors.rooms import COMING_STATES, game_on_sale, prize_names, room_game_list
from bingo.players import selectors as player_selectors
from bingo.sales import selectors as sales_selectors
from halls.models import Hall


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
