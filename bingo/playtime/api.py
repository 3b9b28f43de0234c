"""The player's play sessions through the API (the logged-in player only): the ended sessions
with their summaries (PT-806/67), the open session's state (reminders, time limit R101,
inactivity PT-806/70-71), the answer to the inactivity invitation, and the time limit."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common.api import (
    BAD_REQUEST,
    ErrorSerializer,
    MoneyField,
    page_by_hand,
    page_parameters,
)
from bingo.players.access import IsPlayer, player_from_request
from bingo.playtime import selectors, services
from bingo.playtime.serializers import PlaytimeStateSerializer


class PlaySessionSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="session.pk")
    started_at = serializers.DateTimeField(source="session.started_at")
    ended_at = serializers.DateTimeField(source="session.ended_at")
    end_reason = serializers.CharField(source="session.end_reason")
    minutes = serializers.IntegerField(help_text="Time played, in minutes.")
    staked = MoneyField(source="session.staked", max_digits=14)
    won = MoneyField(source="session.won", max_digits=14)
    refunded = MoneyField(source="session.refunded", max_digits=14)
    net = MoneyField(source="session.net", max_digits=14)
    games = serializers.IntegerField(source="session.games")
    games_in_play = serializers.IntegerField(source="session.games_in_play")


class PlaySessionListSerializer(serializers.Serializer[Any]):
    currency = serializers.CharField()
    current = PlaytimeStateSerializer()
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = PlaySessionSerializer(many=True)


class MySessionsView(APIView):
    """PT-806/67: the logged-in player's ended play sessions with their summaries, newest first,
    and the one open now."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_sessions",
        parameters=page_parameters("Sessions"),
        responses={200: PlaySessionListSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        player = player_from_request(request)
        page, links = page_by_hand(request, self, selectors.play_session_list(player=player))
        body = {
            "currency": player.hall.currency,
            "current": selectors.playtime_state(player=player),
            **links,
            "results": [{"session": s, "minutes": selectors.played_seconds(session=s) // 60} for s in page],
        }
        return Response(PlaySessionListSerializer(body).data)


class PlaytimeView(APIView):
    """The open play session's state: minutes played and reminders, the time limit (R101), the
    inactivity count and stage (PT-806/70-71), and whether it must end now."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_playtime",
        responses={200: PlaytimeStateSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        return Response(
            PlaytimeStateSerializer(selectors.playtime_state(player=player_from_request(request))).data
        )


class PlaytimeContinueView(APIView):
    """PT-806/71: the player goes on after the inactivity invitation («Continuar»): from now the
    session ends if they buy nothing in the next game. 400 when there is no invitation."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_playtime_continue",
        request=None,
        responses={200: PlaytimeStateSerializer, 400: BAD_REQUEST, 403: ErrorSerializer},
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        player = player_from_request(request)
        session = selectors.play_session_open_get(player=player)
        if session is None:
            raise NotFound
        services.play_session_continue(session=session)
        return Response(PlaytimeStateSerializer(selectors.playtime_state(player=player)).data)


class PlayLimitSerializer(serializers.Serializer[Any]):
    session_minutes = serializers.IntegerField(
        allow_null=True,
        min_value=services.LIMIT_MIN,
        max_value=services.LIMIT_MAX,
        help_text=f"{services.LIMIT_MIN} to {services.LIMIT_MAX}; null: no limit.",
    )
    reminder_minutes = serializers.ChoiceField(
        choices=services.REMINDER_CHOICES, allow_null=True, help_text="15, 30 or 60; null: none."
    )


class PlayLimitOutSerializer(PlayLimitSerializer):
    pending = serializers.BooleanField(help_text="A looser limit waits for its 24 hours.")
    next_minutes = serializers.IntegerField(allow_null=True)
    next_from = serializers.DateTimeField(allow_null=True)


class PlayLimitView(APIView):
    """R101: the player's session time limit and reminders. PUT sets them: a tighter limit
    applies at once, a looser one (longer, or none) 24 hours later."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_playtime_limit",
        responses={200: PlayLimitOutSerializer, 403: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        return Response(
            PlayLimitOutSerializer(selectors.play_limits(player=player_from_request(request))).data
        )

    @extend_schema(
        operation_id="players_me_playtime_limit_set",
        request=PlayLimitSerializer,
        responses={200: PlayLimitOutSerializer, 400: BAD_REQUEST, 403: ErrorSerializer},
        tags=["players"],
    )
    def put(self, request: Request) -> Response:
        player = player_from_request(request)
        data = PlayLimitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.play_limit_set(player=player, **data.validated_data)
        return Response(PlayLimitOutSerializer(selectors.play_limits(player=player)).data)
