"""Demo mode over the JSON API (R102, PT-803/43-44): the player's demo credits, free credits
when they run out, starting a demo game that mirrors an online room, and its state as the balls
come. Every answer carries ``"demo": true`` and the notice "DEMO — no real money". There is no
endpoint that moves demo credits to the wallet or the wallet to demo credits.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common.api import BAD_REQUEST, Conflict, ErrorSerializer, IdField
from bingo.demo import selectors, services
from bingo.models import DemoGame, OnlineRoom, Player
from bingo.online.serializers import (
    PlayerGameStateSerializer,
    StateCardSerializer,
    StateChoicesSerializer,
    StateGameSerializer,
    StatePrizeSerializer,
)
from bingo.players.access import IsPlayer, player_from_request


class DemoBalanceSerializer(serializers.Serializer[Any]):
    demo = serializers.BooleanField(help_text="Always true: demo credits are not money (R102).")
    notice = serializers.CharField()
    credits = serializers.IntegerField(help_text="Whole demo credits; no currency.")
    credits_display = serializers.CharField()
    grant_allowed = serializers.BooleanField(help_text="Free credits may be taken now.")
    grant_refused = serializers.CharField(allow_blank=True)
    grant_next_at = serializers.DateTimeField(allow_null=True)


def _balance_body(player: Player) -> dict[str, Any]:
    credits = selectors.demo_balance(player=player)
    grant = selectors.demo_grant_status(player=player)
    return {
        "demo": True,
        "notice": selectors.demo_notice(),
        "credits": credits,
        "credits_display": selectors.credits_display(credits),
        "grant_allowed": grant.allowed,
        "grant_refused": grant.reason,
        "grant_next_at": grant.next_at,
    }


class DemoBalanceView(APIView):
    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(operation_id="demo_balance_retrieve", responses=DemoBalanceSerializer, tags=["demo"])
    def get(self, request: Request) -> Response:
        return Response(DemoBalanceSerializer(_balance_body(player_from_request(request))).data)


class DemoGrantView(APIView):
    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(
        operation_id="demo_grants_create",
        request=None,
        responses={201: DemoBalanceSerializer, 400: BAD_REQUEST},
        description="Free demo credits when the balance cannot pay a card, at most once an hour (R102).",
        tags=["demo"],
    )
    def post(self, request: Request) -> Response:
        player = player_from_request(request)
        services.demo_credit_grant(player=player)
        return Response(DemoBalanceSerializer(_balance_body(player)).data, status=status.HTTP_201_CREATED)


class DemoStartSerializer(serializers.Serializer[Any]):
    room = IdField(help_text="An open online room of the player's operator to mirror.")
    cards = serializers.IntegerField(min_value=1, max_value=selectors.DEMO_MAX_CARDS)
    key = serializers.CharField(
        max_length=services.KEY_MAX, help_text="Chosen by the client; the same key again starts one game."
    )


class DemoStateGameSerializer(StateGameSerializer):
    price = serializers.IntegerField(help_text="Demo credits a card.")  # type: ignore[assignment]
    started_at = serializers.DateTimeField()
    next_ball_at = serializers.DateTimeField(allow_null=True, help_text="Null once every ball is shown.")
    cards_simulated = serializers.IntegerField(help_text="The other players' cards, simulated.")


class DemoStateCardSerializer(StateCardSerializer):
    series_id = serializers.CharField(help_text="demo<game id>: no real series.")  # type: ignore[assignment]


class DemoStatePrizeSerializer(StatePrizeSerializer):
    share = serializers.CharField(help_text="Percent of the stakes.")
    amount = serializers.IntegerField(help_text="Its value in demo credits.")  # type: ignore[assignment]


class DemoStateChoicesSerializer(StateChoicesSerializer):
    play_again = serializers.BooleanField()


class DemoGameStateSerializer(PlayerGameStateSerializer):
    """The demo game as the game screen shows it (docs/demo.md), shaped as ``player.state``:
    the balls shown so far, the player's cards, the prizes, the demo credits (R102)."""

    outcome = None  # type: ignore[assignment]
    playtime = None  # type: ignore[assignment]
    demo = serializers.BooleanField(help_text="Always true: demo credits are not money (R102).")
    notice = serializers.CharField()
    game = DemoStateGameSerializer()
    cards = DemoStateCardSerializer(many=True)
    prizes = DemoStatePrizeSerializer(many=True)
    winnings = serializers.IntegerField(allow_null=True, help_text="Credits won, once the game is over.")
    winnings_display = serializers.CharField(allow_null=True)
    balance = serializers.IntegerField(help_text="Demo credits.")  # type: ignore[assignment]
    choices = DemoStateChoicesSerializer()


_STATE = DemoGameStateSerializer


class DemoGameListView(APIView):
    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(
        operation_id="demo_games_create",
        request=DemoStartSerializer,
        responses={
            201: _STATE,
            400: BAD_REQUEST,
            404: OpenApiResponse(ErrorSerializer, description="No online room with that id is open to play."),
            409: OpenApiResponse(ErrorSerializer, description="The key was used for another demo game."),
        },
        tags=["demo"],
    )
    def post(self, request: Request) -> Response:
        player = player_from_request(request)
        form = DemoStartSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            room = selectors.demo_room_get(player=player, room_id=form.validated_data["room"])
        except OnlineRoom.DoesNotExist:
            raise Http404 from None
        try:
            game = services.demo_game_start(
                player=player,
                online_room=room,
                cards=form.validated_data["cards"],
                key=form.validated_data["key"],
            )
        except services.DemoKeyConflictError as reused:
            raise Conflict(reused.messages[0]) from None
        return Response(selectors.demo_game_state(player=player, game=game), status=status.HTTP_201_CREATED)


class DemoGameStateView(APIView):
    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(operation_id="demo_games_retrieve", responses={200: _STATE}, tags=["demo"])
    def get(self, request: Request, game_id: int) -> Response:
        player = player_from_request(request)
        try:
            game = selectors.demo_game_get(player=player, game_id=game_id)
        except DemoGame.DoesNotExist:
            raise Http404 from None
        # A finished game's winnings are credited once, on the first read after its last ball.
        services.demo_game_settle(game=game)
        return Response(selectors.demo_game_state(player=player, game=game))
