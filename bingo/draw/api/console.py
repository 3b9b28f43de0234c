"""The caller's console over the API: the game's balls, prizes and claims, and what the draw waits for.

``DrawStateView`` reads it (a caller or a manager of the game's hall), and every change of the
draw answers with it (``state_response``: balls.py, faults.py). Its serializers are the rows the
console shows, which the other modules answer with too: the balls (R13, R42, R77), the prizes
awarded and their shares (R6, R49) or the cards holding them now (R46), the claims checked (R43,
R47), and what the draw waits for (R43, R44, R46, R55).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common.api import ErrorSerializer, MoneyField, VariantField, username_field
from bingo.common.roles import Role
from bingo.draw import selectors as draw_selectors
from bingo.draw.api.fields import (
    ClaimableKindField,
    DrawModeField,
    GameStateField,
    OutcomeField,
    PrizeKindField,
    SourceField,
    WaitingField,
)
from bingo.engine.gamestate import annul_from
from bingo.games.access import game_for, hall_id_of
from bingo.models import Ball, Claim, Game, GameState, Prize, PrizeWinner
from halls.access import require_hall_role


class BallSerializer(serializers.Serializer[Any]):
    """A ball drawn (R42)."""

    position = serializers.IntegerField(help_text="1 for the first ball: the ball count (R13).")
    number = serializers.IntegerField()
    label = serializers.CharField(  # type: ignore[assignment]
        help_text='As announced: the number, with its column letter in 75-ball ("N 42", R77).'
    )
    source = SourceField(  # type: ignore[assignment]
        help_text="electronic (drawn by the system) or manual (keyed in)."
    )
    drawn_at = serializers.DateTimeField()


class WinningCardSerializer(serializers.ModelSerializer[PrizeWinner]):
    """A card a prize was awarded to, and its share (R6)."""

    series_label = serializers.CharField(source="series.label", read_only=True)
    completed_at = serializers.IntegerField(
        source="completed_at_ball",
        read_only=True,
        help_text="The ball count at which it held the prize (R49).",
    )
    amount = MoneyField(read_only=True)

    class Meta:
        model = PrizeWinner
        fields = ["series", "series_label", "card_number", "completed_at", "amount"]
        read_only_fields = fields


class PrizeSerializer(serializers.ModelSerializer[Prize]):
    """A prize awarded: the total, shared in equal parts by its cards, the remainder kept (R6)."""

    kind = PrizeKindField(read_only=True)
    name = serializers.CharField(source="get_kind_display", read_only=True)
    total = MoneyField(read_only=True)
    winners = serializers.IntegerField(read_only=True, help_text="How many cards share it.")
    amount_each = MoneyField(read_only=True)
    remainder = MoneyField(read_only=True, help_text="What the rounding to the currency's unit left.")
    cards = WinningCardSerializer(many=True, read_only=True)
    awarded_by = username_field()

    class Meta:
        model = Prize
        fields = [
            "kind",
            "name",
            "balls_drawn",
            "total",
            "winners",
            "amount_each",
            "remainder",
            "cards",
            "awarded_by",
            "awarded_at",
        ]
        read_only_fields = fields


class PrizeStatusSerializer(serializers.Serializer[Any]):
    """One prize of the game as the console shows it: awarded, or who holds it now."""

    kind = PrizeKindField()
    name = serializers.CharField()
    awarded = serializers.BooleanField()
    prize = PrizeSerializer(allow_null=True, help_text="The award, once made.")
    holders = serializers.ListField(
        child=serializers.CharField(),
        help_text='Sold cards holding it now ("A-1 n.º 7"), while it is not awarded (R46).',
    )
    one_to_go = serializers.IntegerField(help_text="Sold cards one number away from it.")


class ClaimSerializer(serializers.ModelSerializer[Claim]):
    """A claim checked (R43), kept whatever its outcome."""

    kind = PrizeKindField(read_only=True)
    series_label = serializers.CharField(source="series.label", read_only=True)
    outcome = OutcomeField(read_only=True, help_text="valid, false, late (R47) or not_sold.")
    balls_drawn = serializers.IntegerField(read_only=True, help_text="The balls drawn when it was checked.")
    claimed_by = username_field()

    class Meta:
        model = Claim
        fields = [
            "id",
            "kind",
            "series",
            "series_label",
            "card_number",
            "balls_drawn",
            "outcome",
            "claimed_by",
            "created_at",
        ]
        read_only_fields = fields


class DrawStateSerializer(serializers.Serializer[Any]):
    """The caller's console: the balls, each prize, the claims, and what the draw waits for."""

    game = serializers.IntegerField(help_text="The game's id.")
    number = serializers.IntegerField(help_text="The game's number in its session.")
    hall = serializers.IntegerField()
    variant = VariantField()
    state = GameStateField()
    state_reason = serializers.CharField(
        help_text="Why it was last suspended, annulled or switched to manual."
    )
    draw_mode = DrawModeField()
    electronic = serializers.BooleanField(
        help_text="Whether the system draws the next ball (false: key it in from the blower)."
    )
    manual_from_ball = serializers.IntegerField(
        allow_null=True, help_text="R55: the first ball keyed in after the mechanism failed."
    )
    jackpot_active = serializers.BooleanField()
    currency = serializers.CharField()
    cards_sold = serializers.IntegerField()
    sales_total = MoneyField()
    balls = BallSerializer(many=True, help_text="Every ball drawn, in order.")
    count = serializers.IntegerField(help_text="How many balls are out (R13).")
    next_position = serializers.IntegerField(help_text="The position to send for the next ball.")
    last = BallSerializer(allow_null=True, help_text="The last ball drawn.")
    prizes = PrizeStatusSerializer(
        many=True, help_text="In the order they are decided (R44); the jackpot last."
    )
    claims = ClaimSerializer(many=True, help_text="Every claim checked in this game, oldest first.")
    claims_waiting = serializers.ListField(
        child=ClaimableKindField(),
        help_text="Prizes validly claimed at the current ball and not yet awarded: no ball is "
        "drawn before they are (R43, R46).",
    )
    waiting = WaitingField(
        help_text="What the draw waits for: sales (to close), start, ball, award, resume "
        "(or annul, R55), nothing (the game is over)."
    )
    drawing_started_at = serializers.DateTimeField(allow_null=True)
    suspended_at = serializers.DateTimeField(allow_null=True)
    annul_from = serializers.DateTimeField(
        allow_null=True,
        help_text="R55: when a suspended game may be annulled if the failure is not solved (15 "
        "minutes after its suspension); null when the game is not suspended.",
    )
    finished_at = serializers.DateTimeField(allow_null=True)


