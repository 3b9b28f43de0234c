"""URL routes. Role dashboards live at Portuguese paths (R54); their names are in English."""

from django.contrib import admin
from django.urls import include, path

from bingo.ballsets import urls as ballset_urls
from bingo.jackpot import urls as jackpot_urls
from bingo.jackpot import views as jackpot_views
from halls import urls as hall_urls

#: A hall's pages, its ball sets' and its jackpot's: one "halls" namespace under salas/.
hall_pages = [*hall_urls.urlpatterns, *ballset_urls.urlpatterns, *jackpot_urls.urlpatterns]

urlpatterns = [
    path("", include("bingo.accounts.urls")),
    path("", include("cards.urls")),
    path("salas/", include((hall_pages, "halls"))),
    path("", include("bingo.games.urls")),
    path("", include("bingo.sales.urls")),
    path("", include("bingo.draw.urls")),
    path("", include("actas.urls")),
    path("", include("actas.cards.urls")),
    path("jackpot/calculadora/", jackpot_views.jackpot_calculator, name="jackpot_calculator"),
    path("api/", include("bingo.api_urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
