"""Portuguese first (R54), English on request (bingo/middleware.py, locale/)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from bingo.common.roles import Role
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent


def choose_language(client: Client, language: str, next_url: str = "/entrar/") -> None:
    response = client.post("/i18n/setlang/", {"language": language, "next": next_url})
    assert response.status_code == 302
    assert response["Location"] == next_url


@pytest.mark.django_db
def test_portuguese_by_default_even_when_the_browser_asks_for_english(client: Client) -> None:
    response = client.get("/entrar/", headers={"accept-language": "en-GB,en;q=0.9"})

    body = response.content.decode()
    assert '<html lang="pt">' in body
    assert "<h1>Entrar</h1>" in body
    assert response["Content-Language"] == "pt"


@pytest.mark.django_db
def test_english_after_choosing_it(client: Client) -> None:
    choose_language(client, "en")

    response = client.get("/entrar/")

    body = response.content.decode()
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert '<html lang="en">' in body
    assert "<h1>Log in</h1>" in body
    assert "Username" in body
    assert response["Content-Language"] == "en"


@pytest.mark.django_db
def test_back_to_portuguese_after_choosing_it(client: Client) -> None:
    choose_language(client, "en")
    choose_language(client, "pt")

    assert "<h1>Entrar</h1>" in client.get("/entrar/").content.decode()


@pytest.mark.django_db
def test_dashboard_follows_the_chosen_language(client_as: Callable[..., Client]) -> None:
    client = client_as(Role.MANAGER)
    assert "<h1>Painel do gerente</h1>" in client.get("/gerente/").content.decode()

    choose_language(client, "en", next_url="/gerente/")

    body = client.get("/gerente/").content.decode()
    assert "<h1>Manager dashboard</h1>" in body
    assert "Card prices" in body  # a duty's title, in English too


@pytest.mark.django_db
@pytest.mark.parametrize("cookie", ["fr", "xx-invalid", ""])
def test_an_unsupported_language_cookie_falls_back_to_portuguese(client: Client, cookie: str) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = cookie
    response = client.get("/entrar/", headers={"accept-language": "en"})
    assert "<h1>Entrar</h1>" in response.content.decode()
    assert response["Content-Language"] == "pt"


@pytest.mark.django_db
def test_a_regional_variant_cookie_maps_to_the_supported_language(client: Client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en-us"
    assert "<h1>Log in</h1>" in client.get("/entrar/").content.decode()


@pytest.mark.django_db
def test_pages_vary_on_the_cookie_that_carries_the_language(client: Client) -> None:
    response = client.get("/entrar/")
    assert "Cookie" in response["Vary"]


@pytest.mark.django_db
def test_language_switch_offers_both_languages_by_their_own_names(client: Client) -> None:
    body = client.get("/entrar/").content.decode()
    assert 'name="language" value="pt"' in body
    assert 'name="language" value="en"' in body
    assert ">Português</button>" in body
    assert ">English</button>" in body


def test_the_portuguese_catalogue_is_complete_and_compiled() -> None:
    check_messages = load_script("check_messages")
    po_path = ROOT / "locale" / "pt" / "LC_MESSAGES" / "django.po"

    assert po_path in check_messages.catalogues()
    assert check_messages.problems(po_path) == []
    assert check_messages.check() == []
