"""Websocket routes. Consumers authenticate, join a group and relay; they decide nothing."""

from django.urls import URLPattern, path

from bingo.consumers import PriceBoardConsumer

websocket_urlpatterns: list[URLPattern] = [
    # The price board of a game (R29): public, like the page that opens it.
    path("ws/quadro/<int:game_id>/", PriceBoardConsumer.as_asgi()),
]
