"""``/api/`` answers with an index of the API (issue 24): where its docs and schema are, and
every path by resource, each one the schema describes."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_apis_root_lists_its_docs_schema_and_every_path(client: Client) -> None:
    response = client.get("/api/")

    assert response.status_code == 200
    index = response.json()
    assert index["docs"] == "http://testserver/api/docs/"
    assert index["schema"] == "http://testserver/api/schema/"
    assert "/api/games/{game_id}/sales/" in index["resources"]["games"]
    assert "/api/online/games/{game_id}/purchases/" in index["resources"]["online"]
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    listed = {path for paths in index["resources"].values() for path in paths}
    # Every path of the index is one the schema describes, and the schema's are all listed.
    assert listed - {"/api/schema/", "/api/docs/"} == set(schema["paths"])
    assert "/api/games/{game_id}/" in listed


def test_an_unknown_path_under_the_api_is_still_a_json_404(client: Client) -> None:
    response = client.get("/api/no-such-thing/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
