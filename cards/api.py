"""The card stock over the JSON API: card sets, their cards, series, the card check (the print
PDFs are cards/printing/api.py).

Thin adapters (STYLE rule 3): a serializer parses, one service or selector works, a serializer
renders. Who may call what (docs/api.md): the manager writes; the manager and the inspector
read card sets and series and compare a set with its regeneration; only the manager downloads
print PDFs; anyone may check a card against its printed check code.

Card sets belong to no hall. Series do: a manager reads, creates, retires and prints only the
series of the halls they manage (halls/selectors.py); another hall's series answers 404, as if
it did not exist, and another hall is not a valid choice for a new series. An inspector reads
the series of every hall.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.db.models import Prefetch, QuerySet
from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common import bounds
from bingo.common.api import (
    Conflict,
    DigitsField,
    ErrorSerializer,
    HasRole,
    IdField,
    IsManager,
    IsManagerOrInspector,
    JSONBooleanField,
    JSONLinesRenderer,
    MadeByField,
    ManagerWritesInspectorReads,
    MoneyField,
    Pagination,
    error_responses,
)
from bingo.common.roles import Role, user_roles
from bingo.common.throttling import SlidingWindowThrottle
from bingo.engine import MAX_CARDS, Variant, algorithm_for, parse_seed
from bingo.engine.cardset import Cells
from cards import selectors, services
from cards.models import CardSet, Series
from halls.models import Hall
from halls.selectors import hall_list_for

# --- serializers ------------------------------------------------------------------------------


def _grid_field() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(allow_null=True)),
        help_text="The card row by row; null where no number is printed (or the free centre).",
    )


class CardSetSerializer(serializers.ModelSerializer[CardSet]):
    """A card set as the API shows it; the seed is a string (it may have 78 digits)."""

    seed = DigitsField(read_only=True)
    strips = JSONBooleanField(read_only=True, help_text="90-ball strips of six cards.")
    created_by = MadeByField(help_text="Who made it; null when the system did (the demo, a command).")
    series: serializers.PrimaryKeyRelatedField[Series] = serializers.PrimaryKeyRelatedField(
        many=True, read_only=True, help_text="Ids of the series printed from this set."
    )

    class Meta:
        model = CardSet
        fields = [
            "id",
            "variant",
            "size",
            "seed",
            "algorithm",
            "strips",
            "status",
            "progress",
            "error",
            "fingerprint",
            "repeated_lines",
            "created_at",
            "created_by",
            "generated_at",
            "series",
        ]
        read_only_fields = fields


class CardSetRequestSerializer(serializers.Serializer[Any]):
    """What the manager asks for: a new card set."""

    variant = serializers.ChoiceField(choices=[v.value for v in Variant])
    size = serializers.IntegerField(min_value=1, max_value=MAX_CARDS, help_text="Number of cards.")
    seed = DigitsField(
        required=False,
        max_length=78,
        help_text="A whole number below 2**256 as a string of digits; drawn at random when left out.",
    )
    strips = JSONBooleanField(
        default=False, help_text="90-ball only: strips of six cards holding 1-90 once each."
    )

    def validate_seed(self, value: str) -> int:
        try:
            return parse_seed(value)
        except ValueError:
            raise serializers.ValidationError(_("The seed must be a whole number below 2**256.")) from None


class CardSerializer(serializers.Serializer[Any]):
    """One card of a set."""

    number = serializers.IntegerField()
    grid = _grid_field()


class CardRangeSerializer(serializers.Serializer[Any]):
    """An optional range of card numbers, both ends included (query parameters ``from`` and ``to``)."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # "from" is a Python keyword, so the fields cannot be declared as class attributes.
        return {
            "from": serializers.IntegerField(
                min_value=1, required=False, help_text="First card number (default 1)."
            ),
            "to": serializers.IntegerField(
                min_value=1, required=False, help_text="Last card number (default: the last card)."
            ),
        }

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        size: int = self.context["size"]
        first, last = attrs.get("from", 1), attrs.get("to", size)
        if last > size:
            raise serializers.ValidationError({"to": _("There are only %(n)d cards.") % {"n": size}})
        if first > last:
            raise serializers.ValidationError({"from": _("The first card comes after the last one.")})
        return {"first": first, "last": last}


