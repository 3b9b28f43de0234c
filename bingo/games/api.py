"""Sessions and games over the JSON API.

Thin adapters (STYLE rule 3): a serializer parses, one service (bingo/games/services.py) works, a
serializer renders; the services' refusals (R7, R33-R41) come back as 400 with their message.
Access is per hall (halls/access.py): objects of a hall the caller does not work in answer 404,
a role that does not allow the action 403. Who may call what (docs/api.md): any staff of the
hall reads its sessions and games; its managers open sessions, create games and open and close
their sales. Selling cards and the sales ledger are bingo/sales/api.py's.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

from django.contrib.auth.models import User
from django.db.models import Max, Min, QuerySet, Sum
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.ballsets import selectors as ballset_selectors
from bingo.common import bounds
from bingo.common.api import (
    ErrorSerializer,
    HallClockField,
    IdField,
    MoneyField,
    Pagination,
    VariantField,
    error_responses,
    username_field,
)
from bingo.common.clock import hall_zone
from bingo.common.forms import in_hall_times
from bingo.common.patterns import pattern_shown
from bingo.common.roles import Role
from bingo.engine.patterns import CUSTOM, LIBRARY
from bingo.games import selectors, services
from bingo.games.access import game_for, hall_id_of, session_for
from bingo.models import Game, GameSeries, Sale, Session
from cards.models import Series
from halls.access import HALL_WRITES, request_user, require_hall_role, staff_halls
from halls.models import BALL_SET_SIZES, Room

# --- serializers ------------------------------------------------------------------------------


class GameSummarySerializer(serializers.ModelSerializer[Game]):
    """A game as a session lists it."""

    variant = VariantField(read_only=True)
    price = MoneyField(read_only=True, allow_null=True, help_text="Card price, set when sales open.")

    class Meta:
        model = Game
        fields = ["id", "number", "variant", "state", "price"]
        read_only_fields = fields


class SessionSerializer(serializers.ModelSerializer[Session]):
    """A session of play in a room."""

    hall = serializers.IntegerField(source="room.hall_id", read_only=True)
    room_name = serializers.CharField(source="room.name", read_only=True)
    opened_by = username_field()

    class Meta:
        model = Session
        fields = [
            "id",
            "hall",
            "room",
            "room_name",
            "starts_at",
            "scheduled_end",
            "ended_at",
            "opened_by",
            "created_at",
        ]
        read_only_fields = fields


class AwaitedBallSetSerializer(serializers.Serializer[Any]):
    """A ball set whose end-of-session check the session awaits (R23)."""

    id = serializers.IntegerField(read_only=True)
    serial_number = serializers.CharField(read_only=True)


class SessionDetailSerializer(SessionSerializer):
    """A session with its games, in number order."""

    games = GameSummarySerializer(many=True, read_only=True)
    end_checks_awaited = serializers.SerializerMethodField(
        help_text="R23: the ball sets checked at the session's start whose end-of-session check is "
        "not recorded yet; closing records it or says why it could not be made. Empty for an online "
        "session (no balls) and once closed."
    )

    class Meta(SessionSerializer.Meta):
        fields = [*SessionSerializer.Meta.fields, "games", "end_checks_awaited"]
        read_only_fields = fields

    @extend_schema_field(AwaitedBallSetSerializer(many=True))
    def get_end_checks_awaited(self, session: Session) -> list[dict[str, Any]]:
        if session.ended_at is not None:
            return []
        awaited = ballset_selectors.session_end_checks_awaited(session=session)
        return [{"id": s.pk, "serial_number": s.serial_number} for s in awaited]


class EndCheckSerializer(serializers.Serializer[Any]):
    """The end-of-session check of one ball set made now (R23)."""

    ball_set = IdField(help_text="The ball set's id (one of ``end_checks_awaited``).")
    faulty_balls = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=max(BALL_SET_SIZES)),
        max_length=max(BALL_SET_SIZES),
        default=list,
        help_text="The numbers of the balls that failed; empty when every ball is OK.",
    )


class SessionCloseSerializer(serializers.Serializer[Any]):
    """What closing a session gives for R23: the end-of-session checks made now, and why a check
    still missing could not be made."""

    # DRF's list serializer takes max_length (its stubs do not know it yet).
    end_checks = EndCheckSerializer(
        many=True,
        default=list,
        max_length=bounds.SESSION_MAX_BALL_SETS,  # type: ignore[call-arg]
    )
    missing_check_reason = serializers.CharField(
        max_length=bounds.REASON_MAX_LENGTH,
        allow_blank=True,
        default="",
        help_text="Why the end-of-session check of the ball sets not checked could not be made: "
        "written in the acta as an occurrence (R23, R61 m)). Ignored when every set is checked.",
    )

    def validate_end_checks(self, checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ids = [check["ball_set"] for check in checks]
        if len(set(ids)) != len(ids):
            raise serializers.ValidationError(_("Give each ball set's check once."))
        return checks


_HALL_CLOCK_HELP = "ISO 8601; without an offset, on the clock of the room's hall (its time_zone)."


class SessionCreateSerializer(serializers.Serializer[Any]):
    """What a manager gives to open a session: the room (of a hall they work in) and its times."""

    room = serializers.PrimaryKeyRelatedField(queryset=Room.objects.select_related("hall"))
    starts_at = HallClockField(help_text=_HALL_CLOCK_HELP)
    scheduled_end = HallClockField(help_text=_HALL_CLOCK_HELP)

    def validate_room(self, room: Room) -> Room:
        # A room of a hall the caller does not work in is as unknown as a room that is not there.
        if not staff_halls(self.context["user"]).filter(pk=room.hall_id).exists():
            self.fields["room"].fail("does_not_exist", pk_value=room.pk)
        return room

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        zone = hall_zone(attrs["room"].hall)
        if errors := in_hall_times(attrs, zone, ("starts_at", "scheduled_end")):
            raise serializers.ValidationError(errors)
        return attrs


class SessionFilterSerializer(serializers.Serializer[Any]):
    """Query parameters of the session list."""

    hall = IdField(required=False, help_text="Only the sessions of this hall (id).")
    room = IdField(required=False, help_text="Only the sessions of this room (id).")


class ShareField(serializers.CharField):
    """A prize's share of sales in percent, as a decimal string ("20"); a JSON number is refused."""

    default_error_messages = {
        "not_string": _('Send shares as decimal strings, such as "20", not as numbers.'),
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_string")
        value: str = super().to_internal_value(data)
        return value


class GameCreateSerializer(serializers.Serializer[Any]):
    """What a manager gives to add a game to a session."""

    variant = VariantField()
    prize_plan = serializers.DictField(
        child=ShareField(max_length=12),
        required=False,
        help_text='Shares of sales in percent by prize, e.g. {"line": "20", "bingo": "60"} (R5-R7); '
        "the variant's default plan when left out.",
    )
    pattern = serializers.ChoiceField(
        choices=[*LIBRARY, CUSTOM],
        required=False,
        allow_null=True,
        help_text="R73 b): the 75-ball bingo is this pattern of the library, or `custom` (then give "
        "`custom_pattern`); null or left out: the full card (R73 a)). A pattern is the game's only "
        'prize (R74): give a prize_plan with the bingo alone, e.g. {"bingo": "80"}. '
        "The library's pictures and names: docs/draw.md.",
    )
    custom_pattern = serializers.CharField(
        required=False,
        max_length=40,
        help_text="With pattern `custom`: its cells row by row, X in the pattern and . not, the five rows "
        "separated by /, e.g. X...X/.X.X./..X../.X.X./X...X; the free centre counts as marked (R72).",
    )


class OpenSalesSerializer(serializers.Serializer[Any]):
    """The series to put on sale: the first, and optionally a second to roll into (R38)."""

    series = serializers.PrimaryKeyRelatedField(
        many=True,
        queryset=Series.objects.select_related("card_set"),
        help_text="Series ids, first series first (one or two).",
    )


class OnSaleSerializer(serializers.Serializer[Any]):
    """A series on sale in a game: where this game's sale of it began, and how far it went."""

    series = serializers.IntegerField()
    label = serializers.CharField(help_text="Series label as printed (K-12).")  # type: ignore[assignment]
    position = serializers.IntegerField(
        help_text="1: the series put on sale; 2: the one it rolls into (R38)."
    )
    start_number = serializers.IntegerField(help_text="The card this game's sale began at (R37).")
    last_number = serializers.IntegerField(
        allow_null=True, help_text="The last card this game sold of it; null while none is sold."
    )
    cards_sold = serializers.IntegerField()
    amount = MoneyField()
    carried = serializers.BooleanField(
        help_text="R15: double cards the previous game sold, playing again here; nothing of it is sold "
        "in this game (start_number and last_number are the cards that play)."
    )


class GameSerializer(serializers.ModelSerializer[Game]):
    """A game: state, prize plan, announcements (R33, R40), series on sale and what they sold."""

    hall = serializers.IntegerField(source="session.room.hall_id", read_only=True)
    variant = VariantField(read_only=True)
    currency = serializers.CharField(source="session.room.hall.currency", read_only=True)
    prize_plan = serializers.DictField(
        child=serializers.CharField(), read_only=True, help_text="Shares of sales in percent by prize (R7)."
    )
    price = MoneyField(read_only=True, allow_null=True, help_text="Card price, set when sales open.")
    on_sale = serializers.SerializerMethodField()
    cards_sold = serializers.SerializerMethodField()
    sales_total = serializers.SerializerMethodField()
    doubles_of = serializers.IntegerField(
        source="doubles_of.number",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="R15: the number of the game whose double cards this game plays again; null otherwise.",
    )
    pattern = serializers.SerializerMethodField(
        help_text="R73 b): the library key of the 75-ball pattern the bingo is, or `custom`; "
        "null: the full card."
    )
    pattern_cells = serializers.SerializerMethodField(
        help_text="The pattern's cells row by row (X in it, . not, rows separated by /); null: the full card."
    )

    class Meta:
        model = Game
        fields = [
            "id",
            "session",
            "hall",
            "number",
            "variant",
            "state",
            "prize_plan",
            "jackpot_active",
            "price",
            "currency",
            "opening_announcement",
            "closing_announcement",
            "sales_opened_at",
            "sales_closed_at",
            "state_reason",
            "on_sale",
            "cards_sold",
            "sales_total",
            "doubles_of",
            "pattern",
            "pattern_cells",
        ]
        read_only_fields = fields

    def _board(self, game: Game) -> list[dict[str, Any]]:
        # Read once per game, for on_sale and the two totals.
        cache: dict[int, list[dict[str, Any]]] = self.__dict__.setdefault("_boards", {})
        if game.pk not in cache:
            cache[game.pk] = _on_sale(game)
        return cache[game.pk]

    @extend_schema_field(serializers.ChoiceField(choices=[*LIBRARY, CUSTOM], allow_null=True))
    def get_pattern(self, game: Game) -> str | None:
        shown = pattern_shown(game.win_rules)
        return None if shown is None else str(shown["key"])

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_pattern_cells(self, game: Game) -> str | None:
        return (game.win_rules or {}).get("pattern") or None

    @extend_schema_field(OnSaleSerializer(many=True))
    def get_on_sale(self, game: Game) -> Any:
        return OnSaleSerializer(self._board(game), many=True).data

    def get_cards_sold(self, game: Game) -> int:
        return sum(int(row["cards_sold"]) for row in self._board(game))

    @extend_schema_field({"type": "string", "format": "decimal", "pattern": r"^-?\d{0,12}(?:\.\d{0,2})?$"})
    def get_sales_total(self, game: Game) -> str:
        total = sum((row["amount"] for row in self._board(game)), Decimal("0"))
        return f"{total:.2f}"


# --- helpers ----------------------------------------------------------------------------------


def _on_sale(game: Game) -> list[dict[str, Any]]:
    """The series on sale in ``game``, with what the ledger says this game sold of each."""
    sold = {
        row["series_id"]: row
        for row in Sale.objects.filter(game=game)
        .order_by()
        .values("series_id")
        .annotate(
            cards=Sum("quantity"), amount=Sum("amount"), first=Min("first_number"), last=Max("last_number")
        )
    }
    rows = []
    for entry in GameSeries.objects.filter(game=game).select_related("series").order_by("position"):
        ledger: dict[str, Any] = dict(sold.get(entry.series_id, {}))
        rows.append(
            {
                "series": entry.series_id,
                "label": entry.series.label,
                "position": entry.position,
                "start_number": entry.start_number,
                "last_number": entry.last_number if entry.carried else ledger.get("last"),
                "cards_sold": ledger.get("cards") or 0,
                "amount": ledger.get("amount") or Decimal("0"),
                "carried": entry.carried,
            }
        )
    return rows


def _sessions(request: Request) -> QuerySet[Session]:
    return selectors.session_list_for(request_user(request))


def _game_response(game_id: int, request: Request, code: int = status.HTTP_200_OK) -> Response:
    game = game_for(request, game_id)
    headers = (
        {"Location": reverse("api:game-detail", args=[game.pk])} if code == status.HTTP_201_CREATED else {}
    )
    return Response(GameSerializer(game).data, status=code, headers=headers)


# --- sessions ---------------------------------------------------------------------------------


class SessionListView(GenericAPIView[Session]):
    """Sessions of the halls the caller works in: list them (any staff), open one (a manager of
    the room's hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)
    pagination_class = Pagination
    serializer_class = SessionSerializer

    @extend_schema(
        operation_id="sessions_list",
        parameters=[SessionFilterSerializer],
        responses=SessionSerializer(many=True),
        tags=["sessions"],
    )
    def get(self, request: Request) -> Response:
        query = SessionFilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        sessions = _sessions(request)
        if (hall := query.validated_data.get("hall")) is not None:
            sessions = sessions.filter(room__hall_id=hall)
        if (room := query.validated_data.get("room")) is not None:
            sessions = sessions.filter(room_id=room)
        page = self.paginate_queryset(sessions.order_by("-starts_at", "-pk"))
        return self.get_paginated_response(SessionSerializer(page, many=True).data)

    @extend_schema(
        operation_id="sessions_create",
        request=SessionCreateSerializer,
        responses={
            201: SessionSerializer,
            **error_responses("Field errors (an unknown room, an end before the start).", not_found=False),
        },
        tags=["sessions"],
    )
    def post(self, request: Request) -> Response:
        form = SessionCreateSerializer(data=request.data, context={"user": request_user(request)})
        form.is_valid(raise_exception=True)
        room: Room = form.validated_data["room"]
        require_hall_role(request, room.hall_id, *self.write_roles)
        session = services.session_open(
            room=room,
            starts_at=form.validated_data["starts_at"],
            scheduled_end=form.validated_data["scheduled_end"],
            user=request_user(request),
        )
        return Response(
            SessionSerializer(session).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse("api:session-detail", args=[session.pk])},
        )


class SessionDetailView(APIView):
    """One session with its games (any staff of its hall)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="sessions_retrieve",
        responses={200: SessionDetailSerializer, 404: ErrorSerializer},
        tags=["sessions"],
    )
    def get(self, request: Request, session_id: int) -> Response:
        return Response(SessionDetailSerializer(session_for(request, session_id)).data)


