"""A hall's ball sets over the JSON API (R20-R26): register them, record the check of every ball
at the start and end of a session (R23), record replacements (R25-R26), retire a set.

Thin adapters (STYLE rule 3) with halls/access.py's per-hall access: any staff of the hall reads
its ball sets, their checks and replacements; its managers write, and its callers, who run
every ball through the mechanism in the hall, record the start- and end-of-session checks
(R23). A ball set of a hall the caller does not work in answers 404. Games are counted against
a set by the draw, not here.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.ballsets import selectors, services
from bingo.common.api import ErrorSerializer, Pagination, error_responses, username_field
from bingo.common.roles import Role
from bingo.models import Session
from halls.access import HALL_WRITES, request_user, require_hall_role, visible_hall
from halls.models import BALL_SET_MAX_GAMES, BALL_SET_SIZES, BallReplacement, BallSet, BallSetCheck

# Choices travel as patterned strings, not enums: other components already have fields named
# "state", "size" or "kind", and a second enum of the same name makes drf-spectacular warn.


@extend_schema_field({"type": "string", "pattern": "^(active|retired)$"})
class _StateField(serializers.CharField):
    pass


@extend_schema_field({"type": "string", "pattern": "^(start|end)$"})
class _PhaseField(serializers.ChoiceField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=BallSetCheck.Phase.values, **kwargs)


@extend_schema_field({"type": "string", "pattern": "^(ok|faulty)$"})
class _ResultField(serializers.CharField):
    pass


@extend_schema_field({"type": "integer", "enum": list(BALL_SET_SIZES)})
class _SizeField(serializers.ChoiceField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=list(BALL_SET_SIZES), **kwargs)


class BallSetSerializer(serializers.ModelSerializer[BallSet]):
    """A ball set of a hall, with the games it played and may still play (R25)."""

    size = serializers.IntegerField(read_only=True, help_text="Number of balls: 90, 80, 75 or 30.")
    state = _StateField(read_only=True, help_text="active, or retired (never used again, R25).")
    games_left = serializers.IntegerField(read_only=True, help_text="Games it may still draw (R25).")

    class Meta:
        model = BallSet
        fields = [
            "id",
            "hall",
            "serial_number",
            "size",
            "games_played",
            "games_left",
            "state",
            "notes",
            "created_at",
            "retired_at",
            "retired_reason",
        ]
        read_only_fields = fields


class BallSetCreateSerializer(serializers.Serializer[Any]):
    """A new ball set: its serial number (unique in the hall), size and games already played."""

    serial_number = serializers.CharField(max_length=40)
    size = _SizeField(help_text="Number of balls: 90, 80, 75 or 30.")
    games_played = serializers.IntegerField(
        min_value=0,
        max_value=BALL_SET_MAX_GAMES - 1,
        default=0,
        help_text="Games the set drew before it was registered: fewer than 2 000 (R25).",
    )
    notes = serializers.CharField(required=False, allow_blank=True, default="")


class BallSetCheckSerializer(serializers.ModelSerializer[BallSetCheck]):
    """A check of every ball of a set at the start or end of a session (R23)."""

    phase = _PhaseField(read_only=True, help_text="start or end of the session.")
    result = _ResultField(read_only=True, help_text="ok, or faulty (see faulty_balls).")
    faulty_balls = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    checked_by = username_field()

    class Meta:
        model = BallSetCheck
        fields = [
            "id",
            "ball_set",
            "session",
            "phase",
            "result",
            "faulty_balls",
            "notes",
            "checked_by",
            "checked_at",
        ]
        read_only_fields = fields


class BallSetCheckCreateSerializer(serializers.Serializer[Any]):
    """What a check found: the session, the phase, and the balls that failed (none: all OK)."""

    session = serializers.PrimaryKeyRelatedField(queryset=Session.objects.none())
    phase = _PhaseField(help_text="start or end of the session (R23).")
    faulty_balls = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=max(BALL_SET_SIZES)),
        default=list,
        help_text="The numbers of the balls that failed; empty when every ball is OK.",
    )
    notes = serializers.CharField(required=False, allow_blank=True, default="")


class BallReplacementSerializer(serializers.ModelSerializer[BallReplacement]):
    """A ball replaced (R26), or a whole set replaced by another (R25)."""

    replaced_by = username_field()
    repeated = serializers.BooleanField(
        read_only=True, help_text="The ball was already replaced in this session: the acta flags it (R26)."
    )

    class Meta:
        model = BallReplacement
        fields = [
            "id",
            "ball_set",
            "ball_number",
            "replacement_set",
            "session",
            "reason",
            "replaced_by",
            "replaced_at",
            "repeated",
            "repeat_of",
            "repeat_reason",
        ]
        read_only_fields = fields


class BallReplacementCreateSerializer(serializers.Serializer[Any]):
    """One ball (``ball_number``, R26) or the whole set (``replacement_set``, R25), and why."""

    ball_number = serializers.IntegerField(
        required=False, min_value=1, max_value=max(BALL_SET_SIZES), help_text="The damaged ball (R26)."
    )
    replacement_set = serializers.PrimaryKeyRelatedField(
        queryset=BallSet.objects.none(), required=False, help_text="The set replacing this one (R25)."
    )
    reason = serializers.CharField()
    session = serializers.PrimaryKeyRelatedField(
        queryset=Session.objects.none(),
        required=False,
        allow_null=True,
        default=None,
        help_text="The session it happened in, whose acta reports it (R61 k).",
    )
    repeat_reason = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        help_text="Why the ball is replaced again: required when it was already replaced in the "
        "session (R26).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("ball_number" in attrs) == ("replacement_set" in attrs):
            raise serializers.ValidationError(
                _("Give either ball_number (one ball) or replacement_set (the set).")
            )
        return attrs


class ReasonSerializer(serializers.Serializer[Any]):
    """Why a set is retired."""

    reason = serializers.CharField()


# --- access -----------------------------------------------------------------------------------


def _ball_set(request: Request, ball_set_id: int) -> BallSet:
    try:
        return selectors.ball_set_get_for(request_user(request), ball_set_id=ball_set_id)
    except BallSet.DoesNotExist:
        raise NotFound(_("There is no ball set %(id)d.") % {"id": ball_set_id}) from None


_WRITE_ERRORS = error_responses("Field errors, or the rule refusing it (R23, R25, R26); nothing changed.")


# --- views ------------------------------------------------------------------------------------


class HallBallSetListView(GenericAPIView[BallSet]):
    """The ball sets of a hall: listed for its staff, registered by its managers."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)
    pagination_class = Pagination
    serializer_class = BallSetSerializer

    @extend_schema(
        operation_id="halls_ball_sets_list",
        responses={200: BallSetSerializer(many=True), 404: ErrorSerializer},
        tags=["ball sets"],
    )
    def get(self, request: Request, hall_id: int) -> Response:
        hall = visible_hall(request, hall_id)
        page = self.paginate_queryset(selectors.ball_set_list(hall=hall).order_by("serial_number"))
        return self.get_paginated_response(BallSetSerializer(page, many=True).data)

    @extend_schema(
        operation_id="halls_ball_sets_create",
        request=BallSetCreateSerializer,
        responses={201: BallSetSerializer, **_WRITE_ERRORS},
        tags=["ball sets"],
    )
    def post(self, request: Request, hall_id: int) -> Response:
        hall = visible_hall(request, hall_id)
        require_hall_role(request, hall.pk, *self.write_roles)
        form = BallSetCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        ball_set = services.ball_set_create(hall=hall, user=request_user(request), **form.validated_data)
        return Response(
            BallSetSerializer(ball_set).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse("api:ball-set-detail", args=[ball_set.pk])},
        )


