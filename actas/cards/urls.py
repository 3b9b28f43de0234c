"""The manager's cards page (R51-R52) at Portuguese paths (R54); English names."""

from django.urls import URLPattern, path

from actas.cards import views

app_name = "acta_cards"
urlpatterns: list[URLPattern] = [
    path("cartoes/", views.cards_home, name="home"),
    path("salas/<int:hall_id>/cartoes/", views.cards_page, name="hall"),
    path(
        "salas/<int:hall_id>/cartoes/destruir-premiados/",
        views.winning_cards_destroy,
        name="winning_cards_destroy",
    ),
    path("jogadas/<int:game_id>/cartoes/destruir/", views.game_cards_destroy, name="game_cards_destroy"),
]
