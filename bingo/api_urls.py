"""The JSON API (Django REST Framework) and its OpenAPI schema; docs/api.md tells how to use it."""

from django.urls import URLPattern, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from cards import api as cards_api

app_name = "api"

urlpatterns: list[URLPattern] = [
    # The schema and its browsable docs are public: they describe the API, not the data.
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("card-sets/", cards_api.CardSetListView.as_view(), name="card-set-list"),
    path("card-sets/<int:card_set_id>/", cards_api.CardSetDetailView.as_view(), name="card-set-detail"),
    path("card-sets/<int:card_set_id>/cards/", cards_api.CardListView.as_view(), name="card-set-cards"),
    path(
        "card-sets/<int:card_set_id>/cards/<int:number>/",
        cards_api.CardView.as_view(),
        name="card-set-card",
    ),
    path(
        "card-sets/<int:card_set_id>/compare/",
        cards_api.CardSetCompareView.as_view(),
        name="card-set-compare",
    ),
    path("series/", cards_api.SeriesListView.as_view(), name="series-list"),
    path("series/<int:series_id>/", cards_api.SeriesDetailView.as_view(), name="series-detail"),
    path("series/<int:series_id>/retire/", cards_api.SeriesRetireView.as_view(), name="series-retire"),
    path("series/<int:series_id>/pdf/", cards_api.SeriesPDFView.as_view(), name="series-pdf"),
    path("card-check/", cards_api.CardCheckView.as_view(), name="card-check"),
]
