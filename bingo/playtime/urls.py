"""The player's play session pages, at Portuguese paths (R54); names in English."""

from django.urls import path

from bingo.playtime import views

app_name = "playtime"

urlpatterns = [
    path("jogador/sessoes/", views.session_list, name="sessions"),
    path("jogador/sessoes/limite/", views.limit, name="limit"),
    path("jogador/sessoes/resumo/", views.summary, name="summary"),
    path("jogador/sessoes/fim/", views.end, name="end"),
    path("jogador/sessoes/continuar/", views.go_on, name="continue"),
]
