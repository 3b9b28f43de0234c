"""Responsible gaming's pages (R101), at Portuguese paths (R54); names in English."""

from django.urls import path

from bingo.protection import views

app_name = "protection"

urlpatterns = [
    path("jogador/protecao/", views.my_protection, name="mine"),
    path("jogadores/exclusoes/", views.exclusion_list, name="exclusions"),
    path("jogadores/exclusoes/<int:exclusion_id>/levantar/", views.exclusion_lift, name="exclusion_lift"),
]
