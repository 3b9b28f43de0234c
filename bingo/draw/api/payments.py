"""Paying prizes at a cash desk over the API: against the card's check code, once (R45, R50).

A cashier of the desk's hall hands in the winning card (series, number, check code) and pays in
cash every prize it won and was not paid: double cards only after their second game (R45), the
hall's tax withheld (R61 g)). The desk's screen (bingo/sales/views.py) calls the same service,
``prize_pay`` in bingo/draw/services.py.
"""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common import bounds
from bingo.common.api import MoneyField, error_responses, username_field
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.draw.api.fields import PrizeKindField
from bingo.models import PrizePayment
from cards.models import Series
from halls.access import HALL_WRITES, request_user, require_hall_role, staff_halls
from halls.models import CashDesk


class PrizePaymentCreateSerializer(serializers.Serializer[Any]):
    """A winning card handed in at a desk (R50): series, number, check code, and the desk."""

    series: serializers.PrimaryKeyRelatedField[Series] = serializers.PrimaryKeyRelatedField(
        queryset=Series.objects.select_related("hall"), help_text="The card's series (id)."
    )
    card_number = serializers.IntegerField(min_value=1, max_value=bounds.CARD_NUMBER_MAX)
    check_code = serializers.CharField(
        max_length=20, help_text="The code printed on the card; case, spaces and dashes do not matter."
    )
    cash_desk: serializers.PrimaryKeyRelatedField[CashDesk] = serializers.PrimaryKeyRelatedField(
        queryset=CashDesk.objects.select_related("hall"), help_text="The desk paying (id)."
    )

    def _visible(self, hall_id: int) -> bool:
        return staff_halls(self.context["user"]).filter(pk=hall_id).exists()

    def validate_series(self, series: Series) -> Series:
        # A series or desk of a hall the caller does not work in is as unknown as a missing one.
        if not self._visible(series.hall_id):
            self.fields["series"].fail("does_not_exist", pk_value=series.pk)
        return series

    def validate_cash_desk(self, desk: CashDesk) -> CashDesk:
        if not self._visible(desk.hall_id):
            self.fields["cash_desk"].fail("does_not_exist", pk_value=desk.pk)
        return desk


class PrizePaymentSerializer(serializers.ModelSerializer[PrizePayment]):
    """One prize paid for the card: gross, tax withheld under the hall's rule, net (R50)."""

    game = serializers.IntegerField(source="winner.prize.game_id", read_only=True)
    kind = PrizeKindField(source="winner.prize.kind", read_only=True)
    series = serializers.IntegerField(source="winner.series_id", read_only=True)
    series_label = serializers.CharField(source="winner.series.label", read_only=True)
    card_number = serializers.IntegerField(source="winner.card_number", read_only=True)
    gross = MoneyField(read_only=True)
    tax_withheld = MoneyField(read_only=True)
    net = MoneyField(read_only=True)
    cashier = username_field()

    class Meta:
        model = PrizePayment
        fields = [
            "id",
            "game",
            "kind",
            "series",
            "series_label",
            "card_number",
            "gross",
            "tax_withheld",
            "net",
            "cash_desk",
            "cashier",
            "paid_at",
        ]
        read_only_fields = fields


class PayoutSerializer(serializers.Serializer[Any]):
    """What the cashier hands over for the card: every prize it won and was not paid."""

    gross = MoneyField()
    tax = MoneyField(help_text="Tax on prizes withheld under the hall's rule (R61 g).")
    net = MoneyField(help_text="The cash to hand over.")
    currency = serializers.CharField()
    payments = PrizePaymentSerializer(many=True)


class PrizePaymentCreateView(APIView):
    """Pay in cash every prize a card won and was not paid, against its check code, once (R50);
    double cards after their second game (R45); the hall's tax withheld (a cashier of the
    desk's hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CASHIER,)

    @extend_schema(
        operation_id="prize_payments_create",
        request=PrizePaymentCreateSerializer,
        responses={
            201: PayoutSerializer,
            **error_responses(
                "Refused (a wrong code, nothing to pay, a game not ended, R45, a desk "
                "or series of a hall the caller does not work in); nothing paid.",
                not_found=False,
            ),
        },
        tags=["prize payments"],
    )
    def post(self, request: Request) -> Response:
        user = request_user(request)
        form = PrizePaymentCreateSerializer(data=request.data, context={"user": user})
        form.is_valid(raise_exception=True)
        data = form.validated_data
        desk: CashDesk = data["cash_desk"]
        require_hall_role(request, desk.hall_id, *self.write_roles)
        payout = draw_services.prize_pay(
            series=data["series"],
            card_number=data["card_number"],
            check_code=data["check_code"],
            cash_desk=desk,
            cashier=user,
        )
        answer = {
            "gross": payout.gross,
            "tax": payout.tax,
            "net": payout.net,
            "currency": desk.hall.currency,
            "payments": payout.payments,
        }
        return Response(PayoutSerializer(answer).data, status=status.HTTP_201_CREATED)