class SessionCloseView(APIView):
    """Close a session (a manager of its hall): R23's end-of-session ball-set checks are recorded
    before, given now, or the reason they could not be made goes into the acta as an occurrence."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)

    @extend_schema(
        operation_id="sessions_close",
        request=SessionCloseSerializer,
        responses={
            200: SessionDetailSerializer,
            **error_responses(
                "Games not ended, or an end-of-session ball-set check neither given nor "
                "excused (``missing_check_reason``, R23); nothing changed."
            ),
        },
        tags=["sessions"],
    )
    def post(self, request: Request, session_id: int) -> Response:
        session = session_for(request, session_id)
        require_hall_role(request, session.room.hall_id, *self.write_roles)
        form = SessionCloseSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        services.session_close(
            session=session,
            user=request_user(request),
            end_checks={
                check["ball_set"]: check["faulty_balls"] for check in form.validated_data["end_checks"]
            },
            missing_check_reason=form.validated_data["missing_check_reason"],
        )
        return Response(SessionDetailSerializer(session_for(request, session_id)).data)


# --- games ------------------------------------------------------------------------------------


class SessionGamesView(APIView):
    """Add the next game to a session (a manager of its hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)

    @extend_schema(
        operation_id="sessions_games_create",
        request=GameCreateSerializer,
        responses={
            201: GameSerializer,
            **error_responses("Field errors, or a prize plan refused by R7; nothing created."),
        },
        tags=["games"],
    )
    def post(self, request: Request, session_id: int) -> Response:
        session = session_for(request, session_id)
        require_hall_role(request, session.room.hall_id, *self.write_roles)
        form = GameCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        game = services.game_create(
            session=session,
            variant=form.validated_data["variant"],
            prize_plan=form.validated_data.get("prize_plan"),
            pattern_key=form.validated_data.get("pattern"),
            pattern=form.validated_data.get("custom_pattern"),
        )
        return _game_response(game.pk, request, status.HTTP_201_CREATED)


