"""Web pages of the halls app: manager screens, and the ball sets' also for callers (R23).
Paths are Portuguese (R54); names are English."""

from django.urls import URLPattern, path

from halls import ballset_views, jackpot_views, views

app_name = "halls"
urlpatterns: list[URLPattern] = [
    path("", views.hall_list, name="hall_list"),
    path("nova/", views.hall_create, name="hall_create"),
    path("<int:pk>/", views.hall_detail, name="hall_detail"),
    path("<int:pk>/editar/", views.hall_edit, name="hall_edit"),
    path("<int:pk>/saloes/", views.room_create, name="room_create"),
    path("<int:pk>/caixas/", views.cash_desk_create, name="cash_desk_create"),
    path("<int:pk>/pessoal/", views.staff_assign, name="staff_assign"),
    path("<int:pk>/pessoal/<int:membership_pk>/remover/", views.staff_remove, name="staff_remove"),
    # Ball sets (R20-R26) and the progressive jackpot (R9-R13) of a hall.
    path("jogos-de-bolas/", ballset_views.ball_set_halls, name="ball_set_halls"),
    path("<int:pk>/jogos-de-bolas/", ballset_views.ball_set_list, name="ball_set_list"),
    path("<int:pk>/jogos-de-bolas/novo/", ballset_views.ball_set_create, name="ball_set_create"),
    path("<int:pk>/jogos-de-bolas/<int:ball_set_pk>/", ballset_views.ball_set_detail, name="ball_set_detail"),
    path(
        "<int:pk>/jogos-de-bolas/<int:ball_set_pk>/verificacao/",
        ballset_views.ball_set_check_record,
        name="ball_set_check_record",
    ),
    path(
        "<int:pk>/jogos-de-bolas/<int:ball_set_pk>/substituir-bola/",
        ballset_views.ball_replace,
        name="ball_replace",
    ),
    path(
        "<int:pk>/jogos-de-bolas/<int:ball_set_pk>/substituir/",
        ballset_views.ball_set_replace,
        name="ball_set_replace",
    ),
    path(
        "<int:pk>/jogos-de-bolas/<int:ball_set_pk>/retirar/",
        ballset_views.ball_set_retire,
        name="ball_set_retire",
    ),
    path("<int:pk>/premio-acumulado/", jackpot_views.jackpot_detail, name="jackpot_detail"),
    path("<int:pk>/premio-acumulado/configurar/", jackpot_views.jackpot_configure, name="jackpot_configure"),
    path(
        "<int:pk>/premio-acumulado/movimentos/",
        jackpot_views.jackpot_movement_create,
        name="jackpot_movement_create",
    ),
]
