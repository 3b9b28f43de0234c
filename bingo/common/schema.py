"""The OpenAPI schema says what the server does (issue 26): every status code an operation can
answer with its body, what a logged-in program must send, what a field accepts.

drf-spectacular describes the views; this module adds what it cannot see from them, once for
every view instead of on each ``extend_schema``:

* ``SessionCsrfScheme``: a session login is the ``sessionid`` cookie, and an unsafe request
  also needs the CSRF token twice, as the ``csrftoken`` cookie and the ``X-CSRFToken`` header
  (docs/api.md «Logging in»). The schema lists all three, so a client generated from it sends
  them, and Schemathesis can take them away one at a time and expect the 403.
* ``AutoSchema``: the errors every view shares, declared where they can happen — 400 (the
  fields at fault, or the body refused whole) on writes and on reads with query parameters, 403
  (not logged in, no CSRF token, or a role that may not) on everything but the public reads,
  404 where the path names an object, a list can be paged past its end or a format can be asked
  for, 429 where a throttle counts. A code a view declares itself is left as it is.
* Text a field refuses when blank or all spaces (DRF's ``allow_blank=False`` with
  ``trim_whitespace``) carries ``minLength: 1`` and a pattern asking for one character that is
  not a space, and every text field refuses NUL (DRF's ``ProhibitNullCharactersValidator``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import permissions, serializers

from bingo.common.api import BAD_REQUEST, DecimalTextField, ErrorSerializer

#: The header a program sends the CSRF token in (Django's ``CSRF_HEADER_NAME`` is its WSGI
#: spelling, ``HTTP_X_CSRFTOKEN``).
CSRF_HEADER = "X-CSRFToken"

#: Text with something in it besides spaces, and no NUL: what a non-blank DRF text field keeps
#: after trimming. JSON Schema patterns are not anchored, hence the ``^…$``.
NON_BLANK_PATTERN = r"^[^\x00]*[^\s\x00][^\x00]*$"
#: Any text without NUL.
NO_NUL_PATTERN = r"^[^\x00]*$"

_JSON = ["application/json"]


class SessionCsrfScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """Django's session login as a program uses it: the session cookie on every request, and
    for unsafe methods the CSRF token as a cookie and as a header (AND, one requirement)."""

    target_class = "rest_framework.authentication.SessionAuthentication"
    name = ["cookieAuth", "csrfCookie", "csrfHeader"]
    priority = 1  # before drf-spectacular's own SessionScheme, which knows only the cookie

    def get_security_requirement(self, auto_schema: openapi.AutoSchema) -> dict[str, list[Any]]:
        if auto_schema.method in permissions.SAFE_METHODS:
            return {"cookieAuth": []}
        return {"cookieAuth": [], "csrfCookie": [], "csrfHeader": []}

    def get_security_definition(self, auto_schema: openapi.AutoSchema) -> list[dict[str, str]]:
        return [
            {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME},
            {"type": "apiKey", "in": "cookie", "name": settings.CSRF_COOKIE_NAME},
            {"type": "apiKey", "in": "header", "name": CSRF_HEADER},
        ]


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's AutoSchema, plus the shared error responses and text constraints."""

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self._error_codes():
            responses.setdefault(code, {})
        for code, response in responses.items():
            # An error declared with a description only gets its body's shape, in JSON.
            if code.startswith("4") and "content" not in response:
                body = BAD_REQUEST if code == "400" else ErrorSerializer
                declared = self._get_response_for_code(body, code, _JSON, direction)  # type: ignore[no-untyped-call]
                if response.get("description"):
                    declared["description"] = response["description"]
                responses[code] = declared
        return responses

    def _error_codes(self) -> list[str]:
        view = self.view
        unsafe = self.method not in permissions.SAFE_METHODS
        public = all(isinstance(permission, permissions.AllowAny) for permission in view.get_permissions())
        parameters = self._get_parameters()
        query = [p for p in parameters if p.get("in") == "query" and p.get("name") != "format"]
        codes = []
        if unsafe or query:
            codes.append("400")
        if unsafe or not public:
            codes.append("403")
        if (
            "{" in self.path
            or any(p.get("name") == "format" for p in parameters)
            or (self._is_list_view() and self._get_paginator() is not None)  # type: ignore[no-untyped-call]
        ):
            codes.append("404")
        if getattr(view, "throttle_classes", None):
            codes.append("429")
        return codes

    def _map_serializer_field(self, field: Any, direction: Any, bypass_extensions: bool = False) -> Any:
        schema = super()._map_serializer_field(field, direction, bypass_extensions)  # type: ignore[no-untyped-call]
        if direction == "request" and isinstance(field, DecimalTextField) and isinstance(schema, dict):
            schema.pop("format", None)
            schema.update(type="string", pattern=field.pattern())
            return schema
        if (
            direction == "request"
            and isinstance(field, serializers.CharField)
            and not field.read_only
            and isinstance(schema, dict)
            and schema.get("type") == "string"
            and "pattern" not in schema
            and "enum" not in schema
            and "format" not in schema
        ):
            if not field.allow_blank and field.trim_whitespace:
                schema["pattern"] = NON_BLANK_PATTERN
                schema.setdefault("minLength", 1)
            else:
                schema["pattern"] = NO_NUL_PATTERN
        return schema
