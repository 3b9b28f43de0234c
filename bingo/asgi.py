"""ASGI entry point: HTTP through Django, websockets through Channels.

Websocket connections must come from an allowed host (origin validated) and carry the
session's cookie; the consumers that need a user read it themselves (the players' screens
together, bingo/live/players.py), and only relay events. The outermost layer hands the
consumers the socket under the app (bingo/live/frames.py), so a message goes to thousands of
screens as one encoded frame written to each (docs/live.md).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

# Django must be set up before anything imports models (consumers, routing).
django_asgi_app = get_asgi_application()

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
