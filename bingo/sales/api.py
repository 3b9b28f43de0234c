"""Card sales over the JSON API: a cashier sells cards of a game, its managers and inspectors
read its sales ledger (a cashier only their own sales).

Thin adapters (STYLE rule 3): a serializer parses, ``sale_make`` (bingo/sales/services.py, the
one way to sell, R36) works, a serializer renders; its refusals (R35-R39) come back as 400 with
their message. Access is per hall (halls/access.py): a game of a hall the caller does not work
in answers 404 (``bingo.games.access.game_for``), a role that does not allow the action 403.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from bingo.common import bounds
from bingo.common.api import (
    Conflict,
    ErrorSerializer,
    MoneyField,
    Pagination,
    error_responses,
    flat_validated,
    username_field,
)
from bingo.common.roles import Role
from bingo.games.access import game_for, hall_id_of
from bingo.models import Sale
from bingo.sales import services
from halls.access import HALL_WRITES, request_user, require_hall_role
from halls.models import CashDesk

# --- serializers ------------------------------------------------------------------------------


class SaleCreateSerializer(serializers.Serializer[Any]):
    """A cashier's sale: how many cards, through which desk, the cash handed over (R36, R39)."""

    quantity = serializers.IntegerField(
        min_value=1,
        max_value=bounds.SALE_MAX_CARDS,
        error_messages={"min_value": _("Sell at least one card.")},
        help_text="Number of cards, sold in number order (R36).",
    )
    cash_desk = serializers.PrimaryKeyRelatedField(queryset=CashDesk.objects.all())
    cash_received = MoneyField(
        min_value=0,
        max_value=bounds.AMOUNT_MAX,
        help_text="Cash handed over, as a decimal string (cash only, R39).",
    )
    player = serializers.CharField(
        max_length=80,
        required=False,
        default="",
        allow_blank=True,
        help_text="Who buys; required where the hall caps cards per player (R35).",
    )


class IdempotencyKeySerializer(serializers.Serializer[Any]):
    """The ``Idempotency-Key`` header: a retried sale with the same key sells nothing more."""

    key = serializers.RegexField(
        r"^[A-Za-z0-9._:-]{1,40}$",
        error_messages={
            "required": _(
                "Send an Idempotency-Key header: a new one for each sale, the same one to retry it."
            ),
            "invalid": _(
                "The Idempotency-Key is 1 to 40 letters, digits, dots, colons, dashes or underscores."
            ),
            "null": _("Send an Idempotency-Key header: a new one for each sale, the same one to retry it."),
        },
    )


class SaleSerializer(serializers.ModelSerializer[Sale]):
    """One row of the sales ledger: a block of consecutive cards of one series (R41)."""

    label = serializers.CharField(source="series.label", read_only=True)  # type: ignore[assignment]
    unit_price = MoneyField(read_only=True)
    amount = MoneyField(read_only=True)
    cash_received = MoneyField(read_only=True, help_text="Cash handed over for the whole request (R39).")
    cashier = username_field()

    class Meta:
        model = Sale
        fields = [
            "id",
            "game",
            "series",
            "label",
            "first_number",
            "last_number",
            "quantity",
            "unit_price",
            "amount",
            "cash_desk",
            "cashier",
            "cash_received",
            "player",
            "part",
            "created_at",
        ]
        read_only_fields = fields


class SaleResultSerializer(serializers.Serializer[Any]):
    """What a sale sold: its card ranges (two when it rolled into the second series, R38), the
    amount and the change to give back."""

    cards = serializers.IntegerField()
    amount = MoneyField()
    cash_received = MoneyField()
    change = MoneyField()
    ranges = SaleSerializer(many=True, source="sales")


# --- the sales of a game ---------------------------------------------------------------------


class GameSalesView(GenericAPIView[Sale]):
    """Sell cards of a game (a cashier of its hall), or read its sales ledger (its managers and
    inspectors; a cashier reads only their own sales)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CASHIER,)
    pagination_class = Pagination
    serializer_class = SaleSerializer

    @extend_schema(
        operation_id="games_sales_list",
        responses={200: SaleSerializer(many=True), 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["sales"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        roles = require_hall_role(request, hall_id_of(game), Role.MANAGER, Role.INSPECTOR, Role.CASHIER)
        sales = Sale.objects.filter(game=game).select_related("series", "cashier").order_by("pk")
        if not roles & {Role.MANAGER, Role.INSPECTOR}:
            sales = sales.filter(cashier=request_user(request))
        page = self.paginate_queryset(sales)
        return self.get_paginated_response(SaleSerializer(page, many=True).data)

    @extend_schema(
        operation_id="games_sales_create",
        request=SaleCreateSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "pattern": "^[A-Za-z0-9._:-]{1,40}$"},
                OpenApiParameter.HEADER,
                required=True,
                description="A new key for each sale; resend the same key to retry it: the retry "
                "answers the first sale and sells nothing more. 1-40 of A-Z a-z 0-9 . _ : -",
            )
        ],
        responses={
            201: SaleResultSerializer,
            **error_responses("Refused (R35-R39, a missing key...); nothing was sold."),
            409: OpenApiResponse(ErrorSerializer, description="The key was used for a different sale."),
        },
        tags=["sales"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id, series=False)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        try:
            header = flat_validated(IdempotencyKeySerializer, {"key": request.headers.get("Idempotency-Key")})
        except serializers.ValidationError as refused:
            raise serializers.ValidationError({"Idempotency-Key": refused.detail["key"]}) from None  # type: ignore[call-overload]
        data = flat_validated(SaleCreateSerializer, request.data)
        user = request_user(request)
        # Keys are the cashier's own: another cashier's "1" is a different sale.
        result = services.sale_make(
            game=game,
            quantity=data["quantity"],
            cash_desk=data["cash_desk"],
            cashier=user,
            cash_received=data["cash_received"],
            request_key=f"api-{user.pk}-{header['key']}",
            player=data["player"],
        )
        first = result.sales[0]
        if (first.game_id, result.cards, first.cash_desk_id, first.cash_received, first.player) != (
            game.pk,
            data["quantity"],
            data["cash_desk"].pk,
            data["cash_received"],
            data["player"].strip(),
        ):
            # A fresh sale always matches its request: this is an earlier sale's key.
            raise Conflict(_("This Idempotency-Key was used for a different sale; nothing was sold."))
        answer = {
            "cards": result.cards,
            "amount": result.amount,
            "cash_received": first.cash_received,
            "change": result.change,
            "sales": result.sales,
        }
        return Response(SaleResultSerializer(answer).data, status=status.HTTP_201_CREATED)
