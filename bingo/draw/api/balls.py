"""Starting the draw and drawing its balls over the API (R22-R25, R42, R55).

``DrawStartView`` starts the draw once sales closed (R42): electronic, or physical with a ball
set of the game's hall (R22-R25). ``BallCreateView`` draws ball ``position`` with the system's
generator, or records it as keyed in from the blower (a physical draw, or a manual one after
the mechanism failed, R55); the same position again answers the ball already drawn.
"""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common import bounds
from bingo.common.api import error_responses
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.draw.api.console import BallSerializer, DrawStateSerializer, ball_data, state_response
from bingo.draw.api.fields import REFUSED, DrawModeField, responses
from bingo.engine import Variant
from bingo.engine.draw import ball_label
from bingo.games.access import game_for, hall_id_of
from halls.access import HALL_WRITES, request_user, require_hall_role
from halls.models import BallSet


class DrawStartSerializer(serializers.Serializer[Any]):
    """How the draw goes (SPEC §4); a physical draw names the hall's ball set it uses (R22-R25)."""

    mode = DrawModeField(help_text="electronic (the system draws) or physical (keyed in from the blower).")
    ball_set: serializers.PrimaryKeyRelatedField[BallSet] = serializers.PrimaryKeyRelatedField(
        queryset=BallSet.objects.all(),
        allow_null=True,
        default=None,
        help_text="A ball set of the game's hall (id): needed for a physical draw; an electronic "
        "draw may name one to fall back on (R55).",
    )

    def validate_ball_set(self, ball_set: BallSet | None) -> BallSet | None:
        # Another hall's ball set is as unknown as one that is not there.
        if ball_set is not None and ball_set.hall_id != self.context["hall_id"]:
            self.fields["ball_set"].fail("does_not_exist", pk_value=ball_set.pk)
        return ball_set


class BallCreateSerializer(serializers.Serializer[Any]):
    """Which ball this is, and in a physical or manual draw its number from the blower."""

    position = serializers.IntegerField(
        min_value=1,
        max_value=bounds.BALL_NUMBER_MAX,
        help_text="1 for the first ball. Sending the same position again draws nothing more (R42).",
    )
    number = serializers.IntegerField(
        min_value=1,
        max_value=bounds.BALL_NUMBER_MAX,
        allow_null=True,
        required=False,
        default=None,
        help_text="The ball keyed in from the blower; null or left out in an electronic draw.",
    )


class DrawStartView(APIView):
    """Start the draw once sales closed (R42): electronic, or physical with the hall's ball set
    (R22-R25) (a caller of the game's hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CALLER,)

    @extend_schema(
        operation_id="games_draw_start",
        request=DrawStartSerializer,
        responses=responses(DrawStateSerializer),
        tags=["draw"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        form = DrawStartSerializer(data=request.data, context={"hall_id": hall_id_of(game)})
        form.is_valid(raise_exception=True)
        draw_services.game_start_draw(
            game=game,
            user=request_user(request),
            mode=form.validated_data["mode"],
            ball_set=form.validated_data["ball_set"],
        )
        return state_response(game)


class BallCreateView(APIView):
    """Draw ball ``position`` (electronic), or record it as keyed in from the blower; the same
    position again answers the ball already drawn (a caller of the game's hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CALLER,)

    @extend_schema(
        operation_id="games_balls_create",
        request=BallCreateSerializer,
        responses={
            201: BallSerializer,
            200: OpenApiResponse(BallSerializer, description="That position was already drawn: its ball."),
            **error_responses(REFUSED),
        },
        tags=["draw"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        form = BallCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        position = form.validated_data["position"]
        # Cheap and never wrong when it says "already drawn"; two first requests racing for the
        # same position may both answer 201, with the same ball.
        existed = game.balls.filter(position=position).exists()
        ball = draw_services.game_draw_ball(
            game=game, user=request_user(request), position=position, number=form.validated_data["number"]
        )
        label = ball_label(Variant(game.variant), ball.number)
        return Response(
            BallSerializer(ball_data(ball, label)).data,
            status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED,
        )
