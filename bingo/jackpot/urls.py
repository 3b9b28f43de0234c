"""Pages of a hall's progressive jackpot (R9-R13), for its managers. Paths are Portuguese (R54),
names English; bingo/urls.py mounts them with the hall's pages (salas/, the "halls" namespace),
so they read ``halls:jackpot_detail`` and so on."""

from django.urls import URLPattern, path

from bingo.jackpot import views

urlpatterns: list[URLPattern] = [
    path("<int:pk>/premio-acumulado/", views.jackpot_detail, name="jackpot_detail"),
    path("<int:pk>/premio-acumulado/configurar/", views.jackpot_configure, name="jackpot_configure"),
    path(
        "<int:pk>/premio-acumulado/movimentos/",
        views.jackpot_movement_create,
        name="jackpot_movement_create",
    ),
]
