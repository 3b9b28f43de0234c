"""Start-up checks: a production server refuses to start rather than answer every page with 500.

Called by bingo/asgi.py and bingo/wsgi.py once Django is set up, so a misconfigured server
stops at start with a message saying what to do, instead of failing request by request.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.core.exceptions import ImproperlyConfigured


def static_manifest_check() -> None:
    """Raise ImproperlyConfigured when debug is off and collectstatic has not written the manifest.

    With DEBUG off the static files storage is WhiteNoise's manifest storage: every ``{% static %}``
    looks its file up in STATIC_ROOT/staticfiles.json, and without that file every page is a 500.
    In debug the manifest is not used (files are served from the source folders), so nothing is
    checked.
    """
    storage = staticfiles_storage
    if settings.DEBUG or not isinstance(storage, ManifestFilesMixin):
        return
    if storage.manifest_storage.exists(storage.manifest_name):
        return
    manifest = Path(settings.STATIC_ROOT) / storage.manifest_name
    raise ImproperlyConfigured(
        f"The static files manifest {manifest} is missing, so with DJANGO_DEBUG off every page "
        "would fail. Run `manage.py collectstatic --noinput` (make serve does) before starting "
        "the server, with the same DJANGO_STATIC_ROOT."
    )
