"""/favicon.ico: an icon, never the 404 page, and no cookie (a CSRF cookie set by a browser's
parallel favicon request once made the login form's token stale)."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.mark.django_db
def test_the_favicon_is_an_icon_that_sets_no_cookie() -> None:
    response = Client().get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg")
    assert not response.cookies  # in particular no csrftoken


@pytest.mark.django_db
def test_a_page_not_found_sets_the_csrf_cookie_that_the_favicon_no_longer_triggers() -> None:
    # Why it matters: the 404 page carries the header's forms, so it sets a CSRF cookie.
    assert "csrftoken" in Client().get("/no-such-page/").cookies
