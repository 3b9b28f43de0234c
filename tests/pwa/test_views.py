"""The web app's files (issue 25 point 6, bingo/pwa): the manifest, the service worker at the
site's root and the offline page (R99), and which pages link them."""

from __future__ import annotations

import json
import re
from io import BytesIO
from typing import Any

import pytest
from django.test import Client
from PIL import Image

from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.django_db

OFFLINE_TEXT = (
    "Está sem ligação. O jogo continua no servidor: os seus cartões jogam e os prémios são "
    "creditados (R99). Volte a ligar-se para ver o resultado."
)


def _worker_config(body: str) -> dict[str, Any]:
    found = re.search(r"^var CONFIG = (\{.*\});$", body, re.MULTILINE)
    assert found, body[:400]
    return dict(json.loads(found.group(1)))


def test_the_manifest_names_the_players_app_in_portuguese_with_its_icons() -> None:
    response = Client().get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == "Bingo: a área do jogador"
    assert manifest["short_name"] == "Bingo"
    assert manifest["lang"] == "pt"
    assert manifest["start_url"] == "/jogador/"
    assert manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    assert [(i["sizes"], i["type"]) for i in manifest["icons"]] == [
        ("192x192", "image/png"),
        ("512x512", "image/png"),
    ]


def test_the_manifests_icons_are_pngs_of_their_size() -> None:
    client = Client()
    for icon in json.loads(client.get("/manifest.webmanifest").content)["icons"]:
        response = client.get(icon["src"])
        assert response.status_code == 200, icon["src"]
        content = b"".join(response.streaming_content) if response.streaming else response.content
        with Image.open(BytesIO(content)) as image:
            assert image.format == "PNG"
            assert f"{image.width}x{image.height}" == icon["sizes"]


def test_the_manifest_follows_the_players_language_choice() -> None:
    client = Client()
    client.cookies["django_language"] = "en"
    manifest = json.loads(client.get("/manifest.webmanifest").content)
    assert (manifest["name"], manifest["lang"]) == ("Bingo: the player's area", "en")


def test_the_service_worker_is_javascript_at_the_root_never_cached_by_http() -> None:
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Service-Worker-Allowed"] == "/"
    assert "no-cache" in response["Cache-Control"]
    body = response.content.decode()
    assert 'addEventListener("fetch"' in body
    config = _worker_config(body)
    assert config["offline"] == "/offline/"
    assert config["static"] == "/static/"
    assert "/static/css/app.css" in config["precache"]
    assert "/static/icons/icon-192.png" in config["precache"]
    assert re.fullmatch(r"[0-9a-f]{16}", config["version"])


def test_every_file_the_service_worker_keeps_is_served() -> None:
    """A file the worker cannot fetch at install makes its install fail (cache.addAll)."""
    client = Client()
    config = _worker_config(client.get("/sw.js").content.decode())
    for url in [config["offline"], *config["precache"]]:
        assert client.get(url).status_code == 200, url


def test_the_offline_page_says_the_game_goes_on_at_the_server() -> None:
    response = Client().get("/offline/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Sem ligação</h1>" in html
    assert OFFLINE_TEXT in html
    assert 'href="/jogador/"' in html
    assert "Content-Security-Policy" in response


def test_the_offline_page_shows_no_one_and_no_form_even_to_a_logged_in_player() -> None:
    """The worker keeps one copy for everyone: nothing of a player, no CSRF token in it."""
    site = OnlineSetup(name="Salão PWA")
    player = site.player("10.00", username="offline-rita")
    client = Client()
    client.force_login(player.user)
    html = client.get("/offline/").content.decode()
    assert "offline-rita" not in html
    assert "<form" not in html
    assert "csrfmiddlewaretoken" not in html


def test_the_player_pages_link_the_manifest_and_the_worker_staff_pages_do_not() -> None:
    site = OnlineSetup(name="Salão PWA")
    player = site.player("10.00", username="pwa-ana")
    as_player = Client()
    as_player.force_login(player.user)
    as_manager = Client()
    as_manager.force_login(site.manager)
    anonymous = Client()
    for client, path, linked in (
        (as_player, "/jogador/", True),
        (as_player, "/online/", True),
        (anonymous, "/entrar/", True),
        (as_manager, "/gerente/", False),
    ):
        html = client.get(path, follow=True).content.decode()
        assert ('rel="manifest" href="/manifest.webmanifest"' in html) is linked, path
        assert ('data-service-worker="/sw.js"' in html) is linked, path
        assert ("data-large-print" in html) is linked, path
