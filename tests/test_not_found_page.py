"""A page not found is the site's own, in Portuguese, also with debug on (`make run`), where
Django's technical page (English) used to show (issue 25); the API keeps its JSON 404."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_address_answers_the_sites_404_in_portuguese(
    client: Client, settings: Any, debug: bool
) -> None:
    settings.DEBUG = debug

    response = client.get("/nao-existe/")

    assert response.status_code == 404
    body = response.content.decode()
    assert "<h1>Página não encontrada</h1>" in body
    assert "URLconf" not in body


def test_a_developer_may_ask_for_djangos_technical_page(client: Client, settings: Any) -> None:
    settings.DEBUG = True
    settings.BINGO_TECHNICAL_404 = True

    assert "URLconf" in client.get("/nao-existe/").content.decode()


def test_the_api_keeps_its_json_404(client: Client, settings: Any) -> None:
    settings.DEBUG = True

    response = client.get("/api/nao-existe/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