class BallSetDetailView(APIView):
    """One ball set of a hall the caller works in."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="ball_sets_retrieve",
        responses={200: BallSetSerializer, 404: ErrorSerializer},
        tags=["ball sets"],
    )
    def get(self, request: Request, ball_set_id: int) -> Response:
        return Response(BallSetSerializer(_ball_set(request, ball_set_id)).data)


class BallSetCheckListView(GenericAPIView[BallSetCheck]):
    """The checks of every ball of a set (R23): listed for the hall's staff, recorded by its
    managers and callers."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (
        Role.MANAGER,
        Role.CALLER,
    )
    pagination_class = Pagination
    serializer_class = BallSetCheckSerializer

    @extend_schema(
        operation_id="ball_sets_checks_list",
        responses={200: BallSetCheckSerializer(many=True), 404: ErrorSerializer},
        tags=["ball sets"],
    )
    def get(self, request: Request, ball_set_id: int) -> Response:
        ball_set = _ball_set(request, ball_set_id)
        page = self.paginate_queryset(selectors.ball_set_check_list(ball_set=ball_set))
        return self.get_paginated_response(BallSetCheckSerializer(page, many=True).data)

    @extend_schema(
        operation_id="ball_sets_checks_create",
        request=BallSetCheckCreateSerializer,
        responses={201: BallSetCheckSerializer, **_WRITE_ERRORS},
        tags=["ball sets"],
    )
    def post(self, request: Request, ball_set_id: int) -> Response:
        ball_set = _ball_set(request, ball_set_id)
        require_hall_role(request, ball_set.hall_id, *self.write_roles)
        form = BallSetCheckCreateSerializer(data=request.data)
        form.fields["session"].queryset = selectors.session_list_of_hall(hall_id=ball_set.hall_id)  # type: ignore[attr-defined]
        form.is_valid(raise_exception=True)
        check = services.ball_set_check_record(
            ball_set=ball_set, user=request_user(request), **form.validated_data
        )
        return Response(BallSetCheckSerializer(check).data, status=status.HTTP_201_CREATED)


