"""Online play over the JSON API (R85-R97).

Managers: the online rooms of the halls they manage (create, read, change: mode, ball interval
never under 1 s (R88), sales window, pause, variant, prize plan, the 75-ball games' pattern
(R73 b)), open or closed) and the
sessions of a session-mode room (several games, variants and prices at once, R92; one close of
sales for all, R93). Players: the lobby, buying cards (paid from the wallet, idempotent on the
client's key), their standing orders for a room's next games (placed, listed, cancelled; filled
as each game's sales open for everyone, R93), their own view of a game (cards, marks, one to go,
prizes), their marking (R96).
Every view checks the role first (IsAuthenticated, then the role), then the hall.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common import bounds
from bingo.common.api import (
    BAD_REQUEST,
    Conflict,
    DecimalTextField,
    ErrorSerializer,
    HallClockField,
    JSONBooleanField,
    MoneyField,
    VariantField,
    error_responses,
    flat_validated,
    has_role,
    money_text,
)
from bingo.common.clock import hall_zone
from bingo.common.forms import in_hall_times
from bingo.common.patterns import pattern_stored_shown
from bingo.common.roles import Role
from bingo.engine.patterns import CUSTOM, LIBRARY
from bingo.models import (
    ORDER_KEY_MAX,
    Game,
    Marking,
    OnlineOrder,
    OnlineOrderFill,
    OnlineRoom,
    Player,
    RoomMode,
)
from bingo.online import selectors, services
from bingo.online.serializers import PatternShownSerializer, PlayerGameStateSerializer
from bingo.players.access import IsPlayer, player_from_request
from halls.access import request_user
from halls.models import Hall
from halls.selectors import hall_list_for

IsManager = has_role(Role.MANAGER)


def _plan_field() -> serializers.DictField:
    return serializers.DictField(
        child=serializers.CharField(),
        required=False,
        allow_null=True,
        help_text='Shares of sales in percent by prize, e.g. {"line": "20", "bingo": "60"} (R7); '
        "null: the variant's default.",
    )


def _interval_field(**kwargs: Any) -> serializers.DecimalField:
    if not kwargs.get("read_only"):
        kwargs.update(
            min_value=bounds.BALL_INTERVAL_MIN,
            max_value=bounds.BALL_INTERVAL_MAX,
            error_messages={"min_value": _("Balls are drawn at least one second apart (R88).")},
        )
    return DecimalTextField(
        max_digits=6,
        decimal_places=2,
        help_text="Seconds between balls, never under 1 (R88).",
        **kwargs,
    )


class RoomIdleSerializer(serializers.Serializer[Any]):
    """Why an online room sells nothing, as the system last found it."""

    reason = serializers.CharField(
        help_text="no_series: the hall has no online series of the room's variant with cards left "
        "to sell (continuous mode); session_no_series: a started session cannot open its sales, one "
        "of its games has no online series of its variant and price (session mode)."
    )
    message = serializers.CharField(help_text="What the manager reads, in the request's language.")
    since = serializers.DateTimeField(allow_null=True)


class OnlineRoomSerializer(serializers.ModelSerializer[OnlineRoom]):
    """An online room as the API shows it."""

    id = serializers.IntegerField(source="pk", read_only=True)
    hall = serializers.IntegerField(source="room.hall_id", read_only=True)
    name = serializers.CharField(source="room.name", read_only=True)
    mode = serializers.CharField(read_only=True, help_text="continuous (R90) or session (R91).")
    variant = serializers.CharField(read_only=True)
    ball_interval = _interval_field(read_only=True)
    idle = serializers.SerializerMethodField(
        help_text="Why the room, open to players, sells nothing (null: nothing stops it)."
    )
    pattern = serializers.SerializerMethodField(
        help_text="R73 b): the library key of the pattern its 75-ball games' bingo is, or `custom`; "
        "null: the full card. Each game keeps the pattern it was created with."
    )
    pattern_cells = serializers.SerializerMethodField(
        help_text="The pattern's cells row by row (X in it, . not, rows separated by /); null: the full card."
    )

    class Meta:
        model = OnlineRoom
        fields = [
            "id",
            "hall",
            "name",
            "mode",
            "ball_interval",
            "sales_seconds",
            "pause_seconds",
            "sales_after_first_seconds",
            "variant",
            "prize_plan",
            "pattern",
            "pattern_cells",
            "strips",
            "active",
            "idle",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=[*LIBRARY, CUSTOM], allow_null=True))
    def get_pattern(self, room: OnlineRoom) -> str | None:
        shown = pattern_stored_shown(room.pattern)
        return None if shown is None else str(shown["key"])

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_pattern_cells(self, room: OnlineRoom) -> str | None:
        if not room.pattern:
            return None
        return LIBRARY[room.pattern].text if room.pattern in LIBRARY else room.pattern

    @extend_schema_field(RoomIdleSerializer(allow_null=True))
    def get_idle(self, room: OnlineRoom) -> dict[str, Any] | None:
        idle = selectors.online_room_idle(online_room=room)
        return None if idle is None else dict(RoomIdleSerializer(idle).data)


class OnlineRoomWriteSerializer(serializers.Serializer[Any]):
    """A new online room, or the fields of one to change (PATCH)."""

    hall = serializers.PrimaryKeyRelatedField(
        queryset=Hall.objects.all(), help_text="A hall the caller manages."
    )
    name = serializers.CharField(max_length=80)
    mode = serializers.ChoiceField(choices=RoomMode.choices)
    ball_interval = _interval_field()
    sales_seconds = serializers.IntegerField(
        required=False,
        min_value=bounds.SALES_SECONDS_MIN,
        max_value=bounds.SALES_SECONDS_MAX,
        help_text="Continuous mode: the sales window (R90), 5 s to an hour.",
    )
    pause_seconds = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=bounds.PAUSE_SECONDS_MAX,
        help_text="Continuous mode: pause between games, up to an hour.",
    )
    sales_after_first_seconds = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=bounds.SALES_AFTER_FIRST_SECONDS_MAX,
        help_text="Continuous mode: a game sells at least this long after its first purchase (0: off).",
    )
    variant = VariantField(required=False)
    prize_plan = _plan_field()
    pattern = serializers.ChoiceField(
        choices=[*LIBRARY, CUSTOM],
        required=False,
        allow_null=True,
        help_text="R73 b): the bingo of the room's 75-ball games from now on (a game already created "
        "keeps its own, R36, R93) is this pattern of the library, or `custom` (then give "
        "`custom_pattern`); null: the full card (R73 a)), the only bingo of the other variants. A "
        'pattern is the game\'s only prize (R74): give a prize_plan with the bingo alone, e.g. {"bingo": '
        "\"80\"}; a scheduled session's 75-ball games given no plan take the room's. The library: "
        "docs/draw.md.",
    )
    custom_pattern = serializers.CharField(
        required=False,
        allow_null=True,
        max_length=40,
        help_text="With pattern `custom`: its cells row by row, X in the pattern and . not, the five rows "
        "separated by /, e.g. X...X/.X.X./..X../.X.X./X...X; the free centre counts as marked (R72).",
    )
    strips = JSONBooleanField(required=False, help_text="90-ball only: sell strips of six cards.")
    active = JSONBooleanField(required=False, help_text="Open to players.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if (user := self.context.get("user")) is not None:
            self.fields["hall"].queryset = hall_list_for(user, Role.MANAGER)  # type: ignore[attr-defined]


class SessionGameSerializer(serializers.Serializer[Any]):
    variant = VariantField()
    price = MoneyField(
        min_value=bounds.AMOUNT_MIN,
        max_value=bounds.CARD_PRICE_MAX,
        help_text='Face value of the cards it sells, as a decimal string ("10.00") (R92).',
    )
    prize_plan = _plan_field()


_HALL_CLOCK = "ISO 8601; without an offset, on the clock of the room's hall (its time_zone)."


class SessionScheduleSerializer(serializers.Serializer[Any]):
    """A session of a session-mode room (R91-R93)."""

    starts_at = HallClockField(help_text=f"Sales open for every game (R93). {_HALL_CLOCK}")
    sales_close_at = HallClockField(help_text=f"Sales close for every game together (R93). {_HALL_CLOCK}")
    scheduled_end = HallClockField(help_text=_HALL_CLOCK)
    ball_interval = _interval_field(required=False, allow_null=True, default=None)
    games: serializers.ListSerializer[Any] = serializers.ListSerializer(
        child=SessionGameSerializer(),
        max_length=bounds.SESSION_MAX_GAMES,
        help_text="Several variants and prices at once (R92).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # Times without an offset are the hall's (context "room"), as a hall session's are.
        zone = hall_zone(self.context["room"].room.hall)
        if errors := in_hall_times(attrs, zone, ("starts_at", "sales_close_at", "scheduled_end")):
            raise serializers.ValidationError(errors)
        return attrs


class ScheduledGameSerializer(serializers.ModelSerializer[Game]):
    variant = serializers.CharField(read_only=True)
    state = serializers.CharField(read_only=True)
    price = MoneyField(read_only=True)
    ball_interval = _interval_field(read_only=True)

    class Meta:
        model = Game
        fields = [
            "id",
            "number",
            "variant",
            "state",
            "price",
            "prize_plan",
            "sales_close_at",
            "ball_interval",
        ]
        read_only_fields = fields


class ScheduledSessionSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(read_only=True)
    starts_at = serializers.DateTimeField(read_only=True)
    scheduled_end = serializers.DateTimeField(read_only=True)
    games = ScheduledGameSerializer(many=True, read_only=True)


def _managed_room(request: Request, room_id: int) -> OnlineRoom:
    try:
        return selectors.online_room_get(
            halls=hall_list_for(request_user(request), Role.MANAGER), room_id=room_id
        )
    except OnlineRoom.DoesNotExist:
        raise Http404 from None


class OnlineRoomListView(APIView):
    permission_classes = [IsAuthenticated, IsManager]

    @extend_schema(
        operation_id="online_rooms_list", responses=OnlineRoomSerializer(many=True), tags=["online"]
    )
    def get(self, request: Request) -> Response:
        rooms = selectors.online_room_list(halls=hall_list_for(request_user(request), Role.MANAGER))
        return Response(OnlineRoomSerializer(rooms, many=True).data)

    @extend_schema(
        operation_id="online_rooms_create",
        request=OnlineRoomWriteSerializer,
        responses={
            201: OnlineRoomSerializer,
            400: BAD_REQUEST,
        },
        tags=["online"],
    )
    def post(self, request: Request) -> Response:
        form = OnlineRoomWriteSerializer(data=request.data, context={"user": request_user(request)})
        form.is_valid(raise_exception=True)
        room = services.online_room_create(**form.validated_data)
        return Response(OnlineRoomSerializer(room).data, status=status.HTTP_201_CREATED)


class OnlineRoomDetailView(APIView):
    permission_classes = [IsAuthenticated, IsManager]

    @extend_schema(operation_id="online_rooms_retrieve", responses=OnlineRoomSerializer, tags=["online"])
    def get(self, request: Request, room_id: int) -> Response:
        return Response(OnlineRoomSerializer(_managed_room(request, room_id)).data)

    @extend_schema(
        operation_id="online_rooms_partial_update",
        request=OnlineRoomWriteSerializer,
        responses={200: OnlineRoomSerializer, 400: BAD_REQUEST},
        tags=["online"],
    )
    def patch(self, request: Request, room_id: int) -> Response:
        room = _managed_room(request, room_id)
        form = OnlineRoomWriteSerializer(
            data=request.data, partial=True, context={"user": request_user(request)}
        )
        form.is_valid(raise_exception=True)
        fields = dict(form.validated_data)
        fields.pop("hall", None)  # a room stays in its hall
        room = services.online_room_update(online_room=room, **fields)
        return Response(OnlineRoomSerializer(room).data)


class OnlineSessionListView(APIView):
    permission_classes = [IsAuthenticated, IsManager]

    @extend_schema(
        operation_id="online_rooms_sessions_create",
        request=SessionScheduleSerializer,
        responses={201: ScheduledSessionSerializer, 400: BAD_REQUEST},
        tags=["online"],
    )
    def post(self, request: Request, room_id: int) -> Response:
        room = _managed_room(request, room_id)
        form = SessionScheduleSerializer(data=request.data, context={"room": room})
        form.is_valid(raise_exception=True)
        data = form.validated_data
        session = services.online_session_schedule(
            online_room=room,
            starts_at=data["starts_at"],
            sales_close_at=data["sales_close_at"],
            scheduled_end=data["scheduled_end"],
            ball_interval=data["ball_interval"],
            games=[
                services.SessionGame(g["variant"], g["price"], g.get("prize_plan") or None)
                for g in data["games"]
            ],
            user=request_user(request),
        )
        body = {
            "id": session.pk,
            "starts_at": session.starts_at,
            "scheduled_end": session.scheduled_end,
            "games": session.games.order_by("number"),
        }
        return Response(ScheduledSessionSerializer(body).data, status=status.HTTP_201_CREATED)


# --- players -----------------------------------------------------------------------------------


def _player_game(player: Player, game_id: int) -> Game:
    try:
        return selectors.online_game_get(player=player, game_id=game_id)
    except Game.DoesNotExist:
        raise Http404 from None


class LobbyPrizeSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    share = serializers.DecimalField(
        max_digits=6,
        decimal_places=2,
        allow_null=True,
        help_text="Its share of the game's sales, in percent (R7).",
    )
    value = serializers.CharField(
        source="display", help_text="Its value so far, from the cards sold until now."
    )


class LobbyGameSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="game.pk")
    number = serializers.IntegerField(source="game.number")
    variant = serializers.CharField(source="game.variant")
    state = serializers.CharField(source="game.state")
    state_name = serializers.CharField()
    price = MoneyField(source="game.price", allow_null=True)
    sales_close_at = serializers.DateTimeField(source="game.sales_close_at", allow_null=True)
    prizes = serializers.SerializerMethodField(help_text="[name, value so far] pairs.")
    prize_shares = LobbyPrizeSerializer(source="prizes", many=True)
    cards_mine = serializers.IntegerField()
    pattern = PatternShownSerializer(
        allow_null=True,
        help_text="R73 b): the pattern this game's bingo is, as it was when the game was created; "
        "null: the full card.",
    )

    @extend_schema_field(serializers.ListField(child=serializers.ListField(child=serializers.CharField())))
    def get_prizes(self, item: selectors.LobbyGame) -> list[list[str]]:
        return [[prize.name, prize.display] for prize in item.prizes]


class LobbyRoomSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="online_room.pk")
    name = serializers.CharField(source="online_room.room.name")
    mode = serializers.CharField(source="online_room.mode")
    ball_interval = serializers.DecimalField(
        source="online_room.ball_interval", max_digits=6, decimal_places=2
    )
    strips = serializers.BooleanField(source="online_room.strips", help_text="Sells 90-ball strips of six.")
    pattern = PatternShownSerializer(
        allow_null=True,
        help_text="R73 b): the pattern the bingo of the room's 75-ball games is from now on; null: "
        "the full card.",
    )
    games = LobbyGameSerializer(many=True)
    order_price = MoneyField(
        source="terms.price",
        allow_null=True,
        default=None,
        help_text="The card price a standing order placed now pins (the room's next games'); null: "
        "nothing to sell.",
    )
    order_variant = serializers.CharField(
        source="terms.variant",
        allow_null=True,
        default=None,
        help_text="The variant a standing order placed now pins; null: nothing to sell.",
    )


class LobbySerializer(serializers.Serializer[Any]):
    rooms = LobbyRoomSerializer(many=True)
    jackpot_active = serializers.BooleanField(source="jackpot.active")
    jackpot = MoneyField(source="jackpot.balance", max_digits=14)
    balance = MoneyField(max_digits=14)


class AwayGameSerializer(serializers.Serializer[Any]):
    """R99: one game the player had cards in that ended while they were away."""

    id = serializers.IntegerField(source="game.pk")
    number = serializers.IntegerField(source="game.number")
    room = serializers.CharField(source="game.session.room.name")
    finished_at = serializers.DateTimeField(source="game.finished_at")
    annulled = serializers.BooleanField(help_text="Null (R98): every card refunded to the wallet.")
    reason = serializers.CharField(help_text="Why the game was made null (empty otherwise).")
    credited = MoneyField(max_digits=14, help_text="The prizes paid to the wallet, net of tax.")
    refunded = MoneyField(max_digits=14, help_text="The stake given back (a null game).")
    won = serializers.BooleanField()


class LobbyResponseSerializer(LobbySerializer):
    away = AwayGameSerializer(
        many=True,
        help_text="R99: the games that ended since the player last opened the lobby page, newest "
        "first. Reading the API does not count as a visit.",
    )


class LobbyView(APIView):
    """The player's lobby (R94) and, R99, what happened while they were away: ``away`` lists the
    games they had cards in that ended since they last opened the lobby *page* (the last 24 hours
    if never), with what each left their wallet. Reading it records no visit, so the page's panel
    «While you were away» still shows them (docs/online.md)."""

    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(operation_id="online_lobby_retrieve", responses=LobbyResponseSerializer, tags=["online"])
    def get(self, request: Request) -> Response:
        player = player_from_request(request)
        data = dict(LobbySerializer(selectors.online_lobby(player=player)).data)
        away = selectors.player_games_ended_since(
            player=player, since=selectors.player_lobby_seen_at(player=player)
        )
        data["away"] = AwayGameSerializer(away, many=True).data
        return Response(data)


# --- the player's game screen (its state described: bingo/online/serializers.py) ----------------


class PlayerGameStateView(APIView):
    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(
        operation_id="online_games_state_retrieve",
        responses={200: PlayerGameStateSerializer},
        tags=["online"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        player = player_from_request(request)
        return Response(selectors.player_game_state(player=player, game=_player_game(player, game_id)))


class PurchaseSerializer(serializers.Serializer[Any]):
    quantity = serializers.IntegerField(min_value=1, max_value=bounds.SALE_MAX_CARDS)
    key = serializers.CharField(
        max_length=services.KEY_MAX, help_text="Chosen by the client; the same key again counts once."
    )


class PurchaseResultSerializer(serializers.Serializer[Any]):
    cards = serializers.IntegerField()
    amount = MoneyField(max_digits=14)
    balance = MoneyField(max_digits=14)
    blocks = serializers.ListField(child=serializers.DictField(), help_text="series, first, last")


class PurchaseView(APIView):
    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(
        operation_id="online_games_purchases_create",
        request=PurchaseSerializer,
        responses={
            201: PurchaseResultSerializer,
            400: BAD_REQUEST,
            409: OpenApiResponse(ErrorSerializer, description="The key was used for a different purchase."),
        },
        tags=["online"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        player = player_from_request(request)
        try:
            # As this process read it a moment ago when it was selling: the purchase judges it
            # again under the series' lock (bingo/online/services.py online_buy).
            game = selectors.online_game_offer_get(player=player, game_id=game_id)
        except Game.DoesNotExist:
            raise Http404 from None
        data = flat_validated(PurchaseSerializer, request.data)
        try:
            purchase = services.online_buy(
                player=player, game=game, quantity=data["quantity"], key=data["key"]
            )
        except services.PurchaseKeyReusedError as reused:
            raise Conflict(reused.messages[0]) from None
        # PurchaseResultSerializer's body, written out: its fields cost more to build than the rest.
        body = {
            "cards": purchase.cards,
            "amount": money_text(purchase.amount),
            "balance": money_text(purchase.balance),
            "blocks": [
                {"series": s.series.label, "first": s.first_number, "last": s.last_number}
                for s in purchase.sales
            ],
        }
        return Response(body, status=status.HTTP_201_CREATED)


class MarkingSerializer(serializers.Serializer[Any]):
    marking = serializers.ChoiceField(choices=Marking.choices, help_text="auto or manual (R96).")


class MarkingView(APIView):
    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(
        operation_id="online_marking_update",
        request=MarkingSerializer,
        responses=MarkingSerializer,
        tags=["online"],
    )
    def put(self, request: Request) -> Response:
        player = player_from_request(request)
        form = MarkingSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        services.player_marking_set(player=player, marking=form.validated_data["marking"])
        return Response({"marking": player.marking})


# --- the player's standing orders (buying ahead, R93) ---------------------------------------------


class OrderFillSerializer(serializers.ModelSerializer[OnlineOrderFill]):
    """A game the order bought into (``sale``), was refused in (``refusal``, the player's reason,
    which ended it), or skipped (``skip``, the operator's side; the order went on)."""

    game = serializers.IntegerField(source="game_id", read_only=True)
    game_number = serializers.IntegerField(source="game.number", read_only=True)
    sale = serializers.IntegerField(source="sale_id", read_only=True, allow_null=True)
    cards = serializers.SerializerMethodField(help_text="The cards bought (0: refused or skipped).")
    skip = serializers.CharField(
        read_only=True,
        help_text="Why the game was skipped, the order going on: not_selling (its sales had closed "
        "when the order came, R93), price, variant or pattern (not what the order pinned), "
        "unavailable (the cards could not be sold); empty when bought or refused.",
    )
    note = serializers.SerializerMethodField(
        help_text="What became of the game, in the request's language (empty when bought)."
    )

    class Meta:
        model = OnlineOrderFill
        fields = ["game", "game_number", "sale", "cards", "refusal", "skip", "note", "created_at"]
        read_only_fields = fields

    def get_cards(self, fill: OnlineOrderFill) -> int:
        return fill.order.quantity if fill.sale_id is not None else 0

    def get_note(self, fill: OnlineOrderFill) -> str:
        return selectors.fill_text(fill)


class OrderSerializer(serializers.ModelSerializer[OnlineOrder]):
    """A standing order: ``quantity`` cards in each of the next ``games_wanted`` games of the room
    whose sales open after it was placed; nothing is taken from the wallet before (R93)."""

    room = serializers.IntegerField(source="online_room_id", read_only=True)
    room_name = serializers.CharField(source="online_room.room.name", read_only=True)
    games_left = serializers.IntegerField(read_only=True)
    open = serializers.BooleanField(source="is_open", read_only=True)
    price = MoneyField(
        read_only=True, help_text="The card price the order pinned: a game at another price is skipped."
    )
    variant = serializers.CharField(read_only=True, help_text="The variant the order pinned.")
    pattern = serializers.CharField(
        read_only=True,
        help_text="75-ball: the pattern the order pinned (a library key or the cells; empty: the full card).",
    )
    end_reason = serializers.CharField(
        read_only=True,
        help_text="completed, cancelled (by the player), refused (the wallet short, a limit, an "
        "exclusion or break: end_text says it as it was said), room_closed, barred (R101: an "
        "exclusion or a break began) or skipped (too many games skipped); empty while open.",
    )
    end_text = serializers.SerializerMethodField(
        help_text="Why it ended, in the request's language (a refusal as it was said)."
    )
    fills = OrderFillSerializer(many=True, read_only=True)

    class Meta:
        model = OnlineOrder
        fields = [
            "id",
            "room",
            "room_name",
            "quantity",
            "games_wanted",
            "games_filled",
            "games_left",
            "open",
            "price",
            "variant",
            "pattern",
            "key",
            "created_at",
            "cancelled_at",
            "ended_at",
            "end_reason",
            "end_text",
            "fills",
        ]
        read_only_fields = fields

    def get_end_text(self, order: OnlineOrder) -> str:
        return selectors.order_end_text(order)


class OrderCreateSerializer(serializers.Serializer[Any]):
    room = serializers.IntegerField(min_value=1, help_text="An online room of the player's operator.")
    games = serializers.IntegerField(
        min_value=1,
        max_value=bounds.BUY_AHEAD_GAMES_MAX,
        help_text="How many of the room's next games whose sales open after the order.",
    )
    quantity = serializers.IntegerField(
        min_value=1,
        max_value=bounds.SALE_MAX_CARDS,
        help_text="Cards in each game (in a room selling strips, a multiple of 6).",
    )
    key = serializers.CharField(
        max_length=ORDER_KEY_MAX, help_text="Chosen by the client; the same key again is the same order."
    )
    price = MoneyField(
        required=False,
        min_value=bounds.AMOUNT_MIN,
        max_value=bounds.CARD_PRICE_MAX,
        help_text="The card price the player saw for the room's next games (the lobby's "
        "`order_price`); refused if it is no longer that. Omitted: the price now.",
    )
    variant = VariantField(
        required=False, help_text="The variant the player saw; refused if it is no longer that."
    )


def _player_order(player: Player, order_id: int) -> OnlineOrder:
    try:
        return selectors.player_order_get(player=player, order_id=order_id)
    except OnlineOrder.DoesNotExist:
        raise Http404 from None


class OrderListView(APIView):
    """The player's standing orders (newest first, up to ``ORDERS_LISTED``), and placing one. An
    order buys nothing now: the game selling now is bought with ``POST
    /api/online/games/{id}/purchases/``; the order fills the next games as their sales open."""

    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(operation_id="online_orders_list", responses=OrderSerializer(many=True), tags=["online"])
    def get(self, request: Request) -> Response:
        player = player_from_request(request)
        return Response(OrderSerializer(selectors.player_order_list(player=player), many=True).data)

    @extend_schema(
        operation_id="online_orders_create",
        request=OrderCreateSerializer,
        responses={
            201: OrderSerializer,
            **error_responses(
                "Beyond the bounds, the room closed or another operator's, R101.", not_found=False
            ),
            409: OpenApiResponse(ErrorSerializer, description="The key was used for a different order."),
        },
        tags=["online"],
    )
    def post(self, request: Request) -> Response:
        player = player_from_request(request)
        form = OrderCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            room = selectors.online_room_get(
                halls=Hall.objects.filter(pk=player.hall_id), room_id=data["room"]
            )
        except OnlineRoom.DoesNotExist:
            raise serializers.ValidationError(
                {"room": [_("No online room of your operator has this number.")]}
            ) from None
        try:
            order = services.online_order_create(
                player=player,
                online_room=room,
                games=data["games"],
                quantity=data["quantity"],
                key=data["key"],
                price=data.get("price"),
                variant=data.get("variant"),
            )
        except services.OrderKeyReusedError as reused:
            raise Conflict(reused.messages[0]) from None
        order = selectors.player_order_get(player=player, order_id=order.pk)
        return Response(OrderSerializer(order).data, status=status.HTTP_201_CREATED)


class OrderCancelView(APIView):
    """The player cancels an open standing order of theirs: it buys nothing more; nothing is
    refunded, as nothing was held. Another player's order: 404."""

    permission_classes = [IsAuthenticated, IsPlayer]

    @extend_schema(
        operation_id="online_orders_cancel",
        request=None,
        responses={200: OrderSerializer, **error_responses("The order has ended already.")},
        tags=["online"],
    )
    def post(self, request: Request, order_id: int) -> Response:
        player = player_from_request(request)
        try:
            services.online_order_cancel(player=player, order_id=order_id)
        except OnlineOrder.DoesNotExist:
            raise Http404 from None
        return Response(OrderSerializer(_player_order(player, order_id)).data)
