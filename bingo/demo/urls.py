"""Pages of demo mode (R102). Paths are Portuguese, names English; bingo/urls.py mounts them
under demo/ in the "demo" namespace."""

from django.urls import URLPattern, path

from bingo.demo import views

app_name = "demo"

urlpatterns: list[URLPattern] = [
    path("", views.home, name="home"),
    path("creditos/", views.grant, name="grant"),
    path("sala/<int:room_id>/jogar/", views.start, name="start"),
    path("jogo/<int:game_id>/", views.game_page, name="game"),
]
