"""The players' complaints over the API (R61 j)). The player: ``GET`` lists theirs with the
answers, ``POST`` files one about an online game they bought cards in. The managers: ``GET``
lists the complaints of the halls they manage, ``POST .../decision/`` records the decision once.
Thin adapters over ``bingo.complaints.services.complaint_file`` and ``complaint_decide``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common.api import Conflict, ErrorSerializer, IdField, IsManager, error_responses
from bingo.complaints import selectors, services
from bingo.models import COMPLAINT_MAX_LENGTH, Game, PlayerComplaint
from bingo.players.access import IsPlayer, player_from_request


class ComplaintInputSerializer(serializers.Serializer[Any]):
    game = IdField(help_text="The id of an online game you bought cards in.")
    text = serializers.CharField(max_length=COMPLAINT_MAX_LENGTH)


class ComplaintSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="pk")
    game = serializers.IntegerField(source="game_id")
    game_number = serializers.IntegerField(source="game.number")
    room = serializers.CharField(source="game.session.room.name")
    text = serializers.CharField()
    filed_at = serializers.DateTimeField()
    decided = serializers.BooleanField()
    decision = serializers.CharField()
    decided_at = serializers.DateTimeField(allow_null=True)
    decided_by = serializers.SerializerMethodField()

    def get_decided_by(self, complaint: Any) -> str | None:
        user = complaint.decided_by
        return (user.get_full_name() or user.get_username()) if user is not None else None


class MyComplaintsView(APIView):
    """The logged-in player's complaints, newest first, with the managers' answers; or a new one."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_complaints",
        responses={200: ComplaintSerializer(many=True), 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        player = player_from_request(request)
        return Response(
            ComplaintSerializer(selectors.complaint_list_for_player(player=player), many=True).data
        )

    @extend_schema(
        operation_id="players_me_complaints_file",
        request=ComplaintInputSerializer,
        responses={
            201: ComplaintSerializer,
            **error_responses("No text, too long, or a game you did not play online."),
        },
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        player = player_from_request(request)
        body = ComplaintInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        game = Game.objects.filter(pk=body.validated_data["game"]).first()
        if game is None:
            raise serializers.ValidationError({"game": [services.complaint_game_refused_message()]})
        complaint = services.complaint_file(player=player, game=game, text=body.validated_data["text"])
        complaint = selectors.complaint_list_for_player(player=player).get(pk=complaint.pk)
        return Response(ComplaintSerializer(complaint).data, status=status.HTTP_201_CREATED)


# --- the managers' side ------------------------------------------------------------------------


class StaffComplaintSerializer(ComplaintSerializer):
    player = serializers.IntegerField(source="player_id")
    player_name = serializers.SerializerMethodField()
    hall = serializers.IntegerField(source="game.session.room.hall_id")
    session = serializers.IntegerField(source="game.session_id")
    complaint_note = serializers.IntegerField(source="complaint_note_id", allow_null=True)
    decision_note = serializers.IntegerField(source="decision_note_id", allow_null=True)

    def get_player_name(self, complaint: Any) -> str:
        user = complaint.player.user
        return str(user.get_full_name() or user.get_username())


class DecisionInputSerializer(serializers.Serializer[Any]):
    # Blank reaches the service, which refuses it with the page's message (400, nothing changed).
    decision = serializers.CharField(max_length=COMPLAINT_MAX_LENGTH, allow_blank=True, trim_whitespace=False)


def _decided_already() -> Conflict:
    return Conflict(_("This complaint was decided already."))


class StaffComplaintListView(APIView):
    """R61 j), managers: the complaints about the games of the halls they manage, open ones first
    (oldest first), then decided ones (newest decision first); ``?open=1`` only the open ones,
    ``?open=0`` only the decided ones. The same list as the page «Reclamações dos jogadores»."""

    permission_classes = [IsManager]

    @extend_schema(
        operation_id="complaints_list",
        parameters=[
            OpenApiParameter(
                "open", bool, description="1: only the open complaints; 0: only the decided ones."
            )
        ],
        responses={200: StaffComplaintSerializer(many=True), 403: ErrorSerializer},
        tags=["complaints"],
    )
    def get(self, request: Request) -> Response:
        raw = request.query_params.get("open")
        open_only: bool | None = None
        if raw is not None and raw != "":
            if raw.lower() in ("1", "true", "yes"):
                open_only = True
            elif raw.lower() in ("0", "false", "no"):
                open_only = False
            else:
                raise serializers.ValidationError({"open": [_("Use 1 or 0.")]})
        found = selectors.complaint_list_for_staff(user=request.user, open_only=open_only)
        return Response(StaffComplaintSerializer(found, many=True).data)


class StaffComplaintDecisionView(APIView):
    """R61 j), managers: record the decision on one complaint of their halls, once; it goes into
    the session's acta as a decision referring to the complaint's note, and the player reads it
    in ``GET /api/players/me/complaints/``. Decided already: 409, nothing changed."""

    permission_classes = [IsManager]

    @extend_schema(
        operation_id="complaints_decide",
        request=DecisionInputSerializer,
        responses={
            201: StaffComplaintSerializer,
            **error_responses("No decision, or too long."),
            409: OpenApiResponse(ErrorSerializer, description="The complaint was decided already."),
        },
        tags=["complaints"],
    )
    def post(self, request: Request, complaint_id: int) -> Response:
        try:
            complaint = selectors.complaint_get_for_staff(user=request.user, complaint_id=complaint_id)
        except PlayerComplaint.DoesNotExist:
            raise NotFound from None
        if complaint.decided:
            raise _decided_already()
        body = DecisionInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            services.complaint_decide(
                complaint=complaint,
                user=request.user,  # type: ignore[arg-type]
                decision=body.validated_data["decision"],
            )
        except ValidationError:
            # Another manager decided it in between: the same answer as deciding it twice.
            if selectors.complaint_get_for_staff(user=request.user, complaint_id=complaint.pk).decided:
                raise _decided_already() from None
            raise
        complaint = selectors.complaint_get_for_staff(user=request.user, complaint_id=complaint.pk)
        return Response(StaffComplaintSerializer(complaint).data, status=status.HTTP_201_CREATED)
