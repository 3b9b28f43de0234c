"""The web app's three files, served by Django so that each sits at the path and with the headers
a browser needs: the manifest (``/manifest.webmanifest``), the service worker at the site's root
(``/sw.js``, whose scope is then every page) and the offline page (``/offline/``) the worker
shows when a page cannot be reached. Public: none of them shows anything of a player."""

from __future__ import annotations

import hashlib
import json

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from bingo.common.roles import Role

#: The background and the theme: the site header's navy (static/css/app.css --c-header).
THEME_COLOUR = "#0d2240"
BACKGROUND_COLOUR = "#f4f6fb"
#: The icons (static/icons/), made by scripts/make_icons.py.
ICON_SIZES = (192, 512)
#: What the worker keeps at install: what the offline page needs, and the player's pages' look.
PRECACHED_STATIC = (
    "css/app.css",
    "css/online.css",
    "js/a11y.js",
    "js/pwa.js",
    *(f"icons/icon-{size}.png" for size in ICON_SIZES),
)


@require_GET
@cache_control(public=True, max_age=3600)
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest: the player's dashboard as the app, in the request's language
    (Portuguese unless the player chose English, R54)."""
    data = {
        "name": _("Bingo: the player's area"),
        "short_name": _("Bingo"),
        "description": _("Play bingo online: your games, your cards, your wallet."),
        "lang": get_language(),
        "start_url": reverse(Role.PLAYER.dashboard_url_name),
        "scope": "/",
        "display": "standalone",
        "background_color": BACKGROUND_COLOUR,
        "theme_color": THEME_COLOUR,
        "icons": [
            {
                "src": static(f"icons/icon-{size}.png"),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": "any",
            }
            for size in ICON_SIZES
        ],
    }
    return JsonResponse(
        data, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False}
    )


@require_GET
@cache_control(no_cache=True)
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker (templates/pwa/sw.js) with what it caches. Its cache is named after a
    hash of those URLs: a deploy whose static files changed (new hashed names) changes the
    worker's bytes, so the browser installs it afresh and it drops the old cache. Never cached
    by HTTP (a browser checks it for updates at each visit anyway)."""
    config = {
        "offline": reverse("pwa:offline"),
        "static": static(""),
        "precache": [static(path) for path in PRECACHED_STATIC],
    }
    config_json = json.dumps(config, sort_keys=True)
    config["version"] = hashlib.sha256(config_json.encode()).hexdigest()[:16]
    response = render(
        request,
        "pwa/sw.js",
        {"config": json.dumps(config, sort_keys=True)},
        content_type="text/javascript; charset=utf-8",
    )
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    """The page the service worker shows when the network fails: the game goes on at the
    server, the player's cards play and prizes are credited (R99)."""
    return render(request, "pwa/offline.html")
