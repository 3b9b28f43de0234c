"""The draw over the JSON API: the caller's console, balls, claims, prizes, suspension, payment.

Thin adapters (STYLE rule 3) over bingo/draw/services.py, the same services the caller's console
and the cash desk's screens call (bingo/draw/views.py): a serializer parses, one service acts,
a serializer renders; the services' refusals (R42-R57) come back as 400 with their message.
Reads go through bingo/draw/selectors.py.

Access is per hall, as in bingo/games/api.py: a game of a hall the caller does not work in
answers 404; a role of the hall that does not allow the action answers 403. The callers of the
game's hall draw, check claims and award prizes; its callers and managers also read the
console and suspend, resume and annul (R55, R57); the cashiers of a desk's hall pay prizes
there (R50).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common.api import ErrorSerializer, MoneyField
from bingo.common.roles import Role
from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.draw.selectors import ClaimResult
from bingo.engine import Variant
from bingo.engine.draw import ball_label
from bingo.engine.prizes import PrizeKind as EnginePrize
from bingo.games.api import VariantField, game_for, hall_id_of
from bingo.models import Ball, Claim, DrawMode, Game, GameState, Prize, PrizeKind, PrizePayment, PrizeWinner
from cards.models import Series
from halls.api import HALL_WRITES, request_user, require_hall_role, staff_halls
from halls.models import BallSet, CashDesk

# --- fields -----------------------------------------------------------------------------------

# Choices travel as patterned strings, not enums: other components already have fields named
# "kind", "state" or "source", and a second enum of the same name makes drf-spectacular warn.


def _pattern(values: list[str]) -> dict[str, str]:
    return {"type": "string", "pattern": f"^({'|'.join(values)})$"}


#: The prizes a claim or an award may name; the game's plan says which of them it pays.
_CLAIMABLE = [kind.value for kind in EnginePrize]

#: What the console waits for: the sales to close, the start of the draw, the next ball, the
#: award of a prize validly claimed (R43, R46), the end of a suspension (R55), or nothing more.
WAITING = ["sales", "start", "ball", "award", "resume", "nothing"]


@extend_schema_field(_pattern(_CLAIMABLE))
class ClaimableKindField(serializers.ChoiceField):
    """A prize a claim or an award names: line, bingo, four_corners or column."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", "The prize: " + ", ".join(_CLAIMABLE) + " (the game's plan decides).")
        super().__init__(choices=_CLAIMABLE, **kwargs)


