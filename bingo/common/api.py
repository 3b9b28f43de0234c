"""Shared pieces of the JSON API: role permissions, error handling, renderers, money fields.

Every API view is a thin adapter (STYLE rule 3): a serializer parses the input, one service or
selector does the work, a serializer renders the answer. Services refuse bad requests with
Django's ``ValidationError``; ``exception_handler`` turns that into a 400 with field errors, so
views never translate errors by hand.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from django.views.csrf import csrf_failure as django_csrf_failure
from django.views.decorators.csrf import csrf_exempt
from django.views.defaults import server_error as django_server_error
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_field
from rest_framework import exceptions, serializers, status
from rest_framework.fields import SkipField, get_error_detail
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
from bingo.engine import Variant

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


#: Each flat serializer's writable fields, built once per language (``flat_validated``).
_FLAT_FIELDS: dict[tuple[type[serializers.Serializer[Any]], str | None], tuple[Any, ...]] = {}


def flat_validated(serializer_class: type[serializers.Serializer[Any]], data: Any) -> dict[str, Any]:
    """What ``serializer_class(data=data).is_valid(raise_exception=True)`` validates, with the same
    errors, without building the serializer: DRF deep-copies every declared field for each new
    serializer, which cost the online purchase more than reading its two values (issue 23).

    For a flat serializer only: plain fields and no ``validate`` of its own (checked). Its fields
    are built once for each language, bound to one instance used for nothing else, and only read
    here: a validator's message, once said, stays in the language it was first said in."""
    cached = (serializer_class, translation.get_language())
    fields = _FLAT_FIELDS.get(cached)
    if fields is None:
        template = serializer_class()
        kind = type(template)
        if (
            kind.validate is not serializers.Serializer.validate
            or kind.to_internal_value is not serializers.Serializer.to_internal_value
            or any(hasattr(template, f"validate_{name}") for name in template.fields)
            or getattr(getattr(kind, "Meta", None), "validators", None)
        ):
            raise TypeError(
                f"{serializer_class.__name__} validates more than its fields: validate it as DRF does."
            )
        for field in template._writable_fields:
            for validator in field.validators:
                # A validator's lazily formatted message is said once, here: DRF keeps what it
                # said, and two threads saying it first at once could trip over each other.
                str(getattr(validator, "message", ""))
        fields = _FLAT_FIELDS.setdefault(cached, (template, *template._writable_fields))
    template, *writable = fields
    if not isinstance(data, Mapping):
        if data is None:  # as Serializer.errors says it
            raise exceptions.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: ["No data provided"]}, code="null"
            )
        message = template.error_messages["invalid"].format(datatype=type(data).__name__)
        raise exceptions.ValidationError({api_settings.NON_FIELD_ERRORS_KEY: [message]}, code="invalid")
    validated: dict[str, Any] = {}
    errors: dict[str, Any] = {}
    for field in writable:
        try:
            value = field.run_validation(field.get_value(data))
        except exceptions.ValidationError as exc:
            errors[str(field.field_name)] = exc.detail
        except DjangoValidationError as exc:
            errors[str(field.field_name)] = get_error_detail(exc)
        except SkipField:
            pass
        else:
            template.set_value(validated, field.source_attrs, value)
    if errors:
        raise exceptions.ValidationError(errors)
    return validated


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


