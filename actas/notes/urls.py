"""Notes of the acta at Portuguese paths (R54), mounted under acta/; English names (``actas:``)."""

from django.urls import URLPattern, path

from actas.notes import views

urlpatterns: list[URLPattern] = [
    path("sessoes/<int:session_id>/notas/", views.session_notes, name="session_notes"),
    path("sessoes/<int:session_id>/notas/registar/", views.note_create, name="note_create"),
    path("sessoes/<int:session_id>/notas/decisao/", views.decision_create, name="decision_create"),
]
