"""Web pages of the cards app (manager screens, print downloads, the public card check).

Paths are Portuguese (R54); names are English.
"""

from django.urls import URLPattern, path

from cards import views
from cards.printing import views as printing_views

app_name = "cards"
urlpatterns: list[URLPattern] = [
    path("cartoes/conjuntos/", views.card_set_list, name="card_set_list"),
    path("cartoes/conjuntos/novo/", views.card_set_create, name="card_set_create"),
    path("cartoes/conjuntos/<int:pk>/", views.card_set_detail, name="card_set_detail"),
    path("cartoes/conjuntos/<int:pk>/estado/", views.card_set_status, name="card_set_status"),
    path("cartoes/conjuntos/<int:pk>/comparar/", views.card_set_compare, name="card_set_compare"),
    path("cartoes/series/", views.series_list, name="series_list"),
    path("cartoes/series/nova/", views.series_create, name="series_create"),
    path("cartoes/series/<int:pk>/", views.series_detail, name="series_detail"),
    path("cartoes/series/<int:pk>/imprimir/", printing_views.series_print, name="series_print"),
    path("cartoes/series/<int:pk>/retirar/", views.series_retire, name="series_retire"),
    path("cartoes/impressoes/<int:pk>/estado/", printing_views.print_job_status, name="print_job_status"),
    path("cartoes/impressoes/<int:pk>/pdf/", printing_views.print_job_download, name="print_job_download"),
    # Printed QR codes point here: /verificar/?serie=<series id>&cartao=<n>&codigo=<code>
    path("verificar/", views.card_check, name="card_check"),
]
