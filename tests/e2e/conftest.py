"""End-to-end fixtures: the ASGI app under a real uvicorn, and Debian's Chromium via Playwright.

Threads, and why: uvicorn runs its event loop in a thread of its own and Django runs the views
in worker threads, as in production. Playwright's sync API runs an event loop in the thread
that starts it, and Django refuses ORM calls from a thread with a running loop; so the browser
lives in a dedicated thread too and the test hands it scenarios (``browser(scenario)``). The
test's own thread stays free for factories and ORM assertions — no DJANGO_ALLOW_ASYNC_UNSAFE.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.factories import DEFAULT_PASSWORD

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCENARIO_TIMEOUT_SECONDS = 120

T = TypeVar("T")
RunInBrowser = Callable[[Callable[[Any], T]], T]


def log_in(
    page: Any, base: str, username: str, landing: str | None, password: str = DEFAULT_PASSWORD
) -> None:
    """Log in on ``base``'s login page as a person does (the username, the password, the button)
    and, given a ``landing`` path ("/locutor/"), wait until the browser is there."""
    page.goto(f"{base}/entrar/")
    page.get_by_label("Nome de utilizador").fill(username)
    page.get_by_label("Palavra-passe").fill(password)
    page.get_by_role("button", name="Entrar").click()
    if landing is not None:
        page.wait_for_url(f"{base}{landing}")


def live_page(context: Any, url: str, width: int = 1280, height: int = 720) -> Any:
    """``url`` (a display, a price board) in a new page of ``context`` of ``width`` x ``height``,
    once its websocket is open; ``window.__sameDocument`` is set, to check later that the page
    was never reloaded."""
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.goto(url)
    page.wait_for_selector("[data-live].is-live")  # the websocket is open
    page.evaluate("window.__sameDocument = true")
    return page


@pytest.fixture
def asgi_served(transactional_db: None) -> Iterator[tuple[str, asyncio.AbstractEventLoop]]:
    """``bingo.asgi.application`` served by uvicorn on a free port; yields its base URL and the
    server's event loop (a test that plays a worker's part runs its steps in that loop's
    threads, so the events they send reach the consumers even over the in-memory channel layer).

    Needs ``transactional_db``: the server's threads have their own database connections and
    only see committed rows.
    """
    import uvicorn

    from bingo.asgi import application

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # As production serves it (Procfile): websockets uncompressed, so the live screens here take
    # the frame-per-message path (bingo/live/frames.py) that they take there.
    config = uvicorn.Config(application, lifespan="off", log_level="warning", ws_per_message_deflate=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", server.servers[0].get_loop()
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


@pytest.fixture
def asgi_server(asgi_served: tuple[str, asyncio.AbstractEventLoop]) -> str:
    """The base URL of ``asgi_served``'s server."""
    return asgi_served[0]


@pytest.fixture(scope="module")
def browser() -> Iterator[RunInBrowser[Any]]:
    """Run ``scenario(browser_context)`` in the browser's own thread: ``browser(scenario)``.

    Each scenario gets a fresh context (no cookies), closed afterwards. A scenario fails when
    any of its pages breaks the Content-Security-Policy (Chromium logs each refusal to the
    console): an inline script, handler or style slipped into a template would otherwise only
    show as a page that quietly does less.
    """
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    playwright_api = pytest.importorskip("playwright.sync_api")

    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
    state: dict[str, Any] = {}

    def start() -> None:
        state["playwright"] = playwright_api.sync_playwright().start()
        state["browser"] = state["playwright"].chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )

    def stop() -> None:
        if "browser" in state:
            state["browser"].close()
        if "playwright" in state:
            state["playwright"].stop()

    def run(scenario: Callable[[Any], T]) -> T:
        def in_thread() -> T:
            context = state["browser"].new_context(locale="en-GB")
            context.set_default_timeout(15_000)
            refused: list[str] = []
            context.on(
                "console",
                lambda message: (
                    refused.append(message.text) if "Content Security Policy" in message.text else None
                ),
            )
            try:
                result = scenario(context)
            finally:
                context.close()
            assert not refused, "the Content-Security-Policy refused:\n" + "\n".join(refused)
            return result

        return executor.submit(in_thread).result(timeout=SCENARIO_TIMEOUT_SECONDS)

    try:
        executor.submit(start).result(timeout=SCENARIO_TIMEOUT_SECONDS)
        yield run
    finally:
        executor.submit(stop).result(timeout=SCENARIO_TIMEOUT_SECONDS)
        executor.shutdown(wait=True)