class ComparisonSerializer(serializers.Serializer[Any]):
    """The inspector's check: stored cards and recorded fingerprint against a regeneration."""

    matches = serializers.BooleanField(help_text="True when all three fingerprints agree, card by card.")
    recorded_fingerprint = serializers.CharField(help_text="The fingerprint recorded at generation.")
    stored_fingerprint = serializers.CharField(help_text="The fingerprint of the cards stored now.")
    regenerated_fingerprint = serializers.CharField(
        help_text="The fingerprint of a fresh regeneration from (variant, size, seed, algorithm)."
    )
    differing_cards = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Numbers of stored cards that differ from the regeneration.",
    )


class SeriesSerializer(serializers.ModelSerializer[Series]):
    """A series as the API shows it; money as a decimal string."""

    hall_name = serializers.CharField(source="hall.name", read_only=True)
    currency = serializers.CharField(source="hall.currency", read_only=True)
    price = MoneyField(read_only=True)
    created_by = MadeByField(help_text="Who made it; null when the system did (the demo, a command).")

    class Meta:
        model = Series
        fields = [
            "id",
            "hall",
            "hall_name",
            "order_number",
            "label",
            "size_letter",
            "size",
            "authorization",
            "card_set",
            "price",
            "currency",
            "back_colour",
            "face_colour",
            "status",
            "last_sold",
            "double",
            "online",
            "created_at",
            "created_by",
            "retired_at",
        ]
        read_only_fields = fields


