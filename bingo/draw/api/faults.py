"""When the draw goes wrong, over the API: manual extraction, suspension, resumption, annulment (R55,
R57), and a system fault of an online game (R98).

Each change records why (``DrawReasonSerializer``) and answers with the console's state. If the
electronic mechanism fails after the first ball, the caller keys in the blower's balls from the
next one on (``ManualView``, R55); a failure before the first ball suspends the game
(``SuspendView``) until it is solved within 15 minutes (``ResumeView``) or the game is annulled
and every card refunded (``AnnulView``), as is a game whose result an announcement error
affected (R57). A fault of the online system that keeps a game from being decided makes it null
and refunds every card to the wallets, once (``FaultView``, R98).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.draw.api.console import DrawStateSerializer, state_response
from bingo.draw.api.fields import responses
from bingo.faults import services as fault_services
from bingo.games.access import game_for, hall_id_of
from bingo.models import Game
from halls.access import HALL_WRITES, request_user, require_hall_role


class DrawReasonSerializer(serializers.Serializer[Any]):
    """Why: what failed (R55), or why a game is annulled (R57). Always recorded."""

    reason = serializers.CharField(max_length=500)


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
        return state_response(game)


def _reasoned_schema(
    operation_id: str, **more: Any
) -> Callable[[type[_ReasonedChangeView]], type[_ReasonedChangeView]]:
    """The schema of a ``_ReasonedChangeView``: the reason in, the console's state out."""
    return extend_schema_view(
        post=extend_schema(
            operation_id=operation_id,
            request=DrawReasonSerializer,
            responses=responses(DrawStateSerializer),
            tags=["draw"],
            **more,
        )
    )


@_reasoned_schema("games_manual")
class ManualView(_ReasonedChangeView):
    """R55: the electronic mechanism failed after the first ball; from the next ball on the
    caller keys in the blower's balls (a caller of the game's hall)."""

    write_roles = (Role.CALLER,)

    def change(self, game: Game, user: User, reason: str) -> None:
        draw_services.game_switch_to_manual(game=game, user=user, reason=reason)


@_reasoned_schema("games_suspend")
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
        responses=responses(DrawStateSerializer),
        tags=["draw"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        require_hall_role(request, hall_id_of(game), *self.write_roles)
        draw_services.game_resume(game=game, user=request_user(request))
        return state_response(game)


@_reasoned_schema("games_annul")
class AnnulView(_ReasonedChangeView):
    """Annul the game and refund every card sold in full: a suspension unsolved after 15 minutes
    (R55), or an announcement error that affects the result (R57) (a caller or a manager of its
    hall)."""

    def change(self, game: Game, user: User, reason: str) -> None:
        draw_services.game_annul(game=game, user=user, reason=reason)


@_reasoned_schema(
    "games_fault",
    description=(
        "R98 (PT-803/33, PT-806/72): declare a system fault on an online game not yet decided "
        "(selling, sales closed, drawing or suspended): the game is null and every card sold is "
        "refunded to its buyer's wallet, with the reason in the acta. Idempotent: a game already "
        "null refunds nothing more and answers its state. A manager or caller of the game's hall."
    ),
)
class FaultView(_ReasonedChangeView):
    """R98: a fault of the system keeps an online game from being decided: null, every card
    refunded to the wallets, once (a manager or caller of its hall)."""

    write_roles = fault_services.FAULT_ROLES

    def change(self, game: Game, user: User, reason: str) -> None:
        fault_services.online_game_fault(game=game, user=user, reason=reason)
