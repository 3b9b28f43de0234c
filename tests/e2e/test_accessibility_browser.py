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

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from bingo.demo import services as demo_services
from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.models import DemoGame, Game, Marking, Player, Sale
from bingo.online import services as online_services
from cards.selectors import card_get
from tests.draw.test_services import all_numbers
from tests.e2e.conftest import RunInBrowser, live_page, log_in
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000
PHONE = {"width": 360, "height": 740}
AXE = Path(__file__).parent / "assets" / "axe.min.js"
#: The rules axe runs: WCAG 2.0 and 2.1, levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
OFFLINE_TEXT = (
    "Está sem ligação. O jogo continua no servidor: os seus cartões jogam e os prémios são "
    "creditados (R99). Volte a ligar-se para ver o resultado."
)
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
    demo = demo_services.demo_game_start(
        player=player, online_room=site.online, cards=2, key="a11y-demo", seed=7
    )
    token = draw_selectors.display_token(room=site.room)
    return World(site, player, finished, drawing, selling, demo, token)


@pytest.fixture
def world(asgi_served: tuple[str, asyncio.AbstractEventLoop]) -> World:
    """``_world()``, made once the server runs (its rows committed, as the server sees them)."""
    return _world()


def player_page(context: Any, base: str, width: int = 1280) -> Any:
    """A page of ``context`` of ``width`` px, logged in as the world's player, on the dashboard."""
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.set_viewport_size({"width": width, "height": 800})
    log_in(page, base, "acesso", "/jogador/")
    return page


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
    asgi_server: str, browser: RunInBrowser[Any], world: World
) -> None:
    base = asgi_server
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


def _in_server(loop: asyncio.AbstractEventLoop, step: Callable[[], Any]) -> Any:
    """Run ``step`` in a worker thread of the server's loop, as a caller's request runs: the
    events it sends after commit reach the page's websockets (even the in-memory layer's)."""

    def wrapped() -> Any:
        try:
            return step()
        finally:
            connection.close()

    future = asyncio.run_coroutine_threadsafe(sync_to_async(wrapped, thread_sensitive=False)(), loop)
    return future.result(timeout=60)


def test_the_game_page_and_the_display_announce_each_new_ball_in_a_live_region(
    asgi_served: tuple[str, asyncio.AbstractEventLoop], browser: RunInBrowser[Any], world: World
) -> None:
    base, loop = asgi_served

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = player_page(context, base)
        page.goto(f"{base}/online/jogo/{world.drawing.pk}/")
        page.wait_for_selector("[data-live].is-live")
        display = live_page(context, f"{base}/ecra/{world.display_token}/")
        regions = {"game": page.locator("[data-announce]"), "display": display.locator("[data-announce]")}
        seen["before"] = {name: region.inner_text() for name, region in regions.items()}
        seen["live"] = {name: region.get_attribute("aria-live") for name, region in regions.items()}
        for number in (45, 12):
            _in_server(loop, lambda number=number: world.site.key(world.drawing, number))
            for region in regions.values():
                region.filter(has_text=f"Bola {number}").wait_for()
            seen[number] = {name: region.inner_text() for name, region in regions.items()}
        return seen

    seen = browser(scenario)
    # The balls drawn before the pages opened are not read out; each new one is, on both.
    assert seen["before"] == {"game": "", "display": ""}
    assert seen["live"] == {"game": "polite", "display": "assertive"}
    assert seen[45] == {"game": "Bola 45", "display": "Bola 45"}
    assert seen[12] == {"game": "Bola 12", "display": "Bola 12"}


def _focus_outline(page: Any) -> dict[str, Any]:
    return dict(
        page.evaluate(
            """() => {
              const el = document.activeElement;
              const style = getComputedStyle(el);
              return {tag: el.tagName, name: el.getAttribute("name"), text: el.textContent.trim(),
                      outline: style.outlineStyle, width: parseFloat(style.outlineWidth)};
            }"""
        )
    )


def test_a_player_buys_cards_and_marks_by_hand_with_the_keyboard_alone(
    asgi_server: str, browser: RunInBrowser[Any], world: World
) -> None:
    base = asgi_server
    online_services.player_marking_set(player=world.player, marking=Marking.MANUAL)

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = player_page(context, base, PHONE["width"])
        page.goto(f"{base}/online/jogo/{world.selling.pk}/")
        # From the top of the page, Tab by Tab: the skip link first, then on to the quantity.
        stops = []
        for _ in range(40):
            page.keyboard.press("Tab")
            stops.append(_focus_outline(page))
            if stops[-1]["name"] == "quantity":
                break
        seen["stops"] = stops
        page.keyboard.press("Control+A")
        page.keyboard.type("3")
        seen["cost"] = page.locator("[data-cost]").inner_text()
        page.keyboard.press("Tab")
        seen["on_button"] = _focus_outline(page)
        with page.expect_navigation():
            page.keyboard.press("Enter")
        seen["cards"] = page.locator("figure.online-card").count()

        # Marking by hand (R96) on the game being drawn: Tab to a number, Space marks it, Enter
        # unmarks it, and the focus stays on it although the cards are drawn afresh.
        page.goto(f"{base}/online/jogo/{world.drawing.pk}/")
        first = page.locator("button.mark-cell").first
        key = first.get_attribute("data-mark")
        for _ in range(60):
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.classList.contains('mark-cell')"):
                break
        seen["mark_focus"] = page.evaluate("() => document.activeElement.getAttribute('data-mark')")
        seen["mark_outline"] = _focus_outline(page)
        page.keyboard.press("Space")
        seen["after_space"] = page.evaluate(
            """() => {
              const el = document.activeElement;
              return [el.getAttribute("data-mark"), el.getAttribute("aria-pressed"),
                      el.parentElement.classList.contains("is-marked")];
            }"""
        )
        page.keyboard.press("Enter")
        seen["after_enter"] = page.evaluate("() => document.activeElement.getAttribute('aria-pressed')")
        seen["first_key"] = key
        return seen

    seen = browser(scenario)
    stops = seen["stops"]
    assert (stops[0]["tag"], stops[0]["text"]) == ("A", "Saltar para o conteúdo")
    assert stops[-1]["name"] == "quantity", stops
    # Every stop shows where the focus is (WCAG 2.4.7).
    assert all(s["outline"] != "none" and s["width"] >= 2 for s in stops), stops
    assert seen["cost"] == "30 CVE"
    assert (seen["on_button"]["tag"], seen["on_button"]["text"]) == ("BUTTON", "Comprar")
    assert seen["on_button"]["outline"] != "none"
    sale = Sale.objects.get(game=world.selling, buyer=world.player)
    assert sale.quantity == 3
    assert seen["cards"] == 3
    assert seen["mark_focus"] == seen["first_key"]
    assert seen["mark_outline"]["outline"] != "none"
    assert seen["after_space"] == [seen["first_key"], "true", True]
    assert seen["after_enter"] == "false"