class SeriesCreateSerializer(serializers.Serializer[Any]):
    """A new series of a ready card set in a hall the caller manages (R3, R16-R19)."""

    hall = serializers.PrimaryKeyRelatedField(
        queryset=Hall.objects.all(), help_text="A hall the caller manages."
    )

    order_number = serializers.IntegerField(min_value=1, max_value=bounds.SERIES_ORDER_NUMBER_MAX)
    card_set = serializers.PrimaryKeyRelatedField(queryset=CardSet.objects.all())
    price = MoneyField(
        min_value=bounds.AMOUNT_MIN,
        max_value=bounds.CARD_PRICE_MAX,
        help_text='Face value of a card, as a decimal string ("25.00").',
    )
    back_colour = serializers.CharField(max_length=16, help_text="The series' colour, #RRGGBB.")
    face_colour = serializers.CharField(max_length=16, help_text="The price's colour, #RRGGBB.")
    authorization = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        default="",
        help_text="Reference of the regulator's authorization, required for a size outside A-K (R19).",
    )
    double = JSONBooleanField(default=False, help_text="Double cards, valid for two games (R15).")
    online = JSONBooleanField(
        default=False,
        help_text="Set aside for the hall's online rooms (R85): sold from wallets, never at a desk.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if (user := self.context.get("user")) is not None:
            # Another hall is as unknown as a hall that is not there.
            self.fields["hall"].queryset = hall_list_for(user, Role.MANAGER)  # type: ignore[attr-defined]


class SeriesFilterSerializer(serializers.Serializer[Any]):
    """Query parameters of the series list."""

    hall = IdField(required=False, help_text="Only the series of this hall (id).")


class CardCheckQuerySerializer(serializers.Serializer[Any]):
    """What a player reads off a printed card (the QR code carries the same)."""

    # No minimum: a number out of range gets the same 404 as a wrong code.
    serie = serializers.IntegerField(help_text="The series id.")
    cartao = serializers.IntegerField(help_text="The card number.")
    codigo = serializers.CharField(max_length=32, help_text="The check code printed on the card.")


class CardCheckSerializer(serializers.Serializer[Any]):
    """A genuine card: what it carries."""

    series = serializers.CharField(help_text="Series label as printed (K-12).")
    series_id = serializers.IntegerField()
    hall = serializers.CharField()
    variant = serializers.CharField()
    number = serializers.IntegerField()
    price = MoneyField()
    currency = serializers.CharField()
    double = serializers.BooleanField()
    grid = _grid_field()


# --- views ------------------------------------------------------------------------------------


def _card_set(card_set_id: int) -> CardSet:
    try:
        return selectors.card_set_get(card_set_id=card_set_id)
    except CardSet.DoesNotExist:
        raise NotFound(_("There is no card set %(id)d.") % {"id": card_set_id}) from None


def _ready_card_set(card_set_id: int) -> CardSet:
    card_set = _card_set(card_set_id)
    if card_set.status != CardSet.Status.READY:
        raise Conflict(_("This card set has no stored cards yet (status: %(s)s).") % {"s": card_set.status})
    return card_set


def _readable_series(request: Request) -> QuerySet[Series]:
    """The series the caller may read: an inspector, every hall's; a manager, their halls'."""
    found = selectors.series_list()
    if Role.INSPECTOR in user_roles(request.user):
        return found
    return found.filter(hall__in=hall_list_for(request.user, Role.MANAGER))


def series_for(request: Request, series_id: int, *, manage: bool = False) -> Series:
    """A series the caller may read (else 404); with ``manage``, of a hall they manage (else 403).
    cards/printing/api.py looks series up with it too."""
    try:
        series = _readable_series(request).get(pk=series_id)
    except Series.DoesNotExist:
        raise NotFound(_("There is no series %(id)d.") % {"id": series_id}) from None
    if manage and not hall_list_for(request.user, Role.MANAGER).filter(pk=series.hall_id).exists():
        raise PermissionDenied(HasRole.message)
    return series


def _with_series_ids(card_sets: QuerySet[CardSet]) -> QuerySet[CardSet]:
    return card_sets.prefetch_related(Prefetch("series", queryset=Series.objects.only("id", "card_set_id")))


class CardSetListView(GenericAPIView[CardSet]):
    """Card sets: list them (manager, inspector) or ask for a new one (manager)."""

    permission_classes = [IsAuthenticated, ManagerWritesInspectorReads]
    pagination_class = Pagination
    serializer_class = CardSetSerializer

    @extend_schema(operation_id="card_sets_list", responses=CardSetSerializer(many=True), tags=["card sets"])
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(_with_series_ids(selectors.card_set_list()))
        return self.get_paginated_response(CardSetSerializer(page, many=True).data)

    @extend_schema(
        operation_id="card_sets_create",
        request=CardSetRequestSerializer,
        responses={
            201: OpenApiResponse(CardSetSerializer, description="Generated at once (or failed: see status)."),
            202: OpenApiResponse(
                CardSetSerializer, description="Scheduled in the background: poll it for status and progress."
            ),
            400: OpenApiResponse(description="Field errors; nothing was created."),
        },
        tags=["card sets"],
    )
    def post(self, request: Request) -> Response:
        form = CardSetRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        card_set = services.card_set_request(
            variant=form.validated_data["variant"],
            size=form.validated_data["size"],
            seed=form.validated_data.get("seed"),
            algorithm=algorithm_for(strips=form.validated_data["strips"]),
            user=request.user,  # type: ignore[arg-type]  # IsAuthenticated: a real User
        )
        waiting = card_set.status in (CardSet.Status.PENDING, CardSet.Status.GENERATING)
        return Response(
            CardSetSerializer(card_set).data,
            status=status.HTTP_202_ACCEPTED if waiting else status.HTTP_201_CREATED,
            headers={"Location": reverse("api:card-set-detail", args=[card_set.pk])},
        )


class CardSetDetailView(APIView):
    """One card set, with its fingerprint, status and progress."""

    permission_classes = [IsAuthenticated, IsManagerOrInspector]

    @extend_schema(operation_id="card_sets_retrieve", responses=CardSetSerializer, tags=["card sets"])
    def get(self, request: Request, card_set_id: int) -> Response:
        try:
            card_set = _with_series_ids(selectors.card_set_list()).get(pk=card_set_id)
        except CardSet.DoesNotExist:
            raise NotFound(_("There is no card set %(id)d.") % {"id": card_set_id}) from None
        return Response(CardSetSerializer(card_set).data)


class CardView(APIView):
    """One card of a ready set, read on its own."""

    permission_classes = [IsAuthenticated, IsManagerOrInspector]

    @extend_schema(
        operation_id="card_sets_card_retrieve",
        responses={200: CardSerializer, 404: ErrorSerializer, 409: ErrorSerializer},
        tags=["card sets"],
    )
    def get(self, request: Request, card_set_id: int, number: int) -> Response:
        card_set = _ready_card_set(card_set_id)
        try:
            grid = selectors.card_get(card_set=card_set, number=number)
        except IndexError:
            raise NotFound(
                _("Card %(n)d is not in this set of %(size)d.") % {"n": number, "size": card_set.size}
            ) from None
        return Response(CardSerializer({"number": number, "grid": grid}).data)


_NUMBER_TEXT = ["null"] + [str(i) for i in range(1, 256)]
_CARDS_PER_CHUNK = 2000


def _json_lines(cells: Cells, first: int) -> Iterator[bytes]:
    """Cards as JSON lines, ``{"number": n, "grid": [[...], ...]}``, in chunks of 2,000 cards.

    Written by hand from a lookup table: about five times faster than json.dumps per card,
    which matters at 100,000 cards.
    """
    text = _NUMBER_TEXT
    for start in range(0, len(cells), _CARDS_PER_CHUNK):
        lines = []
        for offset, card in enumerate(cells[start : start + _CARDS_PER_CHUNK].tolist(), first + start):
            grid = ",".join("[" + ",".join([text[v] for v in row]) + "]" for row in card)
            lines.append(f'{{"number":{offset},"grid":[{grid}]}}\n')
        yield "".join(lines).encode()


async def _as_async(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    # No database access happens here: the cards were read before streaming began.
    for chunk in chunks:
        yield chunk


class CardListView(APIView):
    """All cards of a ready set (or a range), streamed as JSON lines: one card per line."""

    permission_classes = [IsAuthenticated, IsManagerOrInspector]
    renderer_classes = [JSONRenderer, JSONLinesRenderer]

    @extend_schema(
        operation_id="card_sets_cards_list",
        parameters=[CardRangeSerializer],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(
                CardSerializer,
                description='One JSON object per line: {"number": 1, "grid": [[...], ...]}.',
            ),
            (400, "application/json"): OpenApiResponse(description="A bad range."),
            (404, "application/json"): ErrorSerializer,
            (409, "application/json"): ErrorSerializer,
        },
        tags=["card sets"],
    )
    def get(self, request: Request, card_set_id: int) -> StreamingHttpResponse:
        card_set = _ready_card_set(card_set_id)
        span = CardRangeSerializer(data=request.query_params, context={"size": card_set.size})
        span.is_valid(raise_exception=True)
        first, last = span.validated_data["first"], span.validated_data["last"]
        cells = selectors.card_set_cells(card_set)[first - 1 : last]
        chunks = _json_lines(cells, first)
        content = _as_async(chunks) if isinstance(request._request, ASGIRequest) else chunks
        response = StreamingHttpResponse(content, content_type="application/x-ndjson")
        response["Content-Disposition"] = f'inline; filename="card-set-{card_set.pk}.jsonl"'
        return response


class CardSetCompareView(APIView):
    """Regenerate a set from its (variant, size, seed, algorithm) and compare it with the stored
    cards and the recorded fingerprint (R14; the inspector's integrity check)."""

    permission_classes = [IsAuthenticated, IsManagerOrInspector]

    @extend_schema(
        operation_id="card_sets_compare",
        request=None,
        responses={200: ComparisonSerializer, 404: ErrorSerializer, 409: ErrorSerializer},
        tags=["card sets"],
    )
    def post(self, request: Request, card_set_id: int) -> Response:
        comparison = services.card_set_regenerate_compare(card_set=_ready_card_set(card_set_id))
        return Response(ComparisonSerializer(comparison).data)


class SeriesListView(GenericAPIView[Series]):
    """Series: list them, by hall if asked (manager, inspector), or create one (manager)."""

    permission_classes = [IsAuthenticated, ManagerWritesInspectorReads]
    pagination_class = Pagination
    serializer_class = SeriesSerializer

    @extend_schema(
        operation_id="series_list",
        parameters=[SeriesFilterSerializer],
        responses=SeriesSerializer(many=True),
        tags=["series"],
    )
    def get(self, request: Request) -> Response:
        query = SeriesFilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        series = _readable_series(request)
        if (hall := query.validated_data.get("hall")) is not None:
            series = series.filter(hall_id=hall)
        page = self.paginate_queryset(series)
        return self.get_paginated_response(SeriesSerializer(page, many=True).data)

    @extend_schema(
        operation_id="series_create",
        request=SeriesCreateSerializer,
        responses={
            201: SeriesSerializer,
            400: OpenApiResponse(
                description="Field errors (a hall the caller does not manage...); nothing created."
            ),
        },
        tags=["series"],
    )
    def post(self, request: Request) -> Response:
        form = SeriesCreateSerializer(data=request.data, context={"user": request.user})
        form.is_valid(raise_exception=True)
        series = services.series_create(
            **form.validated_data,
            user=request.user,  # type: ignore[arg-type]  # IsAuthenticated: a real User
        )
        return Response(
            SeriesSerializer(selectors.series_get(series_id=series.pk)).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse("api:series-detail", args=[series.pk])},
        )


