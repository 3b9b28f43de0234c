"""The inspector's portal at Portuguese paths (R54), mounted under inspecao/; English names."""

from django.urls import URLPattern, path

from actas import views

app_name = "actas"
urlpatterns: list[URLPattern] = [
    path("", views.hall_list, name="hall_list"),
    path("salas/<int:hall_id>/sessoes/", views.session_list, name="session_list"),
    path("sessoes/<int:pk>/", views.session_detail, name="session_detail"),
    path("sessoes/<int:pk>/acta/", views.acta_detail, name="acta_detail"),
    path("sessoes/<int:pk>/acta.pdf", views.acta_pdf, name="acta_pdf"),
    path("sessoes/<int:pk>/acta.json", views.acta_json, name="acta_json"),
    path("auditoria/", views.audit_trail, name="audit_trail"),
]
