"""ASGI entry point: HTTP through Django, websockets through Channels.

Websocket connections must come from an allowed host (origin validated) and carry the
session's cookie; the consumers that need a user read it themselves (the players' screens
together, bingo/live/players.py), and only relay events. The outermost layer hands the
consumers the socket under the app (bingo/live/frames.py), so a message goes to thousands of
screens as one encoded frame written to each (docs/live.md).
"""

import asyncio
import contextvars
import gc
import os
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse
from django.http.response import HttpResponseBase
from django.urls import set_script_prefix

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")


class OneHopASGIHandler(ASGIHandler):
    """Django's ASGI handler with the whole synchronous part of a request done in one trip to a
    thread: the request's start (``request_started``: stale connections closed), the middleware
    and the view as one synchronous chain, the response's body and its close (``request_finished``:
    the connection back to its pool). The event loop only reads the body and writes the answer.

    Django's own handler goes to a thread and back for each of those three, and its asynchronous
    chain once more for each synchronous middleware hook, some twenty per request; with asgiref's
    context switching and a task listening for the client's disconnect, the event loop's share was
    more of an online purchase's processor time than the view's own (issue 23). Every view here is
    synchronous, so listening for a disconnect bought nothing: a synchronous view cannot be
    cancelled, and Django lets it run to the end either way.

    A worker runs ``REQUEST_THREADS`` requests at once (``WEB_REQUEST_THREADS``); the others wait
    their turn in the order they came, their bodies read. Python runs one thread of a process at
    a time, so more at once only shared the interpreter, each request waiting for it at each of
    its steps behind all the others: under load some answers took twice the median (issue 23).

    The thread is one an earlier request used (a single-thread executor taken per request and
    given back after it), so everything the request does runs on one thread, the one its database
    connection belongs to. A streaming response (static files, exports) is sent as Django sends
    it, in the request's context, its close (and a blocking iterator Django reads for it) on that
    same thread (asgiref's ThreadSensitiveContext)."""

    #: Idle single-thread executors, one taken per request and given back after it (LIFO).
    _idle: ClassVar[list[ThreadPoolExecutor]] = []
    #: Idle executors kept at most; more (after a burst of concurrent requests) are shut down.
    IDLE_KEPT = 64

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    def __init__(self) -> None:
        super().__init__()
        #: Each event loop's turns: REQUEST_THREADS requests run at once, the rest queue in order.
        self._turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def _turn(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        turns = self._turns.get(loop)
        if turns is None:
            turns = self._turns[loop] = asyncio.Semaphore(settings.REQUEST_THREADS)
        return turns

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        idle = self._idle
        executor = idle.pop() if idle else ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")
        try:
            await self._handle_on(executor, scope, body_file, send)
        finally:
            if len(idle) < self.IDLE_KEPT:
                idle.append(executor)
            else:
                executor.shutdown(wait=False)

    async def _handle_on(self, executor: ThreadPoolExecutor, scope: Any, body_file: Any, send: Any) -> None:
        loop = asyncio.get_running_loop()
        # Each request runs in a copy of the loop's context, as sync_to_async would: what it sets
        # in context variables (the language, the urlconf) is gone when it ends.
        context = contextvars.copy_context()
        try:
            # Its turn first (above). Its body is read before, a streamed answer sent after: a
            # slow client holds no turn.
            async with self._turn():
                response, start, body = await loop.run_in_executor(
                    executor, context.run, self._respond, scope, body_file
                )
        finally:
            body_file.close()
        if body is not None:
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        # In the request's own context too (its language, its urlconf), as Django streams.
        await asyncio.create_task(self._stream(executor, response, send), context=context)

    async def _stream(self, executor: ThreadPoolExecutor, response: HttpResponseBase, send: Any) -> None:
        """Send a streaming response as Django does, its blocking iterator read and the response
        closed on the request's thread."""
        async with ThreadSensitiveContext(executor=executor):
            try:
                await self.send_response(response, send)
            finally:
                await sync_to_async(response.close, thread_sensitive=True)()

    def _respond(
        self, scope: Any, body_file: Any
    ) -> tuple[HttpResponseBase, dict[str, Any] | None, bytes | None]:
        """The request's synchronous part, on its thread: its response, and unless the response
        streams, its start message and body with the response closed already."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        try:
            request, refused = self.create_request(scope, body_file)
            if request is None:
                assert refused is not None  # Django's create_request: a request or an answer
                response: HttpResponseBase = refused
            else:
                response = self.get_response(request)
                response._handler_class = self.__class__  # type: ignore[attr-defined]
                if isinstance(response, FileResponse):
                    response.block_size = self.chunk_size
        except BaseException:
            signals.request_finished.send(sender=self.__class__)
            raise
        if response.streaming:
            return response, None, None
        try:
            start = {
                "type": "http.response.start",
                "status": response.status_code,
                "headers": _headers(response),
            }
            body: bytes = response.content  # type: ignore[attr-defined]  # not streaming: an HttpResponse
        finally:
            response.close()
        return response, start, body


def _headers(response: HttpResponseBase) -> list[tuple[bytes, bytes]]:
    """The response's headers and cookies as ASGI sends them (as Django's send_response)."""
    headers = [
        (header.encode("ascii") if isinstance(header, str) else bytes(header),
         value.encode("latin1") if isinstance(value, str) else bytes(value))
        for header, value in response.items()
    ]  # fmt: skip
    headers.extend(
        (b"Set-Cookie", c.output(header="").encode("ascii").strip()) for c in response.cookies.values()
    )
    return headers


# Django must be set up before anything imports models (consumers, routing).
django.setup(set_prefix=False)
django_asgi_app = OneHopASGIHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402

from bingo.checks import static_manifest_check  # noqa: E402
from bingo.live.frames import raw_socket_middleware  # noqa: E402
from bingo.live.routing import websocket_urlpatterns  # noqa: E402

# With debug off and no collectstatic, refuse to start rather than answer every page with 500.
static_manifest_check()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": raw_socket_middleware(
            AllowedHostsOriginValidator(SessionMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)

# Everything loaded so far lives as long as the worker: keep the collector from walking it
# again and again, which paused a ball's delivery to 500 displays by 100-150 ms (bench/display.py).
gc.freeze()
