"""A hall's progressive jackpot over the JSON API (R9-R13): its state and authorization terms,
its configuration, and its ledger with the operator's seeds and adjustments.

Thin adapters (STYLE rule 3) with halls/access.py's per-hall access: any staff of the hall reads;
its managers configure, seed and adjust. Contributions (R10) and wins (R11) are the games'
doing (bingo.jackpot.services.jackpot_contribute / jackpot_win), never a request's.
"""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common import bounds
from bingo.common.api import ErrorSerializer, MadeByField, MoneyField, Pagination, error_responses
from bingo.common.roles import Role
from bingo.jackpot import selectors, services
from halls.access import HALL_WRITES, request_user, require_hall_role, visible_hall
from halls.models import Hall, JackpotMovement

_KINDS = JackpotMovement.Kind.values


# Patterned strings, not enums: other components already have a field named "kind".
@extend_schema_field({"type": "string", "pattern": f"^({'|'.join(_KINDS)})$"})
class _KindField(serializers.CharField):
    pass


@extend_schema_field({"type": "string", "pattern": "^(seed|adjustment)$"})
class _OperatorKindField(serializers.ChoiceField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=[JackpotMovement.Kind.SEED, JackpotMovement.Kind.ADJUSTMENT], **kwargs)


class JackpotSerializer(serializers.Serializer[Any]):
    """A hall's jackpot: whether it runs now (R9, R12), its balance and base (R11), its terms (R12)."""

    hall = serializers.IntegerField(read_only=True)
    active = serializers.BooleanField(
        read_only=True,
        help_text="Switched on for the hall (R9) and within the authorization's time limit (R12).",
    )
    balance = MoneyField(max_digits=14, read_only=True)
    base_value = MoneyField(read_only=True, help_text="Put back every time the jackpot is won (R11).")
    currency = serializers.CharField(read_only=True)
    authorization_reference = serializers.CharField(read_only=True)
    conditions = serializers.CharField(read_only=True, help_text="Form and conditions of the award (R12).")
    valid_until = serializers.DateField(read_only=True, allow_null=True, help_text="Time limit (R12).")


class JackpotConfigSerializer(serializers.Serializer[Any]):
    """The jackpot's base value (R11) and the terms of its authorization (R12)."""

    base_value = MoneyField(min_value=0, max_value=bounds.AMOUNT_MAX)
    authorization_reference = serializers.CharField(
        max_length=200, required=False, allow_blank=True, default=""
    )
    conditions = serializers.CharField(required=False, allow_blank=True, default="")
    valid_until = serializers.DateField(required=False, allow_null=True, default=None)


class JackpotMovementSerializer(serializers.ModelSerializer[JackpotMovement]):
    """One line of the jackpot's insert-only ledger."""

    kind = _KindField(
        read_only=True, help_text="seed, contribution (R10), win (R11), reset (R11) or adjustment."
    )
    amount = MoneyField(max_digits=14, read_only=True, help_text="Signed: a win is negative.")
    balance_after = MoneyField(max_digits=14, read_only=True)
    created_by = MadeByField(help_text="Who recorded it; null when the system did (a sale's close, a bingo).")

    class Meta:
        model = JackpotMovement
        fields = ["id", "kind", "amount", "balance_after", "game", "note", "created_by", "created_at"]
        read_only_fields = fields


class JackpotMovementCreateSerializer(serializers.Serializer[Any]):
    """The operator's own movement: a seed (R11) or an adjustment, which needs a note."""

    kind = _OperatorKindField(help_text="seed or adjustment.")
    amount = MoneyField(
        max_digits=14,
        min_value=-bounds.AMOUNT_MAX,
        max_value=bounds.AMOUNT_MAX,
        help_text="A seed is positive; an adjustment either way.",
    )
    note = serializers.CharField(required=False, allow_blank=True, default="")


def _jackpot_data(hall: Hall) -> dict[str, Any]:
    state = selectors.jackpot_state(hall=hall)
    jackpot = selectors.jackpot_get(hall=hall)
    return {
        "hall": hall.pk,
        "active": state.active,
        "balance": state.balance,
        "base_value": state.base_value,
        "currency": state.currency,
        "authorization_reference": jackpot.authorization_reference if jackpot else "",
        "conditions": jackpot.conditions if jackpot else "",
        "valid_until": state.valid_until,
    }


_WRITE_ERRORS = error_responses("Field errors, or the rule refusing it; nothing changed.")


class JackpotView(APIView):
    """A hall's jackpot: read by its staff, configured by its managers."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)

    @extend_schema(
        operation_id="halls_jackpot_retrieve",
        responses={200: JackpotSerializer, 404: ErrorSerializer},
        tags=["jackpot"],
    )
    def get(self, request: Request, hall_id: int) -> Response:
        return Response(JackpotSerializer(_jackpot_data(visible_hall(request, hall_id))).data)

    @extend_schema(
        operation_id="halls_jackpot_configure",
        request=JackpotConfigSerializer,
        responses={200: JackpotSerializer, **_WRITE_ERRORS},
        tags=["jackpot"],
    )
    def put(self, request: Request, hall_id: int) -> Response:
        hall = visible_hall(request, hall_id)
        require_hall_role(request, hall.pk, *self.write_roles)
        form = JackpotConfigSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        services.jackpot_configure(hall=hall, **form.validated_data)
        return Response(JackpotSerializer(_jackpot_data(hall)).data)


class JackpotMovementListView(GenericAPIView[JackpotMovement]):
    """The jackpot's ledger, newest first: read by the hall's staff; seeds and adjustments by its managers."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)
    pagination_class = Pagination
    serializer_class = JackpotMovementSerializer

    @extend_schema(
        operation_id="halls_jackpot_movements_list",
        responses={200: JackpotMovementSerializer(many=True), 404: ErrorSerializer},
        tags=["jackpot"],
    )
    def get(self, request: Request, hall_id: int) -> Response:
        hall = visible_hall(request, hall_id)
        page = self.paginate_queryset(selectors.jackpot_movement_list(hall=hall))
        return self.get_paginated_response(JackpotMovementSerializer(page, many=True).data)

    @extend_schema(
        operation_id="halls_jackpot_movements_create",
        request=JackpotMovementCreateSerializer,
        responses={201: JackpotMovementSerializer, **_WRITE_ERRORS},
        tags=["jackpot"],
    )
    def post(self, request: Request, hall_id: int) -> Response:
        hall = visible_hall(request, hall_id)
        require_hall_role(request, hall.pk, *self.write_roles)
        form = JackpotMovementCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        user = request_user(request)
        if data["kind"] == JackpotMovement.Kind.SEED:
            movement = services.jackpot_seed(hall=hall, amount=data["amount"], note=data["note"], user=user)
        else:
            movement = services.jackpot_adjust(hall=hall, amount=data["amount"], note=data["note"], user=user)
        return Response(JackpotMovementSerializer(movement).data, status=status.HTTP_201_CREATED)
