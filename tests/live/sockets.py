"""A websocket client of the whole ASGI app (``bingo.asgi.application``), for the tests of the
displays, consoles, price boards and online game screens."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator

from bingo.asgi import application

ORIGIN = "http://127.0.0.1:8000"


def websocket_scope(path: str, origin: str = ORIGIN) -> dict[str, Any]:
    """The ASGI scope of a browser's websocket to ``path``, sent from a page of ``origin``."""
    return {
        "type": "websocket",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "scheme": "ws",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"origin", origin.encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "subprotocols": [],
    }


class Socket:
    """A websocket client of the ASGI app: ``connect``, then each ``message`` the server sends
    (JSON), ``nothing`` when it sends none for 0.3 s, and ``close``."""

    def __init__(self, path: str, *, cookie: bytes | None = None, origin: str = ORIGIN) -> None:
        scope = websocket_scope(path, origin)
        if cookie is not None:
            scope["headers"].append((b"cookie", cookie))
        self.communicator = ApplicationCommunicator(application, scope)

    async def connect(self) -> dict[str, Any]:
        await self.communicator.send_input({"type": "websocket.connect"})
        answer: dict[str, Any] = await self.communicator.receive_output(5)
        return answer

    async def message(self) -> dict[str, Any]:
        sent = await self.communicator.receive_output(5)
        assert sent["type"] == "websocket.send", sent
        content: dict[str, Any] = json.loads(sent["text"])
        return content

    async def nothing(self) -> bool:
        return bool(await self.communicator.receive_nothing(0.3))

    async def close(self) -> None:
        await self.communicator.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.communicator.wait(5)


def run(scenario: Callable[[], Awaitable[Any]]) -> Any:
    """Run an async ``scenario`` from the test's (sync) thread; its answer."""
    return async_to_sync(scenario)()


#: What a hostile client may send on any of our websockets (issue 20, 3): JSON nested 5,000 deep,
#: text that is not JSON, and bytes. Every consumer only listens and drops them unread.
HOSTILE_FRAMES: list[dict[str, Any]] = [
    {"text": "[" * 5000 + "]" * 5000},
    {"text": "not json"},
    {"bytes": b"\x00\xff"},
]


async def send_hostile_frames(communicator: ApplicationCommunicator) -> None:
    """Send ``HOSTILE_FRAMES``; the consumer is still running after them, and answers none."""
    for frame in HOSTILE_FRAMES:
        await communicator.send_input({"type": "websocket.receive", **frame})
    assert await communicator.receive_nothing(0.3)
    assert not communicator.future.done(), communicator.future.exception()


def connect_answer(socket: Socket) -> dict[str, Any]:
    """Connect ``socket`` and close it again: the server's answer to the connect
    (``websocket.accept``, or ``websocket.close`` when it refuses)."""

    async def scenario() -> dict[str, Any]:
        answer = await socket.connect()
        await socket.close()
        return answer

    return run(scenario)  # type: ignore[no-any-return]
