"""`make run`'s own processes play an online game live in a real browser (issue 20, point 1).

Nothing is steered: ``manage.py runlocal`` (the body of `make run`) starts in a subprocess on the
embedded defaults — SQLite in a temporary ``BINGO_VAR_DIR``, no ``DATABASE_URL`` nor
``REDIS_URL`` — with the processes it starts for a user: its own Redis server, the Celery worker
with beat (the online rooms' loop and the ball tasks) and uvicorn. The demo player logs in,
buys one card in the demo room's game, and the page, never reloaded, shows the sales close
(«Comprar» goes), then the first ball drawn by the worker's task, with the badge «Em direto»
all along. Before the fix, the worker's messages went into its own in-memory channel layer and
the page stayed at «Bolas 0».

Then the Redis that `make run` started is stopped: the page, hearing neither a message nor the
hubs' heartbeat, says «A restabelecer a ligação…» (static/js/live.js).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import RunInBrowser, log_in
from tests.processes import children_of, command_line, free_port
from tests.test_runlocal import RunLocal

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The demo room sells for 60 s after its game opens (R93), then a ball every 4 s (R88).
FIRST_BALL_TIMEOUT_MS = 150_000


@pytest.fixture
def make_run(tmp_path: Path) -> Iterator[RunLocal]:
    # A short heartbeat so that a silent page is seen within seconds, not half a minute.
    server = RunLocal(tmp_path, free_port(), LIVE_HEARTBEAT_SECONDS="1")
    try:
        server.wait_for(rf"Servindo em http://127\.0\.0\.1:{server.port}")
        yield server
    finally:
        server.stop()


def test_make_run_shows_the_demo_rooms_balls_live_and_a_silent_page_as_reconnecting(
    make_run: RunLocal, browser: RunInBrowser[Any]
) -> None:
    base = make_run.url
    commands = [command_line(pid) for pid in children_of(make_run.process.pid)]
    assert any("redis-server" in command for command in commands), commands
    assert any("celery -A bingo.celery worker" in command for command in commands), commands
    assert any("uvicorn bingo.asgi:application" in command for command in commands), commands

    def play(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        log_in(page, base, "jogador", "/jogador/", password="jogador-demo")
        # The worker's loop opens the room's first game a moment after the server listens.
        buy = page.get_by_role("link", name="Comprar cartões").first
        for _ in range(60):
            page.goto(f"{base}/online/")
            if buy.count():
                break
            page.wait_for_timeout(1000)
        buy.click()
        page.wait_for_url(f"{base}/online/jogo/*/")
        page.get_by_label("Quantos cartões?").fill("1")
        with page.expect_navigation():
            page.get_by_role("button", name="Comprar", exact=True).click()
        seen["bought"] = page.locator(".alert").first.inner_text()
        seen["cards"] = page.locator(".online-card").count()
        page.wait_for_selector("[data-live].is-live")
        seen["badge"] = page.locator("[data-live]").inner_text()
        seen["countdown"] = page.locator("[data-countdown]").inner_text()
        page.evaluate("window.__sameDocument = true")

        # The sales close (R93) and the first ball comes, each relayed from the Celery worker.
        page.wait_for_selector('[data-choice="buy"]', state="hidden", timeout=FIRST_BALL_TIMEOUT_MS)
        page.wait_for_function(
            "() => Number(document.querySelector('[data-count]').textContent) >= 1",
            timeout=FIRST_BALL_TIMEOUT_MS,
        )
        seen["last"] = page.locator("[data-last]").inner_text().strip()
        seen["drawn"] = page.locator("[data-drawn] li").all_inner_texts()
        seen["same_document"] = page.evaluate("window.__sameDocument === true")
        seen["badge_while_drawing"] = page.locator("[data-live]").inner_text()

        # The live path goes quiet: the Redis that `make run` started is stopped.
        redis = next(pid for pid in children_of(make_run.process.pid) if "redis-server" in command_line(pid))
        os.kill(redis, signal.SIGSTOP)
        try:
            page.wait_for_selector("[data-live]:not(.is-live)", timeout=15_000)
            seen["badge_silent"] = page.locator("[data-live]").inner_text()
        finally:
            os.kill(redis, signal.SIGCONT)
        return seen

    seen = browser(play)

    assert seen["cards"] == 1, seen
    assert seen["bought"] == "1 cartão comprado por 50 CVE.", seen
    assert seen["badge"] == "Em direto"
    assert seen["countdown"].startswith("As vendas fecham dentro de "), seen
    assert seen["same_document"] is True  # never reloaded
    assert seen["drawn"], seen
    assert seen["last"] == seen["drawn"][-1], seen
    assert seen["badge_while_drawing"] == "Em direto"
    assert seen["badge_silent"] == "A restabelecer a ligação…"


#: Issue 24's done-when: within a minute of logging in, a newcomer sells, draws, pays by scan and
#: sees results.
NEWCOMER_SECONDS = 60


def test_a_newcomer_sells_draws_pays_by_scan_and_reads_results_within_a_minute(
    make_run: RunLocal, browser: RunInBrowser[Any]
) -> None:
    """On `make run`'s demo hall, as its logins table says: the cashier sells cards of the game on
    sale and pays the prize due by pasting the card's QR payload (as a scanner types it), the
    caller starts the ready game's draw and draws a ball, the manager reads the finished game's
    results — each through the pages alone, in under a minute all told."""
    base = make_run.url
    payload = make_run.wait_for(r"/verificar/\?serie=").rsplit(": ", 1)[1].strip()

    def walk(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        started = time.monotonic()
        page = context.new_page()
        log_in(page, base, "caixa", "/caixa/", password="caixa-demo")
        page.goto(f"{base}/caixa/venda/")
        page.get_by_label("Cartões").fill("2")
        page.get_by_label("Dinheiro recebido").fill("500")
        with page.expect_navigation():
            page.get_by_role("button", name="Vender", exact=True).click()
        seen["receipt"] = page.locator("#receipt").inner_text()
        page.get_by_role("link", name="Pagar prémios").first.click()
        page.get_by_label("Leia o código QR do cartão").type(payload)
        with page.expect_navigation():
            page.keyboard.press("Enter")
        seen["slip_url"] = page.url
        page.goto(f"{base}/caixa/")  # the slip is laid out for paper: no header to log out from
        page.get_by_role("button", name="Sair").click()

        log_in(page, base, "locutor", "/locutor/", password="locutor-demo")
        page.goto(f"{base}/locutor/jogos/")
        page.get_by_role("link", name="Abrir a consola").first.click()
        page.get_by_role("button", name="Iniciar a extração").click()
        page.get_by_role("button", name="Extrair uma bola").click()
        page.wait_for_function("() => Number(document.querySelector('[data-count]')?.textContent) >= 1")
        page.get_by_role("button", name="Sair").click()

        log_in(page, base, "gerente", "/gerente/", password="gerente-demo")
        page.goto(f"{base}/sessoes/")
        page.locator('a[href^="/sessoes/"]').filter(has_text="#").last.click()
        page.get_by_role("link", name="Resultados").first.click()
        seen["results"] = page.locator("main").inner_text()
        seen["seconds"] = time.monotonic() - started
        return seen

    seen = browser(walk)

    assert "Troco" in seen["receipt"], seen["receipt"]
    assert "/caixa/taloes/" in seen["slip_url"]
    assert "Bolas" in seen["results"]
    print(f"newcomer's walk through make run: {seen['seconds']:.1f} s")
    assert seen["seconds"] < NEWCOMER_SECONDS, seen["seconds"]