def ball_data(ball: Ball, label: str) -> dict[str, Any]:
    """A drawn ball as ``BallSerializer`` renders it, with its ``label`` as announced (R77)."""
    return {
        "position": ball.position,
        "number": ball.number,
        "label": label,
        "source": ball.source,
        "drawn_at": ball.drawn_at,
    }


def _waiting(state: str, claims_waiting: list[str]) -> str:
    if state in (GameState.PLANNED, GameState.SELLING):
        return "sales"
    if state == GameState.SALES_CLOSED:
        return "start"
    if state == GameState.DRAWING:
        return "award" if claims_waiting else "ball"
    if state == GameState.SUSPENDED:
        return "resume"
    return "nothing"


def _draw_state(game: Game) -> dict[str, Any]:
    """The console of ``game`` (draw_selectors.console_state) with its claims, as the API shows it."""
    console = draw_selectors.console_state(game=game)
    game = console.game
    claims = draw_selectors.claim_list(game=game)
    count = len(console.balls)
    claims_waiting = list(console.waiting)
    balls = [ball_data(ball, label) for ball, label in zip(console.balls, console.labels, strict=True)]
    return {
        "game": game.pk,
        "number": game.number,
        "hall": hall_id_of(game),
        "variant": game.variant,
        "state": game.state,
        "state_reason": game.state_reason,
        "draw_mode": game.draw_mode,
        "electronic": console.electronic,
        "manual_from_ball": game.manual_from_ball,
        "jackpot_active": game.jackpot_active,
        "currency": game.session.room.hall.currency,
        "cards_sold": console.cards_sold,
        "sales_total": console.total,
        "balls": balls,
        "count": count,
        "next_position": console.next_position,
        "last": balls[-1] if balls else None,
        "prizes": [
            {
                "kind": status.kind,
                "name": status.name,
                "awarded": status.awarded is not None,
                "prize": status.awarded,
                "holders": list(status.holders),
                "one_to_go": status.one_to_go,
            }
            for status in console.prizes
        ],
        "claims": claims,
        "claims_waiting": claims_waiting,
        "waiting": _waiting(game.state, claims_waiting),
        "drawing_started_at": game.drawing_started_at,
        "suspended_at": game.suspended_at,
        "annul_from": (
            annul_from(game.suspended_at)
            if game.state == GameState.SUSPENDED and game.suspended_at is not None
            else None
        ),
        "finished_at": game.finished_at,
    }


def state_response(game: Game) -> Response:
    """The console's state of ``game``: what the read and every change of the draw answer."""
    return Response(DrawStateSerializer(_draw_state(game)).data)


class DrawStateView(APIView):
    """The caller's console of a game: balls, prizes, claims, what the draw waits for (a caller or
    a manager of its hall)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_draw_retrieve",
        responses={200: DrawStateSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["draw"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), Role.CALLER, Role.MANAGER)
        return state_response(game)