class BallSetReplacementListView(GenericAPIView[BallReplacement]):
    """The replacements of a set's balls or of the set itself (R25-R26): listed for the hall's
    staff, recorded by its managers."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)
    pagination_class = Pagination
    serializer_class = BallReplacementSerializer

    @extend_schema(
        operation_id="ball_sets_replacements_list",
        responses={200: BallReplacementSerializer(many=True), 404: ErrorSerializer},
        tags=["ball sets"],
    )
    def get(self, request: Request, ball_set_id: int) -> Response:
        ball_set = _ball_set(request, ball_set_id)
        page = self.paginate_queryset(selectors.ball_replacement_list(ball_set=ball_set))
        return self.get_paginated_response(BallReplacementSerializer(page, many=True).data)

    @extend_schema(
        operation_id="ball_sets_replacements_create",
        request=BallReplacementCreateSerializer,
        responses={201: BallReplacementSerializer, **_WRITE_ERRORS},
        tags=["ball sets"],
    )
    def post(self, request: Request, ball_set_id: int) -> Response:
        ball_set = _ball_set(request, ball_set_id)
        require_hall_role(request, ball_set.hall_id, *self.write_roles)
        form = BallReplacementCreateSerializer(data=request.data)
        form.fields["session"].queryset = selectors.session_list_of_hall(hall_id=ball_set.hall_id)  # type: ignore[attr-defined]
        form.fields["replacement_set"].queryset = selectors.ball_set_list(  # type: ignore[attr-defined]
            hall=ball_set.hall
        )
        form.is_valid(raise_exception=True)
        data = form.validated_data
        user = request_user(request)
        if "replacement_set" in data:
            replacement = services.ball_set_replace(
                ball_set=ball_set,
                replacement=data["replacement_set"],
                reason=data["reason"],
                session=data["session"],
                user=user,
            )
        else:
            replacement = services.ball_replace(
                ball_set=ball_set,
                ball_number=data["ball_number"],
                reason=data["reason"],
                session=data["session"],
                user=user,
                repeat_reason=data["repeat_reason"],
            )
        return Response(BallReplacementSerializer(replacement).data, status=status.HTTP_201_CREATED)


class BallSetRetireView(APIView):
    """Take a set out of use for good (R25): the hall's managers only."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)

    @extend_schema(
        operation_id="ball_sets_retire",
        request=ReasonSerializer,
        responses={200: BallSetSerializer, **_WRITE_ERRORS},
        tags=["ball sets"],
    )
    def post(self, request: Request, ball_set_id: int) -> Response:
        ball_set = _ball_set(request, ball_set_id)
        require_hall_role(request, ball_set.hall_id, *self.write_roles)
        form = ReasonSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        retired = services.ball_set_retire(
            ball_set=ball_set, reason=form.validated_data["reason"], user=request_user(request)
        )
        return Response(BallSetSerializer(retired).data)
