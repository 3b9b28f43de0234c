"""The acta's pages at Portuguese paths (R54), English names: the inspector's portal under
inspecao/, and the notes the caller and the manager record under acta/ (actas/notes/)."""

from django.urls import URLPattern, URLResolver, include, path

from actas import views
from actas.notes import urls as notes_urls

app_name = "actas"
portal: list[URLPattern] = [
    path("", views.hall_list, name="hall_list"),
    path("salas/<int:hall_id>/sessoes/", views.session_list, name="session_list"),
    path("sessoes/<int:pk>/", views.session_detail, name="session_detail"),
    path("sessoes/<int:pk>/acta/", views.acta_detail, name="acta_detail"),
    path("sessoes/<int:pk>/acta.pdf", views.acta_pdf, name="acta_pdf"),
    path("sessoes/<int:pk>/acta.json", views.acta_json, name="acta_json"),
    path("sessoes/<int:pk>/acta.verificavel.json", views.acta_file, name="acta_file"),
    path("sessoes/<int:pk>/recibos/<int:number>.json", views.acta_receipt, name="acta_receipt"),
    path("auditoria/", views.audit_trail, name="audit_trail"),
]
urlpatterns: list[URLPattern | URLResolver] = [
    path("inspecao/", include(portal)),
    path("acta/", include(notes_urls.urlpatterns)),
]