class SeriesDetailView(APIView):
    """One series."""

    permission_classes = [IsAuthenticated, IsManagerOrInspector]

    @extend_schema(
        operation_id="series_retrieve",
        responses={200: SeriesSerializer, 404: ErrorSerializer},
        tags=["series"],
    )
    def get(self, request: Request, series_id: int) -> Response:
        return Response(SeriesSerializer(series_for(request, series_id)).data)


class SeriesRetireView(APIView):
    """Take a series out of use: no more sales from it (manager)."""

    permission_classes = [IsAuthenticated, IsManager]

    @extend_schema(
        operation_id="series_retire",
        request=None,
        responses={200: SeriesSerializer, **error_responses("Already retired.")},
        tags=["series"],
    )
    def post(self, request: Request, series_id: int) -> Response:
        services.series_retire(series=series_for(request, series_id, manage=True))
        return Response(SeriesSerializer(series_for(request, series_id)).data)


class CardCheckThrottle(SlidingWindowThrottle):
    """The card check's limit per address ("card_check" in REST_FRAMEWORK's rates), one count
    shared by this API and the page at /verificar/ (cards/views.py card_check), so that guessing
    check codes is no faster through both doors than through one. The address is the client's
    (bingo/common/clients.py); without Redis each process counts alone (bingo/common/throttling.py).
    """

    scope = "card_check"


