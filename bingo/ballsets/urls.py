"""Pages of a hall's ball sets (R20-R26), for its managers and callers (R23). Paths are
Portuguese (R54), names English; bingo/urls.py mounts them with the hall's pages (salas/, the
"halls" namespace), so they read ``halls:ball_set_list`` and so on."""

from django.urls import URLPattern, path

from bingo.ballsets import views

urlpatterns: list[URLPattern] = [
    path("jogos-de-bolas/", views.ball_set_halls, name="ball_set_halls"),
    path("<int:pk>/jogos-de-bolas/", views.ball_set_list, name="ball_set_list"),
    path("<int:pk>/jogos-de-bolas/novo/", views.ball_set_create, name="ball_set_create"),
    path("<int:pk>/jogos-de-bolas/<int:ball_set_pk>/", views.ball_set_detail, name="ball_set_detail"),
    path(
        "<int:pk>/jogos-de-bolas/<int:ball_set_pk>/verificacao/",
        views.ball_set_check_record,
        name="ball_set_check_record",
    ),
    path(
        "<int:pk>/jogos-de-bolas/<int:ball_set_pk>/substituir-bola/",
        views.ball_replace,
        name="ball_replace",
    ),
    path(
        "<int:pk>/jogos-de-bolas/<int:ball_set_pk>/substituir/",
        views.ball_set_replace,
        name="ball_set_replace",
    ),
    path(
        "<int:pk>/jogos-de-bolas/<int:ball_set_pk>/retirar/",
        views.ball_set_retire,
        name="ball_set_retire",
    ),
]
