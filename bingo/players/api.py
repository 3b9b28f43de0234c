"""The players' API: registration (public, throttled, CSRF-checked), the player's own wallet and
statement, and the desk's player lookup, deposits and withdrawals (cashier or manager of the
player's hall). Money is a decimal string, in and out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotFound
from rest_framework.permissions import BasePermission
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from bingo.common import bounds
from bingo.common.api import (
    ConfirmationField,
    Conflict,
    ErrorSerializer,
    IdField,
    MoneyField,
    PDFRenderer,
    error_responses,
    has_role,
    page_by_hand,
    page_parameters,
)
from bingo.common.roles import Role
from bingo.common.throttling import SlidingWindowThrottle
from bingo.models import Player, WalletEntry
from bingo.players import selectors, services
from bingo.players.access import IsPlayer, player_from_request
from bingo.players.pdf import history_pdf_bytes
from halls.models import CashDesk

# --- registration ---------------------------------------------------------------------------------


class RegistrationAttemptThrottle(SlidingWindowThrottle):
    """Registrations tried per address, failed validations included ("player_register_attempt")."""

    scope = "player_register_attempt"


class RegistrationMadeThrottle(SlidingWindowThrottle):
    """Players registered per address ("player_register"): a try takes a place, given back when
    no player came of it."""

    scope = "player_register"


class RegistrationThrottle(BaseThrottle):
    """Registration's two limits per address, one count shared by this API and the page at
    /jogador/registo/: tries, and players registered (settings.PLAYER_REGISTER_ATTEMPT_RATE and
    PLAYER_REGISTER_RATE; docs/players.md says why). A try over either counts in neither."""

    def __init__(self) -> None:
        self.attempts = RegistrationAttemptThrottle()
        self.made = RegistrationMadeThrottle()
        self._refused_by: SlidingWindowThrottle | None = None

    def allow_request(self, request: Request | HttpRequest, view: APIView | None) -> bool:
        if not self.attempts.allow_request(request, view):
            self._refused_by = self.attempts
            return False
        if not self.made.allow_request(request, view):
            self.attempts.release()
            self._refused_by = self.made
            return False
        return True

    def allow(self, request: HttpRequest) -> bool:
        """Count one try from ``request``'s address; False once over a limit (the page's door)."""
        return self.allow_request(request, None)

    def not_made(self) -> None:
        """The try registered no player: it counts as a try only."""
        self.made.release()

    def wait(self) -> float | None:
        return self._refused_by.wait() if self._refused_by is not None else None


class NotLoggedIn(BasePermission):
    """Only someone not logged in registers a new player; anyone logged in gets 403."""

    message = _("You are logged in already: log out to register another player.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not hasattr(view, (request.method or "").lower()):
            return True  # a method the view does not have: DRF answers 405, logged in or not
        return not request.user.is_authenticated


#: Open to anyone not logged in (the schema's "no authentication").
_OPEN: list[dict[str, list[str]]] = [{}]


class HallChoiceSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()


class RegistrationInfoSerializer(serializers.Serializer[Any]):
    halls = HallChoiceSerializer(many=True)
    min_age = serializers.IntegerField()


class RegistrationSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150)
    email = serializers.EmailField(max_length=254)
    first_name = serializers.CharField(max_length=150)
    last_name = serializers.CharField(max_length=150)
    password = serializers.CharField(write_only=True, trim_whitespace=False)
    birth_date = serializers.DateField()
    adult_confirmed = ConfirmationField(help_text="Must be true: the player confirms being of age.")
    hall = IdField(
        required=False, help_text="The operator's hall id; may be left out when there is only one hall."
    )


class PlayerSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="pk")
    username = serializers.CharField(source="user.username")
    email = serializers.CharField(source="user.email")
    first_name = serializers.CharField(source="user.first_name")
    last_name = serializers.CharField(source="user.last_name")
    birth_date = serializers.DateField()
    hall = serializers.IntegerField(source="hall_id")
    hall_name = serializers.CharField(source="hall.name")
    registered_at = serializers.DateTimeField(source="created_at")
    email_verified_at = serializers.DateTimeField(
        allow_null=True, help_text="null: not verified yet, and no deposit is accepted"
    )


class RegisterView(APIView):
    """Public: register a new player (issue point 1). GET gives the halls to choose from and sets
    the CSRF cookie; POST registers, logs the player in and answers the player (201)."""

    permission_classes = [NotLoggedIn]
    #: This request's registration limits (POST only), to give back a place no player took.
    registration_throttle: RegistrationThrottle | None = None

    def get_throttles(self) -> list[Any]:
        if self.request.method != "POST":
            return []
        self.registration_throttle = RegistrationThrottle()
        return [self.registration_throttle]

    @extend_schema(
        operation_id="players_register_info",
        auth=_OPEN,  # type: ignore[arg-type]
        responses={200: RegistrationInfoSerializer, 403: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        get_token(request._request)  # sets the csrftoken cookie the POST must send back
        halls = [{"id": h.pk, "name": h.name} for h in selectors.player_register_hall_list()]
        return Response(RegistrationInfoSerializer({"halls": halls, "min_age": settings.PLAYER_MIN_AGE}).data)

    @extend_schema(
        operation_id="players_register",
        # No login, but the CSRF token of the GET, as a cookie and a header (docs/api.md).
        auth=[{"csrfCookie": [], "csrfHeader": []}],  # type: ignore[list-item]
        request=RegistrationSerializer,
        responses={
            201: PlayerSerializer,
            400: OpenApiResponse(description="A field is refused: taken, under age, weak password..."),
            403: OpenApiResponse(ErrorSerializer, description="Logged in already, or no CSRF token."),
            429: OpenApiResponse(ErrorSerializer, description="Too many registrations from this address."),
        },
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        try:
            return self._register(request)
        except Exception:
            if self.registration_throttle is not None:
                self.registration_throttle.not_made()
            raise

    def _register(self, request: Request) -> Response:
        # DRF skips CSRF for anonymous requests; a registration logs in, so it is checked here,
        # after the throttle has counted the attempt (tests/test_proxy_headers.py).
        SessionAuthentication().enforce_csrf(request)
        body = RegistrationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        halls = selectors.player_register_hall_list()
        if "hall" in data:
            hall = halls.filter(pk=data["hall"]).first()
            if hall is None:
                raise serializers.ValidationError({"hall": [_("No such hall.")]})
        else:
            choices = list(halls[:2])
            if len(choices) != 1:
                raise serializers.ValidationError(
                    {"hall": [_("Choose the operator (hall) to register with.")]}
                )
            hall = choices[0]
        player = services.player_register(
            username=data["username"],
            email=data["email"],
            first_name=data["first_name"],
            last_name=data["last_name"],
            password=data["password"],
            birth_date=data["birth_date"],
            adult_confirmed=data["adult_confirmed"],
            hall=hall,
        )
        login(request._request, player.user, backend="bingo.players.backends.UserBackend")
        return Response(PlayerSerializer(player).data, status=status.HTTP_201_CREATED)


# --- the wallet -----------------------------------------------------------------------------------


class WalletEntrySerializer(serializers.Serializer[Any]):
    seq = serializers.IntegerField(source="entry.seq")
    at = serializers.DateTimeField(source="entry.created_at")
    kind = serializers.ChoiceField(source="entry.kind", choices=WalletEntry.Kind.choices)
    amount = MoneyField(source="entry.amount", max_digits=14)
    balance_after = MoneyField(source="entry.balance_after", max_digits=14)
    what = serializers.CharField(help_text="What the movement was for, in words.")
    sale = serializers.IntegerField(source="entry.sale_id", allow_null=True)
    prize_payment = serializers.IntegerField(source="entry.prize_payment_id", allow_null=True)
    refund = serializers.IntegerField(source="entry.refund_id", allow_null=True)


class WalletSerializer(serializers.Serializer[Any]):
    balance = MoneyField(max_digits=14)
    currency = serializers.CharField()
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = WalletEntrySerializer(many=True)


IsWalletStaff = has_role(Role.CASHIER, Role.MANAGER)


class MyWalletView(APIView):
    """The logged-in player's balance and statement, newest movement first, 50 a page."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_wallet",
        parameters=page_parameters("Movements"),
        responses={200: WalletSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        player = player_from_request(request)
        page, links = page_by_hand(request, self, selectors.wallet_entry_list(player=player))
        lines = selectors.wallet_statement(entries=page)
        body = {
            "balance": selectors.wallet_balance(player=player),
            "currency": player.hall.currency,
            **links,
            "results": [{"entry": line.entry, "what": line.what} for line in lines],
        }
        return Response(WalletSerializer(body).data)


# --- the history (R100) --------------------------------------------------------------------------


class HistoryQuerySerializer(serializers.Serializer[Any]):
    date_from = serializers.DateField(required=False, help_text="First day (the hall's date), included.")
    date_to = serializers.DateField(required=False, help_text="Last day (the hall's date), included.")

    def to_internal_value(self, data: Any) -> Any:
        # The query's names are ``from`` and ``to`` (Python keywords: mapped here).
        mapped = {}
        if "from" in data:
            mapped["date_from"] = data["from"]
        if "to" in data:
            mapped["date_to"] = data["to"]
        return super().to_internal_value(mapped)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        start, end = attrs.get("date_from"), attrs.get("date_to")
        if start is not None and end is not None and start > end:
            raise serializers.ValidationError({"from": [_("The first date is after the second.")]})
        return attrs


class HistoryPrizeSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    name = serializers.CharField()
    card = serializers.CharField()
    gross = MoneyField(max_digits=14)
    net = MoneyField(max_digits=14)


class HistoryGameSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField(source="game.pk")
    at = serializers.DateTimeField(help_text="The player's first purchase in the game.")
    room = serializers.CharField(source="game.session.room.name")
    number = serializers.IntegerField(source="game.number")
    variant = serializers.CharField(source="game.variant")
    cards = serializers.IntegerField()
    numbers = serializers.CharField()
    staked = MoneyField(max_digits=14)
    prizes = HistoryPrizeSerializer(many=True)
    won = MoneyField(max_digits=14)
    refunded = MoneyField(max_digits=14)
    net = MoneyField(max_digits=14)
    result = serializers.ChoiceField(choices=["won", "lost", "refunded", "pending"])
    outcome = serializers.ChoiceField(choices=["finished", "annulled", "playing"])
    reason = serializers.CharField(
        help_text="Why an annulled game was null and refunded (R61 i; a system fault: R98); empty otherwise."
    )


class HistorySerializer(serializers.Serializer[Any]):
    currency = serializers.CharField()
    time_zone = serializers.CharField()
    staked = MoneyField(max_digits=14)
    won = MoneyField(max_digits=14)
    refunded = MoneyField(max_digits=14)
    net = MoneyField(max_digits=14)
    games = HistoryGameSerializer(many=True)


class MyHistoryView(APIView):
    """R100: the logged-in player's online games, newest first, with their totals."""

    permission_classes = [IsPlayer]

    @extend_schema(
        operation_id="players_me_history",
        parameters=[
            OpenApiParameter("from", OpenApiTypes.DATE, description="First day (the hall's date), included"),
            OpenApiParameter("to", OpenApiTypes.DATE, description="Last day (the hall's date), included"),
        ],
        responses={200: HistorySerializer, **error_responses()},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        player = player_from_request(request)
        query = HistoryQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        history = selectors.player_history(player=player, **query.validated_data)
        return Response(HistorySerializer(history).data)


class MyHistoryPDFView(APIView):
    """R100: the logged-in player's statement as a PDF, filtered like ``/players/me/history/``."""

    permission_classes = [IsPlayer]
    renderer_classes = [JSONRenderer, PDFRenderer]

    @extend_schema(
        operation_id="players_me_history_pdf",
        parameters=[
            OpenApiParameter("from", OpenApiTypes.DATE, description="First day (the hall's date), included"),
            OpenApiParameter("to", OpenApiTypes.DATE, description="Last day (the hall's date), included"),
        ],
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The statement."),
            (400, "application/json"): OpenApiResponse(description="Bad dates."),
            (403, "application/json"): ErrorSerializer,
            (404, "application/json"): ErrorSerializer,
        },
        tags=["players"],
    )
    def get(self, request: Request) -> HttpResponse:
        player = player_from_request(request)
        query = HistoryQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        response = HttpResponse(
            history_pdf_bytes(player=player, **query.validated_data), content_type="application/pdf"
        )
        response["Content-Disposition"] = 'attachment; filename="historico.pdf"'
        return response


class PlayerLookupQuerySerializer(serializers.Serializer[Any]):
    q = serializers.CharField(max_length=100, help_text="Part of the username, e-mail or name.")


class PlayerWithBalanceSerializer(PlayerSerializer):
    balance = MoneyField(max_digits=14)
    currency = serializers.CharField(source="hall.currency")


class PlayerLookupView(APIView):
    """The desk: the players of the caller's halls (cashier or manager) matching ``q``."""

    permission_classes = [IsWalletStaff]

    @extend_schema(
        operation_id="players_lookup",
        parameters=[PlayerLookupQuerySerializer],
        responses={200: PlayerWithBalanceSerializer(many=True), 400: OpenApiResponse(), 403: ErrorSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        query = PlayerLookupQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        players = selectors.player_list_for_staff(user=request.user, query=query.validated_data["q"])
        for player in players:
            player.balance = selectors.wallet_balance(player=player)  # type: ignore[attr-defined]
        return Response(PlayerWithBalanceSerializer(players, many=True).data)


class MovementSerializer(serializers.Serializer[Any]):
    amount = MoneyField(
        max_digits=14,
        min_value=bounds.AMOUNT_MIN,
        max_value=bounds.AMOUNT_MAX,
        help_text='A decimal string, e.g. "500.00".',
    )
    reference = serializers.CharField(max_length=120, help_text="The identity document checked.")
    key = serializers.CharField(
        max_length=services.DESK_KEY_MAX,
        help_text="Idempotency key: a retry with it counts once; reused for another movement, 409.",
    )
    cash_desk: serializers.PrimaryKeyRelatedField[CashDesk] = serializers.PrimaryKeyRelatedField(
        queryset=CashDesk.objects.all(),
        required=False,
        allow_null=True,
        default=None,
        help_text="The desk of the player's hall whose drawer the cash went into or came out of "
        "(its close-out counts it).",
    )


class MovementResultSerializer(serializers.Serializer[Any]):
    seq = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=WalletEntry.Kind.choices)
    amount = MoneyField(max_digits=14)
    balance_after = MoneyField(max_digits=14)
    reference = serializers.CharField()
    cash_desk = serializers.IntegerField(source="cash_desk_id", read_only=True, allow_null=True)
    at = serializers.DateTimeField(source="created_at")


class _MovementView(APIView):
    """A role that may not act gets 403 before the body is read (tests/test_api_write_permissions.py)."""

    permission_classes = [IsWalletStaff]
    kind = ""

    def post(self, request: Request, player_id: int) -> Response:
        try:
            player = selectors.player_get_for_staff(user=request.user, player_id=player_id)
        except Player.DoesNotExist:
            raise NotFound from None
        body = MovementSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        move = services.wallet_deposit if self.kind == WalletEntry.Kind.DEPOSIT else services.wallet_withdraw
        # The role was checked first (IsWalletStaff); the service checks the player's hall again.
        try:
            entry = move(player=player, staff=request.user, **body.validated_data)  # type: ignore[arg-type]
        except services.WalletKeyConflictError:
            # As a desk sale's Idempotency-Key reused for another sale (docs/api.md): 409.
            raise Conflict(
                _("This idempotency key was used for another movement; nothing was changed.")
            ) from None
        return Response(MovementResultSerializer(entry).data, status=status.HTTP_201_CREATED)


_MOVEMENT_RESPONSES = {
    201: MovementResultSerializer,
    **error_responses("A field is refused, e.g. more than the balance (nothing changed)."),
    409: OpenApiResponse(
        ErrorSerializer, description="The key was used for another movement (nothing changed)."
    ),
}


def _movement_schema(operation_id: str) -> Callable[[type[_MovementView]], type[_MovementView]]:
    """The schema of a ``_MovementView``: the movement in, the wallet's entry out (201)."""
    return extend_schema_view(
        post=extend_schema(
            operation_id=operation_id,
            request=MovementSerializer,
            responses=_MOVEMENT_RESPONSES,
            tags=["players"],
        )
    )


@_movement_schema("players_deposits_create")
class DepositView(_MovementView):
    """The desk: money handed in put into the player's wallet, against the identity checked."""

    kind = WalletEntry.Kind.DEPOSIT


@_movement_schema("players_withdrawals_create")
class WithdrawalView(_MovementView):
    """The desk: money taken from the player's wallet and paid out; never more than the balance."""

    kind = WalletEntry.Kind.WITHDRAWAL
