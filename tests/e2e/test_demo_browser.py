"""Demo mode in a real browser (R102): from the lobby's «Experimentar (demonstração)» a player
takes free demo credits, starts a demo game mirroring the room and watches it on the online game
screen at a phone's width: the balls come one by one at the room's pace (the page polls the demo
API; never reloaded), never ahead of their time, and the game's end shows the demo winnings and
offers another game. Every page says «DEMONSTRAÇÃO — sem dinheiro real»."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from bingo.demo import selectors
from bingo.models import DemoGame, OnlineRoom, Sale, WalletEntry
from tests.e2e.conftest import RunInBrowser, log_in
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000
PHONE = {"width": 360, "height": 740}
NOTICE = "DEMONSTRAÇÃO — sem dinheiro real"


def _orm(fn: Any) -> Any:
    """Run ``fn`` in a thread with no event loop (the browser's thread has one: no ORM there)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


def test_a_player_tries_a_demo_game_from_the_lobby(asgi_server: str, browser: RunInBrowser[Any]) -> None:
    base = asgi_server
    site = OnlineSetup(name="Salão Demo")
    OnlineRoom.objects.filter(pk=site.online.pk).update(ball_interval=Decimal("1"))
    player = site.player("25.00", username="demo-maria")
    wallet_before = list(WalletEntry.objects.values_list("pk", "balance_after"))
    errors: list[str] = []

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.set_viewport_size(PHONE)
        page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
        log_in(page, base, "demo-maria", None)
        page.goto(f"{base}/online/")
        page.get_by_role("link", name="Experimentar (demonstração)").click()
        page.wait_for_url("**/demo/**")
        seen["home_notice"] = NOTICE in page.content()
        page.get_by_role("button", name="Receber 1 000 créditos de demonstração").click()
        page.wait_for_url("**/demo/")
        seen["balance"] = page.locator("[data-balance]").inner_text()
        page.get_by_label("Cartões de demonstração").fill("2")
        page.get_by_role("button", name="Jogar uma demonstração").click()
        page.wait_for_url("**/demo/jogo/*/")
        seen["game_url"] = page.url
        seen["game_notice"] = NOTICE in page.content()
        page.locator("figure.online-card").nth(1).wait_for()
        seen["cards"] = page.locator("figure.online-card").count()
        # The balls arrive one a second without a reload.
        page.locator("[data-drawn] li").nth(2).wait_for()
        seen["shown"] = [int(x) for x in page.locator("[data-drawn] li").all_inner_texts()]
        seen["width"] = page.evaluate("document.documentElement.scrollWidth")
        game_id = int(seen["game_url"].rstrip("/").split("/")[-1])
        # Let the rest of the game's time pass (started earlier): the next read ends it.
        _orm(
            lambda: DemoGame.objects.filter(pk=game_id).update(
                started_at=DemoGame.objects.get(pk=game_id).started_at - timedelta(seconds=200)
            )
        )
        page.locator('[data-choice="play_again"]').wait_for(state="visible")
        seen["stage"] = page.locator("[data-stage]").inner_text()
        seen["winnings"] = page.locator("[data-winnings]").inner_text()
        seen["balance_after"] = page.locator("[data-balance]").inner_text()
        seen["all_shown"] = page.locator("[data-drawn] li").count()
        return seen

    seen = browser(scenario)
    assert not errors, errors
    assert seen["home_notice"]
    assert seen["game_notice"]
    assert seen["balance"] == "1 000 créditos de demonstração"
    assert seen["cards"] == 2
    game = DemoGame.objects.get(player=player)
    assert seen["shown"] == game.balls[: len(seen["shown"])]  # in order, none ahead of its time
    assert seen["width"] <= 360
    assert seen["stage"] == "Terminada"
    assert seen["all_shown"] == len(game.balls)
    assert seen["winnings"] == selectors.credits_display(game.winnings).replace(
        "demo credits", "créditos de demonstração"
    ).replace("demo credit", "crédito de demonstração")
    assert selectors.demo_balance(player=player) == 1000 - 20 + game.winnings
    assert seen["balance_after"].startswith(f"{selectors.demo_balance(player=player):,}".replace(",", " "))
    assert list(WalletEntry.objects.values_list("pk", "balance_after")) == wallet_before
    assert not Sale.objects.exists()
