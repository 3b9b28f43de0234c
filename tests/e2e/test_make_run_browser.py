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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import RunInBrowser, log_in
from tests.processes import free_port
from tests.test_runlocal import RunLocal, children_of, command_line

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