@csrf_exempt  # nothing is there to protect: a POST to no route is a 404, not a CSRF failure
def not_found(request: HttpRequest) -> HttpResponse:
    """The API's last route: a path under ``/api/`` that no route matches — a negative or
    malformed id (``/api/halls/-1/``) — is a JSON 404 like any unknown object, whatever the
    method, in debug too (Django's technical 404 page would be HTML)."""
    return JsonResponse({"detail": str(exceptions.NotFound.default_detail)}, status=404)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: a write refused for its CSRF token is ``403 {"detail"}`` under
    ``/api/``, like DRF's own refusal (docs/api.md «Logging in»); Django's page elsewhere."""
    if request.path.startswith("/api/"):
        detail = _("CSRF Failed: %(reason)s") % {"reason": reason}
        return JsonResponse({"detail": str(detail)}, status=403)
    return django_csrf_failure(request, reason=reason)


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 (``handler500``): JSON under ``/api/``, the plain page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": str(_("A server error occurred."))}, status=500)
    return django_server_error(request)


# --- text -------------------------------------------------------------------------------------


def text_fields_take_text_only() -> None:
    """Every DRF text field (CharField and its kind: RegexField, EmailField...) refuses a JSON
    number or boolean with 400, where DRF would store ``0`` as ``"0"``: the schema says
    ``string``, and a number sent for a name is a client's mistake to report, not to guess at
    (issue 26). Run once at start-up (bingo/apps.py); the API's only text fields are DRF's."""
    original = serializers.CharField.to_internal_value
    if getattr(original, "text_only", False):
        return

    def to_internal_value(self: Any, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        text: str = original(self, data)
        return text

    to_internal_value.text_only = True  # type: ignore[attr-defined]
    serializers.CharField.to_internal_value = to_internal_value  # type: ignore[method-assign]


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


class DecimalTextField(serializers.DecimalField):
    """A decimal in and out as text, written plainly: digits, at most ``decimal_places`` after
    the point, a minus only where negatives are allowed ("25.00", "4", "-10.5"). A JSON number,
    an exponent ("1e3"), spaces, "+5", ".5", "5." or a lone "-" are refused, so the schema's
    pattern (``pattern()``, bingo/common/schema.py) is exactly what the server takes (issue 26)."""

    default_error_messages = {
        "number": _('Send this value as a decimal string, such as "4.50", not as a number.'),
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs["coerce_to_string"] = True
        super().__init__(**kwargs)

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        if data == "":  # DRF would read "" as null where null is allowed: it is no number
            self.fail("invalid")
        return super().validate_empty_values(data)

    def to_internal_value(self, data: Any) -> Decimal:
        if not isinstance(data, str):  # JSON numbers, booleans, lists: only text
            self.fail("number")
        digits = rf"[0-9]+(\.[0-9]{{1,{self.decimal_places}}})?"
        if not re.fullmatch(_sign_pattern(self.min_value) + digits, data):
            if re.fullmatch(f"-{digits}", data):  # a number, below a lower bound of 0 or more
                self.fail("min_value", min_value=self.min_value)
            self.fail("invalid")
        value: Decimal = super().to_internal_value(data)
        return value

    def pattern(self) -> str:
        """The regular expression of the values this field takes, bounds included."""
        assert self.max_digits is not None
        assert self.decimal_places is not None
        bounds_ = [None if b is None else Decimal(str(b)) for b in (self.min_value, self.max_value)]
        return decimal_pattern(
            whole_digits=self.max_digits - self.decimal_places,
            places=self.decimal_places,
            min_value=bounds_[0],
            max_value=bounds_[1],
        )


def _sign_pattern(min_value: Decimal | float | None) -> str:
    """A minus is written only where the lower bound lets a number below zero in."""
    return "-?" if min_value is None or min_value < 0 else ""


def decimal_pattern(
    *, whole_digits: int, places: int, min_value: Decimal | None, max_value: Decimal | None
) -> str:
    """A regular expression for plain decimals with up to ``places`` decimals in
    [``min_value``, ``max_value``]: the bounds the API uses (none, 0, the smallest step or 1
    below, or minus the upper bound; a power of ten or all nines above). Others raise, for a
    developer to add."""
    fraction = rf"(\.[0-9]{{1,{places}}})?"
    step = Decimal(1).scaleb(-places)
    if max_value is None:
        power, exact = whole_digits, False
    elif max_value == int(max_value) and max_value == 10 ** (len(str(int(max_value))) - 1):
        power, exact = len(str(int(max_value))) - 1, True  # 10^k: below it, or exactly it
    elif (max_value + step) == 10 ** len(str(int(max_value))):
        power, exact = len(str(int(max_value))), False  # 99...9.99
    else:
        raise NotImplementedError(f"no pattern for an upper bound of {max_value}")
    if min_value is not None and min_value not in (0, step, 1) and min_value != -(max_value or 0):
        raise NotImplementedError(f"no pattern for a lower bound of {min_value}")
    alternatives = [rf"[1-9][0-9]{{0,{power - 1}}}{fraction}"]  # 1 and up
    if min_value == step:  # positive: under 1, a fraction that is not all zeros
        nonzero = "|".join(f"0{{{i}}}[1-9][0-9]{{0,{places - 1 - i}}}" for i in range(places))
        alternatives.append(rf"0\.({nonzero})")
    elif min_value != 1:  # zero and up: under 1, anything
        alternatives.append(rf"0{fraction}")
    if exact:
        alternatives.append("1" + "0" * power + rf"(\.0{{1,{places}}})?")
    return rf"^{_sign_pattern(min_value)}0*({'|'.join(alternatives)})$"


class MoneyField(DecimalTextField):
    """An amount of money, in and out as a decimal string ("25.00"); a JSON number, whole or
    not, is refused (docs/api.md): ``-1`` must not slip in as ``-1.00`` where ``"-1.00"`` would be
    read with care, and a float has already lost the amount's exact value."""

    default_error_messages = {
        "number": _('Send amounts of money as a decimal string, such as "25.00", not as a number.'),
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_digits", 12)
        kwargs.setdefault("decimal_places", 2)
        super().__init__(**kwargs)


def money_text(amount: Decimal) -> str:
    """``amount`` as ``MoneyField`` writes it in a response ("25.00"), without a serializer: for
    the hot paths' answers (bingo/online/api.py PurchaseView), where building a serializer's
    fields cost more than the rest of the view (issue 23)."""
    return f"{amount.quantize(_CENT):f}"


_CENT = Decimal("0.01")


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


def username_field() -> serializers.SlugRelatedField[Any]:
    """Who did something, by username, read-only, where a person always did (a ``User`` foreign
    key that is never null); ``MadeByField`` where the system may have done it."""
    return serializers.SlugRelatedField(slug_field="username", read_only=True)


@extend_schema_field({"type": "string", "pattern": "^[0-9]+$"})
class DigitsField(serializers.CharField):
    """A whole number too big for JSON numbers (a seed), in and out as a string of digits."""

    default_error_messages = {"digits": _("Write a whole number using the digits 0-9 only.")}

    def to_internal_value(self, data: Any) -> str:
        # Text only (a JSON number would lose digits past 2**53 in many clients), as the schema says.
        text: str = super().to_internal_value(data)
        if not (text.isascii() and text.isdigit()):
            self.fail("digits")
        return text

    def to_representation(self, value: Any) -> str:
        return str(int(value)) if isinstance(value, Decimal) else str(value)


class JSONBooleanField(serializers.BooleanField):
    """``true`` or ``false`` as JSON says them: DRF's field would also take "yes", "1" or 0,
    which the schema's ``boolean`` does not promise (issue 26)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


@extend_schema_field({"type": "boolean", "enum": [True]})
class ConfirmationField(JSONBooleanField):
    """A box the person must tick: the schema takes only ``true``; ``false`` reaches the
    service, which refuses it with its own message (400 on the field)."""


_VARIANTS = [v.value for v in Variant]


@extend_schema_field({"type": "string", "pattern": f"^({'|'.join(_VARIANTS)})$"})
class VariantField(serializers.ChoiceField):
    """A game's variant: "90", "80", "75" or "30" balls.

    Described by a pattern, not an enum: the card stock's serializers already name two
    different "variant" enums, and a third user of either makes drf-spectacular warn.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", "The variant: " + ", ".join(_VARIANTS) + " balls.")
        super().__init__(choices=_VARIANTS, **kwargs)


class HallClockField(serializers.DateTimeField):
    """A date and time; one given without an offset is read on the clock of the hall it is about
    (the serializer places it), never on the server's."""

    def enforce_timezone(self, value: datetime) -> datetime:
        if timezone.is_naive(value):
            return value
        placed: datetime = super().enforce_timezone(value)
        return placed


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
                # A field's messages; for a nested object, its own fields' errors; for a list,
                # the errors of each item in turn (DRF's shape).
                "additionalProperties": {
                    "anyOf": [
                        {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "object"}]}},
                        {"type": "object"},
                    ]
                },
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


