"""Halls, their rooms and cash desks over the JSON API.

Access here is per hall, not per role group: a person sees a hall only while they hold a
``StaffMembership`` in it (manager, cashier, caller or inspector), and may do there only what
their role in *that* hall allows, so a cashier of one hall can do nothing in another. Objects
of a hall the caller does not work in answer 404, as if they did not exist; a role that does
not allow the action answers 403. The helpers that say so are halls/access.py's, which the
other features' API views use too.

Who may call what (docs/api.md): any staff of the hall reads it, its rooms and its desks; its
managers add rooms and desks (halls/services.py). Which halls those are is halls/selectors.py's
answer, the same as on the screens; a superuser holding the manager role manages every hall.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bingo.common.api import ErrorSerializer, MoneyField, Pagination, error_responses
from bingo.common.roles import Role, roles_in_order
from halls import selectors, services
from halls.access import HALL_WRITES, hall_roles, request_user, require_hall_role, staff_halls, visible_hall
from halls.models import CashDesk, Hall, Room

# --- serializers ------------------------------------------------------------------------------


class HallSerializer(serializers.ModelSerializer[Hall]):
    """A hall as its staff see it, with the caller's own roles there."""

    tax_threshold = MoneyField(read_only=True)
    tax_rate = serializers.DecimalField(
        max_digits=5, decimal_places=2, read_only=True, help_text="Tax on prizes, in percent (R61 g)."
    )
    my_roles = serializers.SerializerMethodField(help_text="The roles the caller holds in this hall.")

    class Meta:
        model = Hall
        fields = [
            "id",
            "name",
            "currency",
            "time_zone",
            "card_limit_per_player",
            "tax_rate",
            "tax_threshold",
            "jackpot_active",
            "operator_name",
            "licence_number",
            "play_cooloff_minutes",
            "created_at",
            "my_roles",
        ]
        read_only_fields = fields

    def get_my_roles(self, hall: Hall) -> list[str]:
        user: User = self.context["user"]
        return [role.value for role in roles_in_order(hall_roles(user, hall.pk))]


class RoomSerializer(serializers.ModelSerializer[Room]):
    """A room of a hall, where sessions are played."""

    class Meta:
        model = Room
        fields = ["id", "hall", "name"]
        read_only_fields = fields


class CashDeskSerializer(serializers.ModelSerializer[CashDesk]):
    """A cash desk of a hall, that sales go through (R39)."""

    class Meta:
        model = CashDesk
        fields = ["id", "hall", "name"]
        read_only_fields = fields


class NameSerializer(serializers.Serializer[Any]):
    """What a manager gives for a new room or cash desk: its name, unique in the hall."""

    name = serializers.CharField(max_length=80)


# --- views ------------------------------------------------------------------------------------


class HallListView(GenericAPIView[Hall]):
    """The halls the caller works in (any staff role)."""

    permission_classes = [IsAuthenticated]
    pagination_class = Pagination
    serializer_class = HallSerializer

    @extend_schema(operation_id="halls_list", responses=HallSerializer(many=True), tags=["halls"])
    def get(self, request: Request) -> Response:
        user = request_user(request)
        page = self.paginate_queryset(staff_halls(user).order_by("name"))
        return self.get_paginated_response(HallSerializer(page, many=True, context={"user": user}).data)


