"""Responsible gaming's API (R101): the player's limits and self-exclusion, and the managers'
exclusion list. Money is a decimal string, in and out; a limit of ``null`` is "no limit"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common import bounds
from bingo.common.api import (
    ConfirmationField,
    ErrorSerializer,
    IdField,
    IsManager,
    MoneyField,
    error_responses,
)
from bingo.models import LimitKind, LimitPeriod, Player, PlayerExclusion
from bingo.players.access import IsPlayer, player_from_request
from bingo.protection import selectors, services

# --- the player's limits -----------------------------------------------------------------------


class PendingSerializer(serializers.Serializer[Any]):
    amount = MoneyField(max_digits=14, allow_null=True, help_text="null: no limit")
    requested_at = serializers.DateTimeField()
    effective_at = serializers.DateTimeField()


class LimitLineSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField(help_text="deposit or loss (R101)")
    period = serializers.ChoiceField(choices=LimitPeriod.choices)
    in_force = MoneyField(max_digits=14, allow_null=True, help_text="null: no limit")
    pending = PendingSerializer(allow_null=True)
    used = MoneyField(max_digits=14, help_text="Deposits, or stakes less prizes and refunds, this period.")
    left = MoneyField(max_digits=14, allow_null=True)
    period_start = serializers.DateTimeField()
    period_end = serializers.DateTimeField()


class LimitsSerializer(serializers.Serializer[Any]):
    currency = serializers.CharField()
    time_zone = serializers.CharField()
    limits = LimitLineSerializer(many=True)


@extend_schema_field({"type": "string", "enum": LimitKind.values})
class LimitKindField(serializers.CharField):
    """deposit or loss: the schema lists them; another word is the service's 400 on ``kind``."""


class LimitRequestSerializer(serializers.Serializer[Any]):
    kind = LimitKindField(help_text="deposit or loss (R101)")
    period = serializers.ChoiceField(choices=LimitPeriod.choices)
    amount = MoneyField(
        max_digits=14,
        min_value=bounds.AMOUNT_MIN,
        max_value=bounds.AMOUNT_MAX,
        allow_null=True,
        help_text="A decimal string; null removes the limit.",
    )


class LimitRecordedSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    period = serializers.CharField()
    amount = MoneyField(max_digits=14, allow_null=True)
    requested_at = serializers.DateTimeField()
    effective_at = serializers.DateTimeField(help_text="At once when tighter; 24 hours later when looser.")


def _limits_body(player: Player) -> dict[str, Any]:
    return {
        "currency": player.hall.currency,
        "time_zone": player.hall.time_zone,
        "limits": selectors.limit_overview(player=player),
    }


class MyLimitsView(APIView):
    """R101: the player's deposit and loss limits (GET), and a request to change one (POST):
    tighter at once, looser 24 hours later; a newer request supersedes a pending one."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_limits",
        responses={200: LimitsSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        return Response(LimitsSerializer(_limits_body(player_from_request(request))).data)

    @extend_schema(
        operation_id="players_me_limits_set",
        request=LimitRequestSerializer,
        responses={201: LimitRecordedSerializer, **error_responses("A field is refused; nothing changed.")},
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        player = player_from_request(request)
        body = LimitRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        row = services.player_limit_set(player=player, **body.validated_data)
        return Response(LimitRecordedSerializer(row).data, status=status.HTTP_201_CREATED)


# --- exclusions --------------------------------------------------------------------------------


class LiftSerializer(serializers.Serializer[Any]):
    lifted_at = serializers.DateTimeField()
    lifted_by = serializers.CharField(source="lifted_by.username")
    reason = serializers.CharField()


class ExclusionSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="pk")
    player = serializers.IntegerField(source="player_id")
    username = serializers.CharField(source="player.user.username")
    source = serializers.ChoiceField(choices=PlayerExclusion.Source.choices)  # type: ignore[assignment]
    kind = serializers.ChoiceField(
        choices=PlayerExclusion.Kind.choices,
        help_text="exclusion, or pause: the player's break of 24 hours, 7 or 30 days",
    )
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(allow_null=True, help_text="null: for good")
    reason = serializers.CharField()
    created_by = serializers.CharField(source="created_by.username")
    lift = LiftSerializer(allow_null=True, source="lift_or_none")
    active = serializers.BooleanField()


def _exclusion_data(exclusion: PlayerExclusion) -> dict[str, Any]:
    exclusion.lift_or_none = getattr(exclusion, "lift", None)  # type: ignore[attr-defined]
    exclusion.active = selectors.exclusion_is_active(exclusion=exclusion)  # type: ignore[attr-defined]
    return ExclusionSerializer(exclusion).data


def _own_exclusion_post(
    request: Request,
    body_class: type[serializers.Serializer[Any]],
    take: Callable[..., PlayerExclusion],
) -> Response:
    """The player's own exclusion or break, asked for with ``body_class``, made by ``take``: 201."""
    player = player_from_request(request)
    body = body_class(data=request.data)
    body.is_valid(raise_exception=True)
    row = take(player=player, **body.validated_data)
    row = selectors.exclusion_history(player=player).get(pk=row.pk)
    return Response(_exclusion_data(row), status=status.HTTP_201_CREATED)


