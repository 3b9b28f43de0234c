"""The schema's view (``/api/schema/``), apart from bingo/common/schema.py: drf-spectacular's
views load the API's schema class (DEFAULT_SCHEMA_CLASS) when they are defined."""

from __future__ import annotations

import threading
from typing import Any

from drf_spectacular.views import SpectacularAPIView

#: One schema generation at a time in a process.
_GENERATING = threading.Lock()


class SchemaView(SpectacularAPIView):
    """``/api/schema/``, generated one request at a time per process. drf-spectacular's
    generation keeps state in classes (its extensions' targets, its warning counters) and is not
    thread-safe: under an ASGI worker, whose sync views run in threads, two requests at once can
    answer 500 (``'NoneType' object has no attribute 'startswith'``; tfranzel/drf-spectacular
    #1122, #1123, #1368). The contract run's five roles loading the schema together hit it."""

    def _get_schema_response(self, request: Any) -> Any:
        with _GENERATING:
            return super()._get_schema_response(request)  # type: ignore[no-untyped-call]
