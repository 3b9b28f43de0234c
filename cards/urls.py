"""Web pages of the cards app (manager screens, print downloads, the public card check)."""

from django.urls import URLPattern

app_name = "cards"
urlpatterns: list[URLPattern] = []
