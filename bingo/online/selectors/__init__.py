"""Reads of online play (R85-R99, R103), one module per seam, every name re-exported here so
``from bingo.online import selectors`` reads them all:

* ``rooms`` — the online rooms, whether a game sells now (R93), the series an online game puts
  on sale (R36-R37, R85), why a room is idle, its coming games, the prizes' names;
* ``outcomes`` — what a game left a player with as their wallet shows it (R99), the games that
  ended while they were away;
* ``lobby`` — the player's lobby (R94);
* ``screen`` — the player's game screen (R94-R97), built by ``bingo/engine/screen.py`` as the
  demo's is (``bingo/demo/selectors.py``);
* ``rules`` — the rules page (R103);
* ``orders`` — the player's standing orders for a room's next games and the orders a game whose
  sales opened fills (buying ahead, R93).

``lobby``, ``screen`` and ``rules`` import ``rooms``, ``outcomes`` and ``orders``, never one
another. The
player's history of online games (R100) is the player's: ``bingo/players/selectors.py``.
"""

from bingo.online.selectors.lobby import Lobby, LobbyGame, LobbyRoom, online_lobby
from bingo.online.selectors.orders import (
    ENDED_SHOWN_FOR,
    FILLS_LISTED,
    ORDERS_LISTED,
    HistoryFill,
    LobbyOrder,
    OrderTerms,
    fill_text,
    game_orders_due,
    games_filled_together,
    lobby_orders,
    order_end_text,
    order_terms,
    player_open_order,
    player_order_fills,
    player_order_get,
    player_order_list,
    room_has_open_orders,
    variant_name,
)
from bingo.online.selectors.outcomes import (
    AWAY_FIRST_VISIT,
    GameOutcome,
    game_outcome,
    game_outcomes,
    player_games_ended_since,
    player_lobby_seen_at,
)
from bingo.online.selectors.rooms import (
    COMING_STATES,
    IDLE_NO_SERIES,
    IDLE_SESSION_NO_SERIES,
    LOBBY_GAMES,
    STRIP_CARDS,
    RoomIdle,
    game_on_sale,
    game_sells_strips,
    online_room_get,
    online_room_idle,
    online_room_list,
    online_series_available,
    online_series_pick,
    prize_names,
    room_game_list,
    room_games_ahead,
)
from bingo.online.selectors.rules import RulesGame, RulesRoom, online_rules, rules_hall_list, rules_player
from bingo.online.selectors.screen import (
    online_game_get,
    online_game_offer_get,
    online_game_offers_forget,
    player_game_state,
)

__all__ = [
    "AWAY_FIRST_VISIT",
    "COMING_STATES",
    "ENDED_SHOWN_FOR",
    "FILLS_LISTED",
    "IDLE_NO_SERIES",
    "IDLE_SESSION_NO_SERIES",
    "LOBBY_GAMES",
    "ORDERS_LISTED",
    "STRIP_CARDS",
    "GameOutcome",
    "HistoryFill",
    "Lobby",
    "LobbyGame",
    "LobbyOrder",
    "LobbyRoom",
    "OrderTerms",
    "RoomIdle",
    "RulesGame",
    "RulesRoom",
    "fill_text",
    "game_on_sale",
    "game_orders_due",
    "game_outcome",
    "game_outcomes",
    "game_sells_strips",
    "games_filled_together",
    "lobby_orders",
    "online_game_get",
    "online_game_offer_get",
    "online_game_offers_forget",
    "online_lobby",
    "online_room_get",
    "online_room_idle",
    "online_room_list",
    "online_rules",
    "online_series_available",
    "online_series_pick",
    "order_end_text",
    "order_terms",
    "player_game_state",
    "player_games_ended_since",
    "player_lobby_seen_at",
    "player_open_order",
    "player_order_fills",
    "player_order_get",
    "player_order_list",
    "prize_names",
    "room_game_list",
    "room_games_ahead",
    "room_has_open_orders",
    "rules_hall_list",
    "rules_player",
    "variant_name",
]
