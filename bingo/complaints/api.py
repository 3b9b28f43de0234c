"""The player's complaints over the API (R61 j)): ``GET`` lists theirs with the answers,
``POST`` files one about an online game they bought cards in. A thin adapter over
``bingo.complaints.services.complaint_file``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common.api import ErrorSerializer, has_role
from bingo.common.roles import Role
from bingo.complaints import selectors, services
from bingo.models import COMPLAINT_MAX_LENGTH, Game, Player
from bingo.players import selectors as player_selectors

IsPlayer = has_role(Role.PLAYER)


class ComplaintInputSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField(help_text="The id of an online game you bought cards in.")
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


def _player(request: Request) -> Player:
    try:
        return player_selectors.player_get(user=request.user)
    except Player.DoesNotExist:
        raise NotFound from None


class MyComplaintsView(APIView):
    """The logged-in player's complaints, newest first, with the managers' answers; or a new one."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_complaints",
        responses={200: ComplaintSerializer(many=True), 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        player = _player(request)
        return Response(
            ComplaintSerializer(selectors.complaint_list_for_player(player=player), many=True).data
        )

    @extend_schema(
        operation_id="players_me_complaints_file",
        request=ComplaintInputSerializer,
        responses={
            201: ComplaintSerializer,
            400: OpenApiResponse(description="No text, too long, or a game you did not play online."),
            403: ErrorSerializer,
            404: ErrorSerializer,
        },
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        player = _player(request)
        body = ComplaintInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        game = Game.objects.filter(pk=body.validated_data["game"]).first()
        if game is None:
            raise serializers.ValidationError({"game": [services.complaint_game_refused_message()]})
        complaint = services.complaint_file(player=player, game=game, text=body.validated_data["text"])
        complaint = selectors.complaint_list_for_player(player=player).get(pk=complaint.pk)
        return Response(ComplaintSerializer(complaint).data, status=status.HTTP_201_CREATED)