class MyExclusionSerializer(serializers.Serializer[Any]):
    excluded = serializers.BooleanField()
    message = serializers.CharField(allow_blank=True)
    exclusions = ExclusionSerializer(many=True)


class SelfExclusionSerializer(serializers.Serializer[Any]):
    length = serializers.ChoiceField(choices=services.EXCLUSION_CHOICES)
    confirmed = ConfirmationField(help_text="Must be true: the player confirms it cannot be undone.")


class MyExclusionView(APIView):
    """R101: the player's exclusions (GET) and self-exclusion (POST), which blocks buying and
    deposits at once and cannot be undone before its end."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_exclusion",
        responses={200: MyExclusionSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        player = player_from_request(request)
        return Response(
            {
                "excluded": selectors.exclusion_active(player=player) is not None,
                "message": selectors.player_notice(player=player),
                "exclusions": [_exclusion_data(e) for e in selectors.exclusion_history(player=player)],
            }
        )

    @extend_schema(
        operation_id="players_me_exclusion_create",
        request=SelfExclusionSerializer,
        responses={201: ExclusionSerializer, **error_responses()},
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        return _own_exclusion_post(request, SelfExclusionSerializer, services.player_self_exclude)


class PauseSerializer(serializers.Serializer[Any]):
    length = serializers.ChoiceField(choices=services.PAUSE_CHOICES)
    confirmed = ConfirmationField(help_text="Must be true: the player confirms it cannot be ended early.")


class MyPauseView(APIView):
    """R101, «fazer uma pausa»: the player takes a break of 24 hours, 7 or 30 days, which blocks
    buying and deposits at once and cannot be ended early. GET /players/me/exclusion/ lists it."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_pause_create",
        request=PauseSerializer,
        responses={201: ExclusionSerializer, **error_responses()},
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        return _own_exclusion_post(request, PauseSerializer, services.player_pause_take)


class OperatorExclusionSerializer(serializers.Serializer[Any]):
    player = IdField(help_text="The player's id (of a hall the manager manages).")
    length = serializers.ChoiceField(choices=services.EXCLUSION_CHOICES)
    reason = serializers.CharField(max_length=1000)


class ExclusionListView(APIView):
    """R101, managers: every exclusion of the players of their halls (GET), and an operator's
    exclusion of a player, with the reason (POST)."""

    permission_classes = [IsManager]

    @extend_schema(
        operation_id="players_exclusions",
        responses={200: ExclusionSerializer(many=True), 403: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        return Response([_exclusion_data(e) for e in selectors.exclusion_list_for_staff(user=request.user)])

    @extend_schema(
        operation_id="players_exclusions_create",
        request=OperatorExclusionSerializer,
        responses={201: ExclusionSerializer, **error_responses()},
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        body = OperatorExclusionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            player = selectors.player_get_for_manager(
                user=request.user, player_id=body.validated_data["player"]
            )
        except Player.DoesNotExist:
            raise NotFound from None
        row = services.player_exclude(
            player=player,
            staff=request.user,  # type: ignore[arg-type]
            length=body.validated_data["length"],
            reason=body.validated_data["reason"],
        )
        row = selectors.exclusion_list_for_staff(user=request.user).get(pk=row.pk)
        return Response(_exclusion_data(row), status=status.HTTP_201_CREATED)


class LiftRequestSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=1000)


class ExclusionLiftView(APIView):
    """R101, managers: lift an operator's exclusion, with the reason. A self-exclusion: 400."""

    permission_classes = [IsManager]

    @extend_schema(
        operation_id="players_exclusions_lift",
        request=LiftRequestSerializer,
        responses={201: ExclusionSerializer, **error_responses()},
        tags=["players"],
    )
    def post(self, request: Request, exclusion_id: int) -> Response:
        try:
            exclusion = selectors.exclusion_get_for_staff(user=request.user, exclusion_id=exclusion_id)
        except PlayerExclusion.DoesNotExist:
            raise NotFound from None
        body = LiftRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.player_exclusion_lift(
            exclusion=exclusion,
            staff=request.user,  # type: ignore[arg-type]
            reason=body.validated_data["reason"],
        )
        row = selectors.exclusion_list_for_staff(user=request.user).get(pk=exclusion.pk)
        return Response(_exclusion_data(row), status=status.HTTP_201_CREATED)
