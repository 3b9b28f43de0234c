"""One navigation across the hall's management (issue 24): a manager finds the same links on a
hall's, a session's, an online room's and the card stock's pages."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from bingo.common.roles import Role

pytestmark = pytest.mark.django_db

PAGES = (
    "halls:hall_list",
    "games:session_list",
    "online:room_list",
    "cards:series_list",
    "cards:card_set_list",
)


def nav_links(body: str) -> list[str]:
    nav = re.search(r'<nav class="subnav" aria-label="[^"]*">(.*?)</nav>', body, re.S)
    assert nav is not None
    return re.findall(r'href="([^"]+)"', nav.group(1))


def test_the_manager_sees_one_navigation_on_every_management_page(client_as: Callable[..., Client]) -> None:
    client = client_as(Role.MANAGER)

    navs = {name: nav_links(client.get(reverse(name)).content.decode()) for name in PAGES}

    first = navs[PAGES[0]]
    assert all(links == first for links in navs.values()), navs
    for name in PAGES:
        assert reverse(name) in first
    assert reverse("halls:ball_set_halls") in first
    assert reverse("complaints:staff_list") in first
