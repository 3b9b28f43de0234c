"""The player's game page never lets an older state overwrite newer balls (R95, R96).

The page (``static/js/online_game.js``) reads the whole state again on every (re)connect, while
the websocket keeps relaying each ball. The real page and script run in Chromium; the server's
answers are the real ones (the page and ``/api/online/games/<id>/state/`` rendered by Django in
the test), but the test holds them back: ``fetch`` is stubbed to resolve only when the test says,
and the websocket is a stub the test pushes messages through. The race the page must survive:
the re-read on open is in flight → the next ball arrives and is shown → the re-read resolves
with the older state. The page must keep the newer balls and read once more afterwards.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from bingo.online import services as online_services
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.browser

ORIGIN = "http://bingo.test"

#: Stand-ins for the network, installed before the page's own scripts run.
STUBS = """
window.__sockets = [];
window.WebSocket = function (url) { this.url = url; window.__sockets.push(this); };
window.__fetches = [];
window.fetch = function (url) {
  return new Promise(function (resolve) {
    window.__fetches.push({url: String(url), answer: function (body) {
      resolve({ok: true, json: function () { return Promise.resolve(body); }});
    }});
  });
};
"""


def _relayed(state: dict[str, Any]) -> dict[str, Any]:
    """The ``game.state`` message's game for a player's ``state`` (bingo/live/players.py)."""
    game = state["game"]
    return {
        "id": game["id"],
        "balls": state["balls"],
        "last": state["last"],
        "state": game["state"],
        "state_name": game["state_name"],
        "prizes": state["prizes"],
    }


def test_r95_a_late_state_read_never_replaces_newer_balls(db: None, browser: Any) -> None:
    site = OnlineSetup()
    game = site.game(site.series(1))
    player = site.player("100.00")
    online_services.online_buy(player=player, game=game, quantity=2, key="k1")
    game = site.drawing(game)
    site.key(game, 11, 22, 33)

    client = Client()
    client.force_login(player.user)
    page_path = reverse("online:game", args=[game.pk])
    state_url = reverse("api:online-game-state", args=[game.pk])
    page = client.get(page_path, HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    html = page.content.decode()
    csp = page.headers.get("Content-Security-Policy")
    three = client.get(state_url).json()
    site.key(game, 44)
    four = client.get(state_url).json()
    assert (len(three["balls"]), len(four["balls"])) == (3, 4)

    def scenario(context: Any) -> dict[str, Any]:
        def serve(route: Any) -> None:
            path = route.request.url.removeprefix(ORIGIN).split("?")[0]
            if path == page_path:
                headers = {"Content-Security-Policy": csp} if csp else {}
                route.fulfill(status=200, content_type="text/html", body=html, headers=headers)
            elif path.startswith("/static/") and (found := finders.find(path.removeprefix("/static/"))):
                route.fulfill(status=200, path=found)
            else:
                route.fulfill(status=404, body="")

        context.route("**/*", serve)
        context.add_init_script(STUBS)
        tab = context.new_page()
        tab.goto(ORIGIN + page_path)
        tab.wait_for_function("window.__sockets.length === 1")
        seen: dict[str, Any] = {}

        def shown() -> tuple[str, str, int]:
            return (
                tab.inner_text("[data-count]"),
                tab.inner_text("[data-last]"),
                tab.locator("[data-drawn] li").count(),
            )

        def settle() -> None:
            tab.evaluate("() => new Promise(function (done) { setTimeout(done, 100); })")

        seen["loaded"] = shown()
        tab.evaluate("() => window.__sockets[0].onopen()")  # the re-read on (re)connect
        seen["reads_on_open"] = tab.evaluate("() => window.__fetches.length")
        message = json.dumps({"type": "game.state", "game": _relayed(four)})
        tab.evaluate("(data) => window.__sockets[0].onmessage({data: data})", message)
        seen["relayed"] = shown()
        tab.evaluate("(body) => window.__fetches[0].answer(body)", three)  # the late, older read
        settle()
        seen["after_late_read"] = shown()
        seen["reads_after"] = tab.evaluate("() => window.__fetches.length")
        if seen["reads_after"] == 2:
            tab.evaluate("(body) => window.__fetches[1].answer(body)", four)
            settle()
        # A relayed state older than the one shown (a message overtaken by a read) is ignored too.
        old = json.dumps({"type": "game.state", "game": _relayed(three)})
        tab.evaluate("(data) => window.__sockets[0].onmessage({data: data})", old)
        settle()
        seen["after_old_relay"] = shown()
        return seen

    seen = browser(scenario)
    assert seen["loaded"] == ("3", "33", 3)
    assert seen["reads_on_open"] == 1
    assert seen["relayed"] == ("4", "44", 4)
    assert seen["after_late_read"] == ("4", "44", 4)  # the older read did not overwrite ball 44
    assert seen["reads_after"] == 2  # and the page read the state once more after it
    assert seen["after_old_relay"] == ("4", "44", 4)
