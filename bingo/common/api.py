"""Shared pieces of the JSON API: role permissions, error handling, renderers, money fields.

Every API view is a thin adapter (STYLE rule 3): a serializer parses the input, one service or
selector does the work, a serializer renders the answer. Services refuse bad requests with
Django's ``ValidationError``; ``exception_handler`` turns that into a 400 with field errors, so
views never translate errors by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, ClassVar

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext_lazy as _
from django.views.defaults import server_error as django_server_error
from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import exceptions, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from bingo.common import bounds
from bingo.common.roles import Role, roles_in_order, user_roles

# --- permissions ------------------------------------------------------------------------------


class HasRole(BasePermission):
    """Lets through users holding one of ``roles`` (``write_roles`` for unsafe methods).

    Build one with ``has_role(Role.MANAGER, Role.INSPECTOR, write=[Role.MANAGER])``. Anonymous
    users are refused before this runs (IsAuthenticated comes first), so they are told they are
    not logged in, while a logged-in user without the role gets 403.
    """

    roles: ClassVar[frozenset[Role]] = frozenset()
    write_roles: ClassVar[frozenset[Role]] = frozenset()
    message = _("Your role does not allow this.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        allowed = self.roles if request.method in SAFE_METHODS else self.write_roles
        return bool(user_roles(request.user) & allowed)


def has_role(*roles: Role, write: Iterable[Role] | None = None) -> type[HasRole]:
    """A permission class for users holding any of ``roles``; unsafe methods need ``write``
    (by default the same roles)."""
    if not roles:
        raise ValueError("At least one role is required.")
    allowed = frozenset(Role(role) for role in roles)
    writers = allowed if write is None else frozenset(Role(role) for role in write)

    def name(group: frozenset[Role]) -> str:
        return "Or".join(role.value.title() for role in roles_in_order(group)) or "Nobody"

    class_name = f"Has{name(allowed)}" + ("" if writers == allowed else f"Writes{name(writers)}")
    return type(class_name, (HasRole,), {"roles": allowed, "write_roles": writers})


IsManager = has_role(Role.MANAGER)
IsManagerOrInspector = has_role(Role.MANAGER, Role.INSPECTOR)
#: Card stock: the manager writes, the manager and the inspector read.
ManagerWritesInspectorReads = has_role(Role.MANAGER, Role.INSPECTOR, write=[Role.MANAGER])


# --- errors -----------------------------------------------------------------------------------


class Conflict(exceptions.APIException):
    """The request is well formed but the resource is not in a state that allows it."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = _("The resource is not in a state that allows this.")
    default_code = "conflict"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus: Django ValidationError → 400 with field errors, DoesNotExist → 404.

    A service's ``ValidationError({"price": "..."})`` becomes ``{"price": ["..."]}``; one without
    fields becomes ``{"non_field_errors": ["..."]}`` like a serializer's ``validate()``.
    """
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            detail: Any = {field: [str(m) for m in msgs] for field, msgs in exc.message_dict.items()}
            if "__all__" in detail:
                detail[api_settings.NON_FIELD_ERRORS_KEY] = detail.pop("__all__")
        else:
            detail = {api_settings.NON_FIELD_ERRORS_KEY: [str(m) for m in exc.messages]}
        exc = exceptions.ValidationError(detail)
    elif isinstance(exc, ObjectDoesNotExist):
        exc = exceptions.NotFound()
    response = drf_exception_handler(exc, context)
    request = context.get("request")
    if response is not None and isinstance(getattr(request, "accepted_renderer", None), _BINARY_RENDERERS):
        # An error is JSON whatever the client asked for: a 404 of a PDF (?format=pdf) or of a
        # stream of JSON lines is {"detail": ...} labelled application/json, not a PDF (issue 26).
        request.accepted_renderer = JSONRenderer()  # type: ignore[union-attr]
        request.accepted_media_type = "application/json"  # type: ignore[union-attr]
    return response


def not_found(request: HttpRequest) -> HttpResponse:
    """The API's last route: a path under ``/api/`` that no route matches — a negative or
    malformed id (``/api/halls/-1/``) — is a JSON 404 like any unknown object, whatever the
    method, in debug too (Django's technical 404 page would be HTML)."""
    return JsonResponse({"detail": str(exceptions.NotFound.default_detail)}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 (``handler500``): JSON under ``/api/``, the plain page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": str(_("A server error occurred."))}, status=500)
    return django_server_error(request)


# --- renderers --------------------------------------------------------------------------------


class PDFRenderer(BaseRenderer):
    """Lets clients ask for ``Accept: application/pdf``; views send the PDF bytes themselves."""

    media_type = "application/pdf"
    format = "pdf"
    charset = None
    render_style = "binary"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        if isinstance(data, bytes):
            return data
        return json.dumps(data, default=str).encode()  # an error body, should one reach here


class JSONLinesRenderer(BaseRenderer):
    """Lets clients ask for ``Accept: application/x-ndjson``; views stream the lines themselves."""

    media_type = "application/x-ndjson"
    format = "jsonl"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        return (json.dumps(data, default=str) + "\n").encode()


#: Renderers of bodies that are not JSON: an error answered to a request for one is JSON.
_BINARY_RENDERERS = (PDFRenderer, JSONLinesRenderer)


# --- fields -----------------------------------------------------------------------------------


class MoneyField(serializers.DecimalField):
    """An amount of money, in and out as a decimal string ("25.00"); a JSON number, whole or
    not, is refused (docs/api.md): ``-1`` must not slip in as ``-1.00`` where ``"-1.00"`` would be
    read with care, and a float has already lost the amount's exact value."""

    default_error_messages = {
        "number": _('Send amounts of money as a decimal string, such as "25.00", not as a number.'),
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_digits", 12)
        kwargs.setdefault("decimal_places", 2)
        kwargs["coerce_to_string"] = True
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> Decimal:
        if not isinstance(data, str):  # JSON numbers, booleans, lists: only text is money
            self.fail("number")
        value: Decimal = super().to_internal_value(data)
        return value


class IdField(serializers.IntegerField):
    """The id of a row (a bigint primary key), 1 to 2**63 - 1: a bigger number names no row and is
    refused on the field, before any query (SQLite could not even bind it)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", bounds.ID_MAX)
        super().__init__(**kwargs)


@extend_schema_field({"type": "string", "nullable": True, "readOnly": True})
class MadeByField(serializers.SlugRelatedField):  # type: ignore[type-arg]
    """The username of who made or did something, read-only; null when the system did (the
    demo, a command, the online rooms' loop): the schema says so (issue 26)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(slug_field="username", read_only=True, **kwargs)


@extend_schema_field({"type": "string", "pattern": "^[0-9]+$"})
class DigitsField(serializers.CharField):
    """A whole number too big for JSON numbers (a seed), in and out as a string of digits."""

    default_error_messages = {"digits": _("Write a whole number using the digits 0-9 only.")}

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, int) and not isinstance(data, bool):
            data = str(data)
        text: str = super().to_internal_value(data)
        if not (text.isascii() and text.isdigit()):
            self.fail("digits")
        return text

    def to_representation(self, value: Any) -> str:
        return str(int(value)) if isinstance(value, Decimal) else str(value)


class ErrorSerializer(serializers.Serializer[Any]):
    """An error with one message."""

    detail = serializers.CharField()


#: The body of a 400: the fields at fault, ``{"field": ["message", ...]}`` (with
#: ``non_field_errors`` when no single field is to blame), or ``{"detail": "..."}`` for a body
#: refused whole (not JSON, nested too deep). What every refused write answers (issue 26: the
#: schema said ``{"detail"}`` where the server sends field errors).
BAD_REQUEST = OpenApiResponse(
    response={
        "oneOf": [
            {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
                "description": "The fields at fault, each with its messages.",
            },
            {
                "type": "object",
                "properties": {"detail": {"type": "string"}},
                "required": ["detail"],
                "description": "A body refused whole.",
            },
        ]
    },
    description="Refused; nothing changed: the fields at fault, or the body refused whole.",
)


class Pagination(PageNumberPagination):
    """Pages of 50, up to 500 with ``page_size``."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
