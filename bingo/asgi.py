"""ASGI entry point: HTTP through Django, websockets through Channels.

Websocket connections must come from an allowed host (origin validated) and carry the
session's cookie; the consumers that need a user read it themselves (the players' screens
together, bingo/live/players.py), and only relay events. The outermost layer hands the
consumers the socket under the app (bingo/live/frames.py), so a message goes to thousands of
screens as one encoded frame written to each (docs/live.md).
"""

import gc
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")


class OneThreadASGIHandler(ASGIHandler):
    """Django's ASGI handler with its middleware and views run as one synchronous chain, in one
    thread per request. Every view here is synchronous, and so is much of the middleware: in
    Django's asynchronous chain each synchronous hook (a session's, CSRF's, a MiddlewareMixin's
    process_request and process_response) is a thread of its own to go to and come back from,
    some twenty per request, which cost the online purchase more than its own work (issue 23).
    Within the request's ThreadSensitiveContext the chain's thread is the one its database
    connection and the end of request (request_finished) use, as before; that thread is one
    an earlier request used, not a new one (``__call__``)."""

    #: Idle single-thread executors, one taken per request and given back after it (LIFO).
    _idle: ClassVar[list[ThreadPoolExecutor]] = []
    #: Idle executors kept at most; more (after a burst of concurrent requests) are shut down.
    IDLE_KEPT = 64

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        self._middleware_chain: Any = sync_to_async(self._middleware_chain, thread_sensitive=True)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """As Django's, with the request's thread taken from those earlier requests used: each
        request still runs its synchronous parts (the request's start and end, the middleware
        and the view) on one thread of its own, the thread its database connection belongs to,
        but no longer starts a thread and joins it at its end (asgiref's ThreadSensitiveContext
        with an executor the caller owns)."""
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        idle = self._idle
        executor = idle.pop() if idle else ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            if len(idle) < self.IDLE_KEPT:
                idle.append(executor)
            else:
                executor.shutdown(wait=False)


# Django must be set up before anything imports models (consumers, routing).
django.setup(set_prefix=False)
django_asgi_app = OneThreadASGIHandler()

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