_SIZES = """() => {
  const px = (selector) => {
    const el = document.querySelector(selector);
    return el ? parseFloat(getComputedStyle(el).fontSize) : null;
  };
  return {root: px("html"), cell: px(".online-grid td"), last: px(".online-last"),
          ball: px(".online-drawn li"), large: document.documentElement.classList.contains("large-print"),
          width: document.documentElement.scrollWidth};
}"""


def test_large_print_is_remembered_enlarges_the_cards_and_balls_and_fits_a_phone(
    asgi_server: str, browser: RunInBrowser[Any], world: World
) -> None:
    base = asgi_server
    pages = _player_pages(world)
    game = pages["game mid-game"]

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = player_page(context, base, PHONE["width"])
        page.goto(f"{base}{game}")
        seen["normal"] = page.evaluate(_SIZES)
        switch = page.get_by_role("button", name="Letra grande")
        seen["pressed_before"] = switch.get_attribute("aria-pressed")
        switch.click()
        seen["pressed_after"] = switch.get_attribute("aria-pressed")
        seen["stored"] = page.evaluate("() => localStorage.getItem('bingo-large-print')")
        page.reload()
        seen["large"] = page.evaluate(_SIZES)
        seen["axe"] = axe_violations(page)
        seen["widths"] = {}
        for name, path in pages.items():
            page.goto(f"{base}{path}")
            sizes = page.evaluate(_SIZES)
            seen["widths"][name] = (sizes["large"], sizes["width"])
        page.get_by_role("button", name="Letra grande").click()
        seen["off"] = page.evaluate(_SIZES)["large"]
        seen["stored_off"] = page.evaluate("() => localStorage.getItem('bingo-large-print')")
        return seen

    seen = browser(scenario)
    normal, large = seen["normal"], seen["large"]
    assert (seen["pressed_before"], seen["pressed_after"], seen["stored"]) == ("false", "true", "1")
    assert (normal["large"], large["large"]) == (False, True)
    assert large["root"] == 1.25 * normal["root"]
    for part in ("cell", "last", "ball"):
        assert large[part] > normal[part] * 1.1, (part, normal, large)
    assert seen["axe"] == []
    # Remembered on every player page, none of which scrolls sideways on a 360 px phone.
    assert all(on for on, _width in seen["widths"].values()), seen["widths"]
    assert all(width <= PHONE["width"] for _on, width in seen["widths"].values()), seen["widths"]
    assert (seen["off"], seen["stored_off"]) == (False, None)


def test_offline_a_player_page_shows_that_the_game_goes_on_at_the_server(
    asgi_server: str, browser: RunInBrowser[Any], world: World
) -> None:
    """R99: the service worker registered by the player's pages answers a page that cannot be
    reached with the offline page it keeps."""
    base = asgi_server

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = player_page(context, base)
        seen["worker"] = page.evaluate(
            "() => navigator.serviceWorker.ready.then((r) => [r.scope, r.active.scriptURL])"
        )
        context.set_offline(True)
        page.goto(f"{base}/online/jogo/{world.drawing.pk}/")
        seen["offline_h1"] = page.locator("h1").inner_text()
        seen["offline_text"] = page.locator("#offline").inner_text()
        seen["offline_url"] = page.url
        seen["axe"] = axe_violations(page)
        context.set_offline(False)
        page.get_by_role("link", name="Tentar de novo").click()
        page.wait_for_url(f"{base}/jogador/")
        seen["back"] = page.locator("h1").inner_text()
        return seen

    seen = browser(scenario)
    assert seen["worker"] == [f"{base}/", f"{base}/sw.js"]
    assert seen["offline_h1"] == "Sem ligação"
    assert OFFLINE_TEXT in seen["offline_text"]
    # The address stays the page asked for: back online, a reload brings it.
    assert seen["offline_url"] == f"{base}/online/jogo/{world.drawing.pk}/"
    assert seen["axe"] == []
    assert seen["back"] != "Sem ligação"
