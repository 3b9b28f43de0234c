"""Every error of the API is JSON labelled as JSON (issue 26): a PDF's or a stream's 404 asked
for as a PDF or as JSON lines, a path no route matches (a negative id), and a server error.
The site's pages keep their HTML 404."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from bingo.common.roles import Role
from tests.conftest import MakeUser

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager(client: Client, make_user: MakeUser) -> Client:
    client.force_login(make_user(Role.MANAGER))
    client.cookies["django_language"] = "en"
    return client


def _json_404(response: object) -> dict[str, str]:
    assert response.status_code == 404  # type: ignore[attr-defined]
    assert response["Content-Type"] == "application/json"  # type: ignore[index]
    return response.json()  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize("series", [0, 999999])
def test_the_404_of_a_pdf_asked_for_as_a_pdf_is_json(manager: Client, series: int) -> None:
    response = manager.get(f"/api/series/{series}/pdf/?format=pdf")

    assert _json_404(response) == {"detail": f"There is no series {series}."}


def test_the_404_of_a_pdf_asked_for_by_its_accept_header_is_json(manager: Client) -> None:
    response = manager.get("/api/series/999999/pdf/", HTTP_ACCEPT="application/pdf")

    assert _json_404(response) == {"detail": "There is no series 999999."}


def test_the_404_of_a_stream_of_json_lines_is_json(manager: Client) -> None:
    response = manager.get("/api/card-sets/999999/cards/", HTTP_ACCEPT="application/x-ndjson")

    assert _json_404(response) == {"detail": "There is no card set 999999."}


@pytest.mark.parametrize(
    "path", ["/api/halls/-1/", "/api/halls/abc/", "/api/games/-5/balls/", "/api/no-such-thing/"]
)
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_a_path_no_route_matches_under_the_api_is_a_json_404(manager: Client, path: str, method: str) -> None:
    assert _json_404(getattr(manager, method)(path)) == {"detail": "Not found."}


@override_settings(DEBUG=True)
def test_a_path_no_route_matches_is_a_json_404_in_debug_too(manager: Client) -> None:
    """`make run` serves in debug, where Django would show its technical 404 page."""
    assert _json_404(manager.get("/api/halls/-1/")) == {"detail": "Not found."}


def test_the_404_is_in_portuguese_by_default(client: Client, make_user: MakeUser) -> None:
    client.force_login(make_user(Role.MANAGER))

    assert _json_404(client.get("/api/halls/-1/")) == {"detail": "Não encontrado."}


def test_a_page_outside_the_api_keeps_its_html_404(manager: Client) -> None:
    response = manager.get("/no-such-page/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_server_error_under_the_api_is_json(manager: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    from halls import api

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(api.selectors, "hall_list_for", broken)
    manager.raise_request_exception = False

    response = manager.get("/api/halls/")

    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "A server error occurred."}
