"""URL routes. Role dashboards live at Portuguese paths (R54); their names are in English."""

from django.contrib import admin
from django.urls import include, path

from bingo import jackpot_calc_views

urlpatterns = [
    path("", include("bingo.accounts.urls")),
    path("", include("cards.urls")),
    path("salas/", include("halls.urls")),
    path("", include("bingo.games.urls")),
    path("", include("bingo.sales.urls")),
    path("", include("bingo.draw.urls")),
    path("jackpot/calculadora/", jackpot_calc_views.jackpot_calculator, name="jackpot_calculator"),
    path("api/", include("bingo.api_urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
