"""Websocket routes. Consumers authenticate, join a group and relay; they decide nothing."""

from django.urls import URLPattern, path

from bingo.live.consumers import ConsoleConsumer, DisplayConsumer, PriceBoardConsumer
from bingo.live.players import PlayerGameConsumer

websocket_urlpatterns: list[URLPattern] = [
    # The price board of a game (R29): public, like the page that opens it.
    path("ws/quadro/<int:game_id>/", PriceBoardConsumer.as_asgi()),
    # A room's display (R13, R28): public, opened by the room's signed token.
    path("ws/ecra/<str:token>/", DisplayConsumer.as_asgi()),
    # A caller's console of one game: callers of the game's hall only.
    path("ws/locutor/<int:game_id>/", ConsoleConsumer.as_asgi()),
    # An online player's game screen (R94-R97): players of the game's operator only.
    path("ws/online/game/<int:game_id>/", PlayerGameConsumer.as_asgi()),
]
