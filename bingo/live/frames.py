"""One encoded frame written to every socket: the websocket under the ASGI app, reached directly.

A ball goes to thousands of screens of one server process. Through ASGI each copy is a
``websocket.send`` event that Channels passes down its middleware and uvicorn turns into a
frame: the text encoded to UTF-8, framed, and (with permessage-deflate) compressed, once per
socket. Here the hub encodes the frame once per message (``text_frame``) and writes the same
bytes to each socket's transport (``RawSocket.write``), as ``websockets.broadcast`` does: a
server's frames are not masked, so with no extension negotiated they are the same bytes for
every client.

``raw_socket_middleware`` (the outermost layer of ``bingo.asgi``'s websocket stack, outside the
origin check) puts a ``RawSocket`` in the scope when the server is uvicorn's websockets-sansio
protocol (what uvicorn picks with ``websockets`` installed: ``--ws auto``), else nothing; a
consumer without one sends through ASGI as before (Channels' test communicators, another
server). A socket that negotiated an extension (permessage-deflate: uvicorn's default, which
the deployment turns off with ``--ws-per-message-deflate false``), or whose write buffer is
full, or that is closing, is not written to here: ``write`` answers False and the message
goes the ASGI way, in order (``bingo.live.fanout``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from websockets.frames import Frame, Opcode
from websockets.protocol import State

#: The scope's key for the connection's ``RawSocket`` (absent when it cannot be had).
SCOPE_KEY = "bingo.raw_socket"

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def text_frame(text: str) -> bytes:
    """``text`` as one final, unmasked, uncompressed websocket text frame (a server's)."""
    return Frame(Opcode.TEXT, text.encode()).serialize(mask=False)


try:  # the server this is written against; another gives no RawSocket
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # pragma: no cover - uvicorn is pinned in requirements.txt
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]


class RawSocket:
    """The transport of one websocket that uvicorn (websockets-sansio) serves."""

    __slots__ = ("protocol",)

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol

    def write(self, frame: bytes) -> bool:
        """Write ``frame`` (``text_frame``'s) now if the socket takes it as it is: open, past the
        handshake, no close sent, no extension negotiated, its write buffer below the high-water
        mark. False otherwise: nothing was written, and the caller sends through ASGI."""
        protocol = self.protocol
        if (
            not protocol.handshake_complete
            or protocol.disconnected
            or protocol.close_sent
            or protocol.initial_response is not None
            or not protocol.writable.is_set()
        ):
            return False
        conn = protocol.conn
        transport = protocol.transport
        if conn.state is not State.OPEN or conn.extensions or transport is None or transport.is_closing():
            return False
        transport.write(frame)
        return True

    @property
    def compressed(self) -> bool:
        """Whether the client and the server negotiated an extension (permessage-deflate)."""
        return bool(self.protocol.conn.extensions)


def raw_socket(send: Any) -> RawSocket | None:
    """The ``RawSocket`` behind ASGI ``send`` when it is uvicorn's websockets-sansio protocol's own."""
    owner = getattr(send, "__self__", None)
    if WebSocketsSansIOProtocol is None or not isinstance(owner, WebSocketsSansIOProtocol):
        return None
    if not all(
        hasattr(owner, name) for name in ("conn", "transport", "writable", "close_sent", "disconnected")
    ):
        return None  # a uvicorn this was not written against: the ASGI way
    return RawSocket(owner)


def raw_socket_middleware(inner: ASGIApp) -> ASGIApp:
    """ASGI middleware: a websocket's scope gets its ``RawSocket`` under ``SCOPE_KEY`` when one
    can be had. Outermost, where ``send`` is still the server's own."""

    async def app(
        scope: Scope, receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
    ) -> None:
        if scope.get("type") == "websocket":
            found = raw_socket(send)
            if found is not None:
                scope = {**scope, SCOPE_KEY: found}
        await inner(scope, receive, send)

    return app
