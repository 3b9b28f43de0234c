"""URL routes. Role dashboards live at Portuguese paths (R54); their names are in English."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from bingo.ballsets import urls as ballset_urls
from bingo.common.roles import Role
from bingo.jackpot import urls as jackpot_urls
from bingo.jackpot import views as jackpot_views
from bingo.players.views import PlayerDashboardView
from bingo.playtime.views import LogoutView
from halls import urls as hall_urls

#: A hall's pages, its ball sets' and its jackpot's: one "halls" namespace under salas/.
hall_pages = [*hall_urls.urlpatterns, *ballset_urls.urlpatterns, *jackpot_urls.urlpatterns]

#: The site's icon: a red bingo ball.
FAVICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    b'<circle cx="8" cy="8" r="8" fill="#b3261e"/><circle cx="8" cy="8" r="4.5" fill="#fff"/></svg>'
)


@require_GET
@cache_control(public=True, max_age=86400)
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask every site for /favicon.ico, often in parallel with the first page. Answered
    with a 404 page, which carries the header's forms, that request set a CSRF cookie of its own:
    arriving after the login page's, it made the login form's token stale (a login refused for
    CSRF). The icon sets no cookie."""
    return HttpResponse(FAVICON, content_type="image/svg+xml")


# Under /api/ a server error is JSON, like every other error there (issue 26); a path no route
# matches there is answered by bingo.api_urls's last route.
handler500 = "bingo.common.api.server_error"

urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    # The API first: every include below with an empty prefix is walked and fails (an exception
    # each) before a path is found after it, which cost an API request more than its own work.
    path("api/", include("bingo.api_urls")),
    # The web app's manifest, service worker (at the root: its scope) and offline page (R99).
    path("", include("bingo.pwa.urls")),
    path("", include("bingo.accounts.urls")),
    # The accounts' two pages whose views other features own, under unprefixed names as the
    # accounts' are. Django's LogoutView accepts POST only, so a link or a prefetch cannot log
    # anyone out; a player then sees the summary of the play session just ended
    # (bingo/playtime, PT-806/67). The player's dashboard shows the wallet's balance first
    # (bingo/players/views.py).
    path("sair/", LogoutView.as_view(), name="logout"),
    path("jogador/", PlayerDashboardView.as_view(role=Role.PLAYER), name=Role.PLAYER.dashboard_url_name),
    path("", include("cards.urls")),
    path("salas/", include((hall_pages, "halls"))),
    path("", include("bingo.games.urls")),
    path("", include("bingo.sales.urls")),
    path("", include("bingo.drawers.urls")),
    path("", include("bingo.draw.urls")),
    path("", include("actas.urls")),
    path("", include("actas.cards.urls")),
    path("", include("bingo.players.urls")),
    path("", include("bingo.playtime.urls")),
    path("", include("bingo.complaints.urls")),
    path("", include("bingo.protection.urls")),
    path("online/", include("bingo.online.urls")),
    path("demo/", include("bingo.demo.urls")),
    path("jackpot/calculadora/", jackpot_views.jackpot_calculator, name="jackpot_calculator"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