@extend_schema_field(_pattern(DrawMode.values))
class DrawModeField(serializers.ChoiceField):
    """How the balls come out: electronic (the system draws) or physical (keyed in, R22-R25)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=DrawMode.values, **kwargs)


@extend_schema_field(_pattern(PrizeKind.values))
class _PrizeKindField(serializers.CharField):
    pass


@extend_schema_field(_pattern(GameState.values))
class _GameStateField(serializers.CharField):
    pass


@extend_schema_field(_pattern(Ball.Source.values))
class _SourceField(serializers.CharField):
    pass


@extend_schema_field(_pattern(Claim.Outcome.values))
class _OutcomeField(serializers.CharField):
    pass


@extend_schema_field(_pattern(WAITING))
class _WaitingField(serializers.CharField):
    pass


# --- serializers: what comes in ------------------------------------------------------------------


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
        help_text="1 for the first ball. Sending the same position again draws nothing more (R42).",
    )
    number = serializers.IntegerField(
        allow_null=True,
        required=False,
        default=None,
        help_text="The ball keyed in from the blower; null or left out in an electronic draw.",
    )


class DrawReasonSerializer(serializers.Serializer[Any]):
    """Why: what failed (R55), or why a game is annulled (R57). Always recorded."""

    reason = serializers.CharField(max_length=500)


class ClaimCreateSerializer(serializers.Serializer[Any]):
    """A claimed card (R43): its series (one playing in the game), its number, the prize."""

    series: serializers.PrimaryKeyRelatedField[Series] = serializers.PrimaryKeyRelatedField(
        queryset=Series.objects.all(), help_text="A series playing in this game (id)."
    )
    card_number = serializers.IntegerField(min_value=1)
    kind = ClaimableKindField()

    def validate_series(self, series: Series) -> Series:
        game: Game = self.context["game"]
        if series.pk not in {entry.series_id for entry in game.on_sale.all()}:
            self.fields["series"].fail("does_not_exist", pk_value=series.pk)
        return series


class AwardSerializer(serializers.Serializer[Any]):
    """The prize to award: it goes to every sold card holding it now (R46, R49)."""

    kind = ClaimableKindField()


class PrizePaymentCreateSerializer(serializers.Serializer[Any]):
    """A winning card handed in at a desk (R50): series, number, check code, and the desk."""

    series: serializers.PrimaryKeyRelatedField[Series] = serializers.PrimaryKeyRelatedField(
        queryset=Series.objects.select_related("hall"), help_text="The card's series (id)."
    )
    card_number = serializers.IntegerField(min_value=1)
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


# --- serializers: what goes out ------------------------------------------------------------------


class BallSerializer(serializers.Serializer[Any]):
    """A ball drawn (R42)."""

    position = serializers.IntegerField(help_text="1 for the first ball: the ball count (R13).")
    number = serializers.IntegerField()
    label = serializers.CharField(  # type: ignore[assignment]
        help_text='As announced: the number, with its column letter in 75-ball ("N 42", R77).'
    )
    source = _SourceField(  # type: ignore[assignment]
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

    kind = _PrizeKindField(read_only=True)
    name = serializers.CharField(source="get_kind_display", read_only=True)
    total = MoneyField(read_only=True)
    winners = serializers.IntegerField(read_only=True, help_text="How many cards share it.")
    amount_each = MoneyField(read_only=True)
    remainder = MoneyField(read_only=True, help_text="What the rounding to the currency's unit left.")
    cards = WinningCardSerializer(many=True, read_only=True)
    awarded_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

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

    kind = _PrizeKindField()
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

    kind = _PrizeKindField(read_only=True)
    series_label = serializers.CharField(source="series.label", read_only=True)
    outcome = _OutcomeField(read_only=True, help_text="valid, false, late (R47) or not_sold.")
    balls_drawn = serializers.IntegerField(read_only=True, help_text="The balls drawn when it was checked.")
    claimed_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

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
    state = _GameStateField()
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
    waiting = _WaitingField(
        help_text="What the draw waits for: sales (to close), start, ball, award, resume "
        "(or annul, R55), nothing (the game is over)."
    )
    drawing_started_at = serializers.DateTimeField(allow_null=True)
    suspended_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class HolderSerializer(serializers.Serializer[Any]):
    """A sold card holding the claimed prize now («Mais alguma linha?», R46)."""

    series = serializers.IntegerField()
    series_label = serializers.CharField()
    card_number = serializers.IntegerField()
    completed_at = serializers.IntegerField(help_text="The ball count at which it held the prize (R49).")


class CardPrizeSerializer(serializers.Serializer[Any]):
    """One prize on the claimed card."""

    kind = _PrizeKindField()
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

    outcome = _OutcomeField(help_text="valid, false, late (R47) or not_sold.")
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


class AwardResultSerializer(serializers.Serializer[Any]):
    """A prize awarded; a bingo within the announced balls also wins the jackpot (R9)."""

    prize = PrizeSerializer()
    jackpot = PrizeSerializer(allow_null=True, help_text="The jackpot, when this bingo won it (R9).")
    state = _GameStateField(help_text="The game's state after the award: a bingo finishes it (R44).")


class PrizePaymentSerializer(serializers.ModelSerializer[PrizePayment]):
    """One prize paid for the card: gross, tax withheld under the hall's rule, net (R50)."""

    game = serializers.IntegerField(source="winner.prize.game_id", read_only=True)
    kind = _PrizeKindField(source="winner.prize.kind", read_only=True)
    series = serializers.IntegerField(source="winner.series_id", read_only=True)
    series_label = serializers.CharField(source="winner.series.label", read_only=True)
    card_number = serializers.IntegerField(source="winner.card_number", read_only=True)
    gross = MoneyField(read_only=True)
    tax_withheld = MoneyField(read_only=True)
    net = MoneyField(read_only=True)
    cashier: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

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


# --- helpers ----------------------------------------------------------------------------------


def _ball(ball: Ball, label: str) -> dict[str, Any]:
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
    balls = [_ball(ball, label) for ball, label in zip(console.balls, console.labels, strict=True)]
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
        "finished_at": game.finished_at,
    }


def _state_response(game: Game) -> Response:
    return Response(DrawStateSerializer(_draw_state(game)).data)


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


_REFUSED = "Refused by the draw's rules (the message says which); nothing changed."


