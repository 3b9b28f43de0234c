"""WSGI entry point (admin and plain HTTP only; production serves ASGI, see asgi.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

application = get_wsgi_application()

# With debug off and no collectstatic, refuse to start rather than answer every page with 500.
from bingo.checks import static_manifest_check  # noqa: E402

static_manifest_check()