def error_responses(refused: str = "", *, not_found: bool = True) -> dict[int, Any]:
    """The errors an operation declares after its answer: 400, what its fields, parameters or
    rules refuse (``refused``; the body, BAD_REQUEST's, is bingo/common/schema.py's), 403 for a
    role that may not, and 404 (``not_found``) where it names an object the caller may not see.
    ``responses={201: ThingSerializer, **error_responses("...")}``; a code after them comes after."""
    errors: dict[int, Any] = {400: OpenApiResponse(description=refused), 403: ErrorSerializer}
    if not_found:
        errors[404] = ErrorSerializer
    return errors


def page_parameters(what: str = "Items") -> list[OpenApiParameter]:
    """``page`` and ``page_size`` for a view that pages with ``Pagination`` by hand."""
    return [
        OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="Page number"),
        OpenApiParameter(
            "page_size",
            {"type": "integer", "minimum": 1, "maximum": Pagination.max_page_size},
            description=f"{what} per page, up to {Pagination.max_page_size}",
        ),
    ]


class Pagination(PageNumberPagination):
    """Pages of 50, up to 500 with ``page_size``; a ``page_size`` that is not a whole number
    from 1 to 500 is a 400 naming it, not quietly the default (issue 26), and a page past the
    end, or one that is not a number, a 404."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not (raw.isascii() and raw.isdigit() and 1 <= int(raw) <= self.max_page_size):
            raise exceptions.ValidationError(
                {
                    self.page_size_query_param: [
                        _("Ask for 1 to %(max)d items a page.") % {"max": self.max_page_size}
                    ]
                }
            )
        return int(raw)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size)
            elif parameter["name"] == self.page_query_param:
                parameter["schema"].update(minimum=1)
        return parameters


def page_by_hand(request: Request, view: APIView, rows: QuerySet[Any]) -> tuple[list[Any], dict[str, Any]]:
    """One page of ``rows`` by ``Pagination`` (``page``, ``page_size``; ``page_parameters`` in the
    schema), for a view whose body puts more around the page: the page's rows, and its ``count``,
    ``next`` and ``previous`` for the body."""
    paginator = Pagination()
    page = paginator.paginate_queryset(rows, request, view=view)
    links = {
        "count": paginator.page.paginator.count,  # type: ignore[union-attr]
        "next": paginator.get_next_link(),
        "previous": paginator.get_previous_link(),
    }
    return list(page or []), links