def _responses(ok: Any, code: int = 200, refused: str = _REFUSED) -> dict[int, Any]:
    return {
        code: ok,
        400: OpenApiResponse(description=refused),
        403: ErrorSerializer,
        404: ErrorSerializer,
    }


# --- the console --------------------------------------------------------------------------------


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
        return _state_response(game)


class DrawStartView(APIView):
    """Start the draw once sales closed (R42): electronic, or physical with the hall's ball set
    (R22-R25) (a caller of the game's hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CALLER,)

    @extend_schema(
        operation_id="games_draw_start",
        request=DrawStartSerializer,
        responses=_responses(DrawStateSerializer),
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
        return _state_response(game)


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
            400: OpenApiResponse(description=_REFUSED),
            403: ErrorSerializer,
            404: ErrorSerializer,
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
            BallSerializer(_ball(ball, label)).data,
            status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED,
        )


class _ReasonedChangeView(APIView):
    """A change of the draw that records why (R55, R57): the reason in, the console state out.
    Subclasses say who may make it (``write_roles``, in the game's hall) and make it (``change``)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CALLER, Role.MANAGER)

    def change(self, game: Game, user: User, reason: str) -> None:
        raise NotImplementedError

    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        form = DrawReasonSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        self.change(game, request_user(request), form.validated_data["reason"])
        return _state_response(game)


@extend_schema_view(
    post=extend_schema(
        operation_id="games_manual",
        request=DrawReasonSerializer,
        responses=_responses(DrawStateSerializer),
        tags=["draw"],
    )
)
class ManualView(_ReasonedChangeView):
    """R55: the electronic mechanism failed after the first ball; from the next ball on the
    caller keys in the blower's balls (a caller of the game's hall)."""

    write_roles = (Role.CALLER,)

    def change(self, game: Game, user: User, reason: str) -> None:
        draw_services.game_switch_to_manual(game=game, user=user, reason=reason)


class ClaimCreateView(APIView):
    """Check a claimed card against the balls drawn (R43, R49) and record the claim, valid or
    not; a valid one lists every sold card holding the prize now (R46) (a caller of the game's
    hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CALLER,)

    @extend_schema(
        operation_id="games_claims_create",
        request=ClaimCreateSerializer,
        responses=_responses(ClaimResultSerializer, 201),
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


class PrizeCreateView(APIView):
    """Award a prize to every sold card holding it now, in equal parts (R6, R46, R49); a bingo
    also decides the jackpot (R9) and ends the game (R44) (a caller of the game's hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CALLER,)

    @extend_schema(
        operation_id="games_prizes_create",
        request=AwardSerializer,
        responses=_responses(AwardResultSerializer, 201),
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


# --- suspension and annulment (R55, R57) -----------------------------------------------------------


@extend_schema_view(
    post=extend_schema(
        operation_id="games_suspend",
        request=DrawReasonSerializer,
        responses=_responses(DrawStateSerializer),
        tags=["draw"],
    )
)
class SuspendView(_ReasonedChangeView):
    """R55: a failure before the first ball suspends the game (a caller or a manager of its hall)."""

    def change(self, game: Game, user: User, reason: str) -> None:
        draw_services.game_suspend(game=game, user=user, reason=reason)


class ResumeView(APIView):
    """R55: the failure was solved within 15 minutes; the game is ready to draw again (a caller
    or a manager of its hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (
        Role.CALLER,
        Role.MANAGER,
    )

    @extend_schema(
        operation_id="games_resume",
        request=None,
        responses=_responses(DrawStateSerializer),
        tags=["draw"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        draw_services.game_resume(game=game, user=request_user(request))
        return _state_response(game)


@extend_schema_view(
    post=extend_schema(
        operation_id="games_annul",
        request=DrawReasonSerializer,
        responses=_responses(DrawStateSerializer),
        tags=["draw"],
    )
)
class AnnulView(_ReasonedChangeView):
    """Annul the game and refund every card sold in full: a suspension unsolved after 15 minutes
    (R55), or an announcement error that affects the result (R57) (a caller or a manager of its
    hall)."""

    def change(self, game: Game, user: User, reason: str) -> None:
        draw_services.game_annul(game=game, user=user, reason=reason)


# --- prize payment at the cash desk (R50) ----------------------------------------------------------


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
            400: OpenApiResponse(
                description="Refused (a wrong code, nothing to pay, a game not ended, R45, a desk "
                "or series of a hall the caller does not work in); nothing paid."
            ),
            403: ErrorSerializer,
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
