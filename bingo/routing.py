"""Websocket routes. Consumers authenticate, join a group and relay; they decide nothing."""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
