"""One encoded frame per message written to every socket (bingo.live.frames, bingo.live.fanout),
through a real uvicorn: every socket of a topic gets every message, in order, whichever way each
went (the shared frame, or ASGI for a socket that negotiated compression or had something
waiting); the production commands turn websocket compression off, and a client that offers it
gets none on the live screens' paths.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from django.urls import re_path
from websockets.asyncio.client import connect as connect_async
from websockets.sync.client import connect

from bingo.asgi import application
from bingo.live import fanout, frames
from bingo.models import DrawMode
from tests.draw.test_views import Console
from tests.live.test_consumers import _session_cookie, console_path, display_path
from tests.live.test_fanout import Listener
from tests.online.helpers import OnlineSetup
from tests.test_proxy_headers import deploy_unit, makefile_serve, procfile_web, readme_serve, runlocal_server

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def served(config: uvicorn.Config) -> Iterator[tuple[int, asyncio.AbstractEventLoop]]:
    """``config`` served by uvicorn in a thread of its own on a free port: (port, its loop)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(config)
    loop = asyncio.new_event_loop()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.serve(sockets=[sock]))

    thread = threading.Thread(target=run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive(), "uvicorn did not start"
        assert time.monotonic() < deadline, "uvicorn did not start in time"
        time.sleep(0.05)
    try:
        yield sock.getsockname()[1], loop
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


# --- through a real uvicorn: every message, in order, to every socket -----------------------------

#: The live paths' consumers as the project mounts them, outermost the raw socket's middleware;
#: here a generic listener (tests/live/test_fanout.py) whose topic is its path.
listeners_app = frames.raw_socket_middleware(
    URLRouter([re_path(r"^(?P<topic>[\w.-]+)/$", Listener.as_asgi())])
)


async def _clients(port: int, topic: str, count: int, compressed: bool) -> list[Any]:
    return [
        await connect_async(
            f"ws://127.0.0.1:{port}/{topic}/",
            compression="deflate" if compressed else None,
            max_queue=None,
        )
        for _ in range(count)
    ]


def test_every_socket_of_a_topic_gets_every_message_in_order_through_a_real_server(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """uvicorn with its default (compression on) and 60 sockets, 20 of which negotiate
    permessage-deflate: 80 messages, one missed on the way in (the listeners resync in
    between). The uncompressed sockets took the shared frame, the compressed ones ASGI, and
    each socket heard every message in order, the resync in its place."""
    topic, plain, deflated = "test-topic.frames", 40, 20
    settings.LIVE_HEARTBEAT_SECONDS = 600  # no heartbeat among the messages
    written: list[bool] = []
    write = frames.RawSocket.write

    def counted(raw: frames.RawSocket, frame: bytes) -> bool:
        done = write(raw, frame)
        written.append(done)
        return done

    monkeypatch.setattr(frames.RawSocket, "write", counted)

    config = uvicorn.Config(listeners_app, lifespan="off", log_level="warning", ws="websockets-sansio")
    with served(config) as (port, loop):

        async def scenario() -> list[list[Any]]:
            sockets = await _clients(port, topic, plain, False) + await _clients(port, topic, deflated, True)
            deadline = time.monotonic() + 10
            while fanout._hubs.get(loop) is None or fanout._hubs[loop].listeners(topic) < plain + deflated:
                assert time.monotonic() < deadline, "the sockets did not all subscribe"
                await asyncio.sleep(0.05)
            hub = fanout._hubs[loop]

            async def deliver_all() -> None:  # in the server's loop, as its hub's reader does
                for seq in [*range(1, 41), *range(42, 82)]:  # 41 was lost on its way here
                    hub.deliver(topic, seq, {"n": seq})
                    await asyncio.sleep(0)  # the reader awaits the next message from the layer

            asyncio.run_coroutine_threadsafe(deliver_all(), loop)
            heard = []
            for ws in sockets:
                got = [json.loads(await asyncio.wait_for(ws.recv(), 10)) for _ in range(81)]
                heard.append(got)
            for ws in sockets:
                await ws.close()
            return heard

        heard = async_to_sync(scenario)()

    expected = [{"n": n} for n in range(1, 41)] + [{"resync": topic}] + [{"n": n} for n in range(42, 82)]
    assert heard == [expected] * (plain + deflated)
    # Every message went as the shared frame to each uncompressed socket (the first 40 at once,
    # the rest from its own task, behind the resync), and none to a compressed one.
    assert written.count(True) == 80 * plain


class _Raw:
    """A socket whose write buffer is full whenever messages 5 to 9 are written (they never
    take the shared frame), and that takes every other."""

    def __init__(self, log: list[Any]) -> None:
        self.log = log

    def write(self, frame: bytes) -> bool:
        message = json.loads(frame[2:] if frame[1] < 126 else frame[4:])
        if 5 <= message["n"] <= 9:
            return False
        self.log.append(("frame", message))
        return True


def test_a_socket_that_cannot_take_the_frame_gets_the_messages_in_order_all_the_same() -> None:
    """Messages 5 to 9 find the socket's buffer full: they wait in the listener's queue and go
    through ASGI, which yields; the ones after them, though the socket takes frames again, wait
    behind them rather than overtake, and once the queue is empty frames go straight again."""
    log: list[Any] = []

    class Recording(Listener):
        async def send(
            self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
        ) -> None:
            await asyncio.sleep(0.01)  # a slow client's ASGI send yields, as a real one does
            log.append(("asgi", json.loads(text_data or "null")))

    async def scenario() -> None:
        listener = Recording()
        raw = _Raw(log)
        listener._topics = {"t"}
        listener._topic_connected = True
        listener._topic_socket = raw  # type: ignore[assignment]
        for n in range(1, 21):
            listener._topic_put("t", fanout._Delivery({"n": n}))
        while listener._topic_pump is not None and not listener._topic_pump.done():
            await asyncio.sleep(0.01)
        for n in range(21, 24):  # idle again: straight to the socket
            listener._topic_put("t", fanout._Delivery({"n": n}))

    async_to_sync(scenario)()

    assert [message["n"] for _, message in log] == list(range(1, 24))
    assert [way for way, _ in log[:4]] == ["frame"] * 4
    assert {way for way, _ in log[4:9]} == {"asgi"}
    assert [way for way, _ in log[-3:]] == ["frame"] * 3


# --- compression off on the live screens' paths ------------------------------------------------

NO_DEFLATE = ["--ws-per-message-deflate", "false"]


def test_every_way_to_start_the_web_server_turns_websocket_compression_off() -> None:
    """The Procfile (`make up`), `make serve`, the systemd unit of docs/deploy.md, the README's
    steps and `make run`: uvicorn's default would compress each socket's copy of a message."""
    commands = {
        "Procfile": procfile_web(),
        "Makefile": makefile_serve(),
        "docs/deploy.md": deploy_unit(),
        "README.md": readme_serve(),
        "runlocal": runlocal_server(),
    }

    assert {where: " ".join(NO_DEFLATE) in command for where, command in commands.items()} == dict.fromkeys(
        commands, True
    )


def _listening(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is bingo.serve's own (--host, --port, --workers or its value)."""
    own = ("--host", "--port", "--workers")
    return words[i] in own or (i > 0 and words[i - 1] in own)


def _procfile_config(app: Any) -> uvicorn.Config:
    """A uvicorn configuration of ``app`` with the Procfile's websocket options, read by uvicorn's
    own command line (host, port and workers are the test's)."""
    words = shlex.split(procfile_web())
    # bingo.serve passes every option but where to listen to each uvicorn worker (bingo/serve.py).
    given = words[words.index("bingo.serve") + 1 :]
    passed = [word for i, word in enumerate(given) if not _listening(given, i)]
    options = uvicorn.main.make_context("uvicorn", ["bingo.asgi:application", *passed])
    return uvicorn.Config(
        app,
        lifespan="off",
        log_level="warning",
        ws=options.params["ws"],
        ws_per_message_deflate=options.params["ws_per_message_deflate"],
    )


def _extensions(
    port: int, path: str, cookie: bytes | None = None
) -> tuple[str | None, dict[str, Any] | None]:
    """Open ``path`` offering permessage-deflate (the websockets client's default, as browsers
    do): the extensions the server answered with, and its first message if any."""
    headers = {"Cookie": cookie.decode()} if cookie else None
    with connect(
        f"ws://127.0.0.1:{port}{path}", origin=f"http://127.0.0.1:{port}", additional_headers=headers
    ) as ws:
        assert ws.response is not None
        offered = ws.request.headers.get("Sec-WebSocket-Extensions") if ws.request is not None else None
        assert offered
        assert "permessage-deflate" in offered
        try:
            first = json.loads(ws.recv(timeout=1))
        except TimeoutError:
            first = None
        return ws.response.headers.get("Sec-WebSocket-Extensions"), first


def test_a_client_offering_compression_gets_none_on_the_live_paths_as_production_serves_them() -> None:
    """Every live screen's path, served with the Procfile's options: the display, the price
    board, the online player's game and the caller's console accept the socket uncompressed.
    uvicorn's default, for contrast, compresses: the test sees the difference."""
    hall = Console()
    game = hall.drawing(mode=DrawMode.ELECTRONIC)
    site = OnlineSetup(name="Online")
    online_game = site.drawing(site.game(site.series(1)))
    player_cookie = _session_cookie(site.player().user)
    caller_cookie = _session_cookie(hall.caller)
    paths = [
        (display_path(hall), None),
        (f"/ws/quadro/{game.pk}/", None),
        (f"/ws/online/game/{online_game.pk}/", player_cookie),
        (console_path(game), caller_cookie),
    ]

    with served(_procfile_config(application)) as (port, _):
        answers = [_extensions(port, path, cookie) for path, cookie in paths]
    with served(uvicorn.Config(application, lifespan="off", log_level="warning")) as (port, _):
        default, _first = _extensions(port, display_path(hall))

    assert [extensions for extensions, _ in answers] == [None] * len(paths)
    assert answers[0][1] is not None
    assert answers[0][1]["type"] == "display"
    assert answers[1][1] is not None
    assert answers[1][1]["type"] == "board"
    assert default is not None
    assert default.startswith("permessage-deflate")