class HallDetailView(APIView):
    """One hall the caller works in."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="halls_retrieve", responses={200: HallSerializer, 404: ErrorSerializer}, tags=["halls"]
    )
    def get(self, request: Request, hall_id: int) -> Response:
        hall = visible_hall(request, hall_id)
        return Response(HallSerializer(hall, context={"user": request_user(request)}).data)


class HallPartListView(GenericAPIView[Any]):
    """The list-and-add door of a hall's rooms or cash desks: any staff of the hall lists them,
    its managers add one by its name (unique in the hall).

    A subclass names its ``serializer_class``, its ``detail_route`` (the new part's ``Location``)
    and the selector and service behind it (``parts``, ``part_create``); its schema is
    ``hall_part_schema``'s.
    """

    permission_classes = HALL_WRITES
    write_roles: ClassVar[tuple[Role, ...]] = (Role.MANAGER,)
    pagination_class = Pagination
    detail_route: ClassVar[str]

    def parts(self, hall: Hall) -> QuerySet[Any]:
        raise NotImplementedError

    def part_create(self, *, hall: Hall, name: str) -> Room | CashDesk:
        raise NotImplementedError

    def get(self, request: Request, hall_id: int) -> Response:
        hall = visible_hall(request, hall_id)
        page = self.paginate_queryset(self.parts(hall))
        return self.get_paginated_response(self.get_serializer_class()(page, many=True).data)

    def post(self, request: Request, hall_id: int) -> Response:
        hall = visible_hall(request, hall_id)
        require_hall_role(request, hall.pk, *self.write_roles)
        form = NameSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        part = self.part_create(hall=hall, name=form.validated_data["name"])
        return Response(
            self.get_serializer_class()(part).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse(self.detail_route, args=[part.pk])},
        )


def hall_part_schema(
    serializer: type[serializers.Serializer[Any]], *, list_id: str, create_id: str
) -> Callable[[type[HallPartListView]], type[HallPartListView]]:
    """The schema of a ``HallPartListView``: its list (paginated, 404 for a hall the caller
    does not work in) and its create (403 for a role that may not, 400 for a name already used)."""
    return extend_schema_view(
        get=extend_schema(
            operation_id=list_id,
            responses={200: serializer(many=True), 404: ErrorSerializer},
            tags=["halls"],
        ),
        post=extend_schema(
            operation_id=create_id,
            request=NameSerializer,
            responses={
                201: serializer,
                **error_responses("Field errors (a name already used in the hall); nothing created."),
            },
            tags=["halls"],
        ),
    )


@hall_part_schema(RoomSerializer, list_id="halls_rooms_list", create_id="halls_rooms_create")
class RoomListView(HallPartListView):
    """The rooms of a hall: listed for its staff, added by its managers."""

    serializer_class = RoomSerializer
    detail_route = "api:room-detail"

    def parts(self, hall: Hall) -> QuerySet[Room]:
        return selectors.room_list(hall=hall)

    def part_create(self, *, hall: Hall, name: str) -> Room:
        return services.room_create(hall=hall, name=name)


class RoomDetailView(APIView):
    """One room of a hall the caller works in."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="rooms_retrieve", responses={200: RoomSerializer, 404: ErrorSerializer}, tags=["halls"]
    )
    def get(self, request: Request, room_id: int) -> Response:
        try:
            room = selectors.room_list_for(request_user(request)).get(pk=room_id)
        except Room.DoesNotExist:
            raise NotFound(_("There is no room %(id)d.") % {"id": room_id}) from None
        return Response(RoomSerializer(room).data)


@hall_part_schema(CashDeskSerializer, list_id="halls_cash_desks_list", create_id="halls_cash_desks_create")
class CashDeskListView(HallPartListView):
    """The cash desks of a hall: listed for its staff, added by its managers."""

    serializer_class = CashDeskSerializer
    detail_route = "api:cash-desk-detail"

    def parts(self, hall: Hall) -> QuerySet[CashDesk]:
        return selectors.cash_desk_list(hall=hall)

    def part_create(self, *, hall: Hall, name: str) -> CashDesk:
        return services.cash_desk_create(hall=hall, name=name)


class CashDeskDetailView(APIView):
    """One cash desk of a hall the caller works in."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="cash_desks_retrieve",
        responses={200: CashDeskSerializer, 404: ErrorSerializer},
        tags=["halls"],
    )
    def get(self, request: Request, desk_id: int) -> Response:
        try:
            desk = selectors.cash_desk_list_for(request_user(request)).get(pk=desk_id)
        except CashDesk.DoesNotExist:
            raise NotFound(_("There is no cash desk %(id)d.") % {"id": desk_id}) from None
        return Response(CashDeskSerializer(desk).data)