class CardCheckView(APIView):
    """Public: is this card genuine? Answers the card when the check code matches.

    A wrong series, number or code all get the same 404, so the answer never tells which part
    was wrong; guesses are throttled per address, together with /verificar/'s.
    """

    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [CardCheckThrottle]

    @extend_schema(
        operation_id="card_check",
        parameters=[CardCheckQuerySerializer],
        responses={
            200: CardCheckSerializer,
            400: OpenApiResponse(description="A parameter is missing or not a number."),
            404: OpenApiResponse(ErrorSerializer, description="No such card with this code."),
            429: OpenApiResponse(ErrorSerializer, description="Too many checks from this address."),
        },
        tags=["card check"],
    )
    def get(self, request: Request) -> Response:
        query = CardCheckQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        not_found = NotFound(_("No card matches this series, number and code."))
        try:
            series = selectors.series_get(series_id=query.validated_data["serie"])
        except Series.DoesNotExist:
            raise not_found from None
        number = query.validated_data["cartao"]
        grid = selectors.card_check(series=series, number=number, code=query.validated_data["codigo"])
        if grid is None:
            raise not_found
        card = {
            "series": series.label,
            "series_id": series.pk,
            "hall": series.hall.name,
            "variant": series.card_set.variant,
            "number": number,
            "price": series.price,
            "currency": series.hall.currency,
            "double": series.double,
            "grid": grid,
        }
        return Response(CardCheckSerializer(card).data)
