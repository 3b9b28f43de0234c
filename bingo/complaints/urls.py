"""Pages of the players' complaints, at Portuguese paths (R54); names in English."""

from django.urls import URLPattern, path

from bingo.complaints import views

app_name = "complaints"

urlpatterns: list[URLPattern] = [
    path("jogador/historico/<int:game_id>/reclamar/", views.complaint_file, name="file"),
    path("reclamacoes/", views.complaint_staff_list, name="staff_list"),
    path("reclamacoes/<int:complaint_id>/", views.complaint_staff_decide, name="staff_decide"),
]
