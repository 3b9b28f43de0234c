"""The schema's view (``/api/schema/``), apart from bingo/common/schema.py: drf-spectacular's
views load the API's schema class (DEFAULT_SCHEMA_CLASS) when they are defined; and the API's
index (``/api/``)."""

from __future__ import annotations

import re
import threading
from typing import Any

from django.urls import get_resolver, reverse
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

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


def _route_text(route: str) -> str:
    """``games/<int:game_id>/`` as the schema writes it: ``games/{game_id}/``."""
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


class ApiIndexView(APIView):
    """``/api/``: an index of the API, for a person or a client that starts at its root: where
    its docs and schema are, and every path by the resource it starts with. Public, as the
    schema is: it describes the API, not the data (each path checks its own roles)."""

    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        prefix, resolver = get_resolver().namespace_dict["api"]
        paths: dict[str, list[str]] = {}
        for pattern in resolver.url_patterns:
            route = str(pattern.pattern)
            if not route or not hasattr(pattern.pattern, "_route"):  # this index, the 404 catch-all
                continue
            text = "/" + prefix + _route_text(route)
            paths.setdefault(route.split("/", 1)[0], []).append(text)
        return Response(
            {
                "docs": request.build_absolute_uri(reverse("api:docs")),
                "schema": request.build_absolute_uri(reverse("api:schema")),
                "resources": {name: sorted(set(found)) for name, found in sorted(paths.items())},
            }
        )
