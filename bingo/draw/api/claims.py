"""Claims and prizes over the API: a claimed card checked, a prize awarded (R6, R9, R43-R49).

``ClaimCreateView`` checks a claimed card against the balls drawn (R43, R49) and records the
claim whatever its outcome (late claims are refused, R47); a valid one lists every sold card
holding the prize now («Mais alguma linha?», R46). ``PrizeCreateView`` awards the prize to all
of them in equal parts (R6); a bingo also decides the jackpot (R9) and ends the game (R44).
"""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common import bounds
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.draw.api.console import ClaimSerializer, PrizeSerializer
from bingo.draw.api.fields import ClaimableKindField, GameStateField, OutcomeField, PrizeKindField, responses
from bingo.draw.selectors import ClaimResult
from bingo.games.access import game_for, hall_id_of
from bingo.models import Game, Prize, PrizeKind
from cards.models import Series
from halls.access import HALL_WRITES, request_user, require_hall_role


class ClaimCreateSerializer(serializers.Serializer[Any]):
    """A claimed card (R43): its series (one playing in the game), its number, the prize."""

    series: serializers.PrimaryKeyRelatedField[Series] = serializers.PrimaryKeyRelatedField(
        queryset=Series.objects.all(), help_text="A series playing in this game (id)."
    )
    card_number = serializers.IntegerField(min_value=1, max_value=bounds.CARD_NUMBER_MAX)
    kind = ClaimableKindField()

    def validate_series(self, series: Series) -> Series:
        game: Game = self.context["game"]
        if series.pk not in {entry.series_id for entry in game.on_sale.all()}:
            self.fields["series"].fail("does_not_exist", pk_value=series.pk)
        return series


class HolderSerializer(serializers.Serializer[Any]):
    """A sold card holding the claimed prize now («Mais alguma linha?», R46)."""

    series = serializers.IntegerField()
    series_label = serializers.CharField()
    card_number = serializers.IntegerField()
    completed_at = serializers.IntegerField(help_text="The ball count at which it held the prize (R49).")


class CardPrizeSerializer(serializers.Serializer[Any]):
    """One prize on the claimed card."""

    kind = PrizeKindField()
    holds = serializers.BooleanField()
    missing = serializers.IntegerField(help_text="Numbers still missing for its nearest combination.")
    completed_at = serializers.IntegerField(allow_null=True)


class MarkedCardSerializer(serializers.Serializer[Any]):
    """The claimed card with the numbers drawn marked."""

    series = serializers.IntegerField()
    series_label = serializers.CharField()
    number = serializers.IntegerField()
    grid = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(allow_null=True)),
        help_text="The card row by row; null where no number is printed (or the free centre).",
    )
    marks = serializers.ListField(
        child=serializers.ListField(child=serializers.BooleanField()),
        help_text="Marked cells, row by row: numbers drawn, and the free centre (R72).",
    )
    prizes = CardPrizeSerializer(many=True)


class ClaimResultSerializer(serializers.Serializer[Any]):
    """The answer to a claim: the outcome, the card marked, every card holding the prize (R46)."""

    outcome = OutcomeField(help_text="valid, false, late (R47) or not_sold.")
    valid = serializers.BooleanField()
    claim = ClaimSerializer()
    card = MarkedCardSerializer(
        allow_null=True, help_text="Null when the card was not checked (late, not sold)."
    )
    holders = HolderSerializer(many=True, help_text="Empty unless the claim is valid.")
    first = serializers.ListField(
        child=ClaimableKindField(),
        help_text="Prizes to award before this one (R44: the line before the bingo).",
    )


def _claim_answer(game: Game, result: ClaimResult) -> dict[str, Any]:
    labels = {entry.series_id: entry.series.label for entry in game.on_sale.all()}
    claim = result.claim
    check = result.check
    card = None
    if check is not None:
        card = {
            "series": claim.series_id,
            "series_label": claim.series.label,
            "number": claim.card_number,
            "grid": check.grid,
            "marks": check.marks,
            "prizes": [
                {
                    "kind": p.prize.value,
                    "holds": p.holds,
                    "missing": p.missing,
                    "completed_at": p.completed_at,
                }
                for p in check.prizes
            ],
        }
    return {
        "outcome": claim.outcome,
        "valid": result.valid,
        "claim": claim,
        "card": card,
        "holders": [
            {
                "series": w.card.series_id,
                "series_label": labels.get(w.card.series_id, "?"),
                "card_number": w.card.number,
                "completed_at": w.completed_at,
            }
            for w in result.holders
        ],
        "first": list(result.first),
    }


class ClaimCreateView(APIView):
    """Check a claimed card against the balls drawn (R43, R49) and record the claim, valid or
    not; a valid one lists every sold card holding the prize now (R46) (a caller of the game's
    hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CALLER,)

    @extend_schema(
        operation_id="games_claims_create",
        request=ClaimCreateSerializer,
        responses=responses(ClaimResultSerializer, 201),
        tags=["draw"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        form = ClaimCreateSerializer(data=request.data, context={"game": game})
        form.is_valid(raise_exception=True)
        data = form.validated_data
        result = draw_services.claim_check(
            game=game,
            user=request_user(request),
            series=data["series"],
            card_number=data["card_number"],
            kind=data["kind"],
        )
        return Response(
            ClaimResultSerializer(_claim_answer(game, result)).data, status=status.HTTP_201_CREATED
        )


class AwardSerializer(serializers.Serializer[Any]):
    """The prize to award: it goes to every sold card holding it now (R46, R49)."""

    kind = ClaimableKindField()


class AwardResultSerializer(serializers.Serializer[Any]):
    """A prize awarded; a bingo within the announced balls also wins the jackpot (R9)."""

    prize = PrizeSerializer()
    jackpot = PrizeSerializer(allow_null=True, help_text="The jackpot, when this bingo won it (R9).")
    state = GameStateField(help_text="The game's state after the award: a bingo finishes it (R44).")


class PrizeCreateView(APIView):
    """Award a prize to every sold card holding it now, in equal parts (R6, R46, R49); a bingo
    also decides the jackpot (R9) and ends the game (R44) (a caller of the game's hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CALLER,)

    @extend_schema(
        operation_id="games_prizes_create",
        request=AwardSerializer,
        responses=responses(AwardResultSerializer, 201),
        tags=["draw"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        form = AwardSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        prize = draw_services.prize_award(
            game=game, user=request_user(request), kind=form.validated_data["kind"]
        )
        # Read back with the winning cards; the jackpot row exists only if this bingo won it.
        awarded = {
            p.kind: p
            for p in Prize.objects.filter(game=game)
            .select_related("awarded_by")
            .prefetch_related("cards__series")
        }
        answer = {
            "prize": awarded[prize.kind],
            "jackpot": awarded.get(PrizeKind.JACKPOT.value) if prize.kind == PrizeKind.BINGO else None,
            "state": prize.game.state,
        }
        return Response(AwardResultSerializer(answer).data, status=status.HTTP_201_CREATED)
