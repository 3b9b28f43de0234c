"""No English on a Portuguese screen (issue 25 point 4): every page each demo user reaches from
their dashboard, two links deep, reads with no raw code («finished», «annulled», «line»,
«Atlantic/Cape_Verde», «line=20») and no money or date in a second format («1500.00 CVE»,
«2026-11-28 07:49»). The page's text is read as a person sees it: tags, scripts and styles out."""

from __future__ import annotations

import html
import re
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from bingo.autodraw.services import online_reconcile
from bingo.demohall.services import demo_bots_buy

pytestmark = pytest.mark.django_db

ENGLISH_OR_CODE = re.compile(
    r"\b(finished|annulled|selling|planned|sales_closed|suspended|drawing|four_corners|full card|"
    r"Atlantic/\w+|Europe/\w+|line=|bingo=\d|Page not found|None|True|False)\b"
)
SECOND_FORMAT = re.compile(r"\b\d+\.\d\d (CVE|EUR)\b|\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b")
SKIP = ("/static/", "/admin/", "/api/", "/sair", "/entrar", "/ecra/", "/quadro/")
USERS = {
    "gerente": "/gerente/",
    "caixa": "/caixa/",
    "locutor": "/locutor/",
    "inspetor": "/inspetor/",
    "jogador": "/jogador/",
}


def visible_text(body: str) -> str:
    body = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", body)
    body = re.sub(r"(?s)<!--.*?-->|<[^>]+>", " ", body)
    return html.unescape(re.sub(r"\s+", " ", body))


def pages_of(client: Client, start: str, limit: int = 60) -> dict[str, str]:
    """``start`` and the pages it links to, two links deep: their visible text."""
    seen: dict[str, str] = {}
    frontier = [start]
    for _depth in range(3):
        following: list[str] = []
        for url in frontier:
            if url in seen or len(seen) >= limit:
                continue
            response = client.get(url)
            if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
                continue
            body = response.content.decode()
            seen[url] = visible_text(body)
            following += [
                href
                for href in re.findall(r'href="(/[^"#?]*)"', body)
                if not href.startswith(SKIP) and not href.endswith(("/pdf/", "/csv/"))
            ]
        frontier = following
    return seen


@pytest.fixture
def demo(settings: Any) -> None:
    settings.DEBUG = True
    call_command("demo_setup", stdout=StringIO())
    online_reconcile()
    demo_bots_buy()


@pytest.mark.parametrize("username", list(USERS))
def test_every_page_a_demo_user_reaches_reads_in_one_portuguese(
    demo: None, client: Client, username: str
) -> None:
    client.post("/entrar/", {"username": username, "password": f"{username}-demo"})

    pages = pages_of(client, USERS[username])

    assert len(pages) >= 3, pages.keys()
    found = {
        url: sorted(
            {m.group(0) for m in ENGLISH_OR_CODE.finditer(text)}
            | {m.group(0) for m in SECOND_FORMAT.finditer(text)}
        )
        for url, text in pages.items()
    }
    assert {url: words for url, words in found.items() if words} == {}