class GameDetailView(APIView):
    """One game: state, prize plan, announcements, series on sale (any staff of its hall)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_retrieve", responses={200: GameSerializer, 404: ErrorSerializer}, tags=["games"]
    )
    def get(self, request: Request, game_id: int) -> Response:
        return Response(GameSerializer(game_for(request, game_id)).data)


class GameOpenSalesView(APIView):
    """Put one series (and optionally a second to roll into, R38) on sale; records the R33
    announcement (a manager of the game's hall)."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)

    @extend_schema(
        operation_id="games_open_sales",
        request=OpenSalesSerializer,
        responses={
            200: GameSerializer,
            **error_responses("Refused (R37, R38, the game's state...); nothing changed."),
        },
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        form = OpenSalesSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        services.game_open_sales(game=game, series=form.validated_data["series"], user=request_user(request))
        return _game_response(game.pk, request)


class _ManagerChangeView(APIView):
    """A change of a game a manager of its hall makes with no input (``change``); the answer
    is the game after it."""

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)

    def change(self, game: Game, user: User) -> None:
        raise NotImplementedError

    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        self.change(game, request_user(request))
        return _game_response(game.pk, request)


def _manager_change_schema(operation_id: str, refused: str) -> Any:
    return extend_schema_view(
        post=extend_schema(
            operation_id=operation_id,
            request=None,
            responses={200: GameSerializer, **error_responses(refused)},
            tags=["games"],
        )
    )


@_manager_change_schema("games_close_sales", "The game is not selling; nothing changed.")
class GameCloseSalesView(_ManagerChangeView):
    """Close the sales; the answer carries the R40 announcement in ``closing_announcement``
    (a manager of the game's hall)."""

    def change(self, game: Game, user: User) -> None:
        services.game_close_sales(game=game, user=user)


@_manager_change_schema(
    "games_play_doubles", "The previous game sold no double cards, or has not ended; nothing changed."
)
class GamePlayDoublesView(_ManagerChangeView):
    """R15: the game plays again the double cards the session's previous game sold; it sells
    none and its sales close at once (a manager of the game's hall)."""

    def change(self, game: Game, user: User) -> None:
        services.game_play_doubles(game=game, user=user)
