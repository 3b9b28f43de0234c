"""Every write endpoint checks the role before it reads the body (issue [A0] 4).

A person whose role may not act gets 403, never 400 with field errors that tell them how to
shape a request they may not make. The table below is the one in docs/api.md ("Who may call
what"); the test fails when the schema gains a write endpoint the table does not list.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from bingo.ballsets import services as ballset_services
from bingo.common.roles import Role, user_roles_set
from bingo.models import (
    Game,
    OnlineOrder,
    OnlineRoom,
    PlayerComplaint,
    PlayerExclusion,
    PlayerExclusionLift,
    PlayerLimit,
    RoomMode,
    Sale,
    Session,
    WalletEntry,
)
from bingo.protection import services as protection_services
from halls.models import Room, StaffMembership
from tests.clients import api, logged_in
from tests.factories import UserFactory, adult_player
from tests.sales.test_services import HallSetup

M, CASH, CALL, INSP, PLAYER = Role.MANAGER, Role.CASHIER, Role.CALLER, Role.INSPECTOR, Role.PLAYER

#: Who may call each write endpoint (docs/api.md).
ALLOWED: dict[str, set[Role]] = {
    "card_sets_create": {M},
    "card_sets_compare": {M, INSP},
    "series_create": {M},
    "series_retire": {M},
    "halls_rooms_create": {M},
    "halls_cash_desks_create": {M},
    "sessions_create": {M},
    "sessions_close": {M},
    "sessions_games_create": {M},
    "games_open_sales": {M},
    "games_close_sales": {M},
    "games_play_doubles": {M},
    "games_sales_create": {CASH},
    "games_draw_start": {CALL},
    "games_balls_create": {CALL},
    "games_manual": {CALL},
    "games_claims_create": {CALL},
    "games_prizes_create": {CALL},
    "games_suspend": {M, CALL},
    "games_resume": {M, CALL},
    "games_annul": {M, CALL},
    "games_fault": {M, CALL},
    "prize_payments_create": {CASH},
    "halls_ball_sets_create": {M},
    "ball_sets_replacements_create": {M},
    "ball_sets_retire": {M},
    "ball_sets_checks_create": {M, CALL},
    "halls_jackpot_configure": {M},
    "halls_jackpot_movements_create": {M},
    "sessions_acta_notes_create": {M, CALL},
    # Online players (bingo/players/api.py): registering is for someone not logged in.
    "players_register": set(),
    "players_deposits_create": {M, CASH},
    "players_withdrawals_create": {M, CASH},
    "online_rooms_create": {M},
    "online_rooms_partial_update": {M},
    "online_rooms_sessions_create": {M},
    "online_games_purchases_create": {PLAYER},
    "online_marking_update": {PLAYER},
    "online_orders_create": {PLAYER},
    "online_orders_cancel": {PLAYER},
    "demo_grants_create": {PLAYER},
    "demo_games_create": {PLAYER},
    "players_me_playtime_continue": {PLAYER},
    "players_me_playtime_limit_set": {PLAYER},
    # The player's complaints (bingo/complaints/api.py, R61 j)).
    "players_me_complaints_file": {PLAYER},
    "complaints_decide": {M},
    # Responsible gaming (bingo/protection/api.py, R101).
    "players_me_limits_set": {PLAYER},
    "players_me_exclusion_create": {PLAYER},
    "players_me_pause_create": {PLAYER},
    "players_exclusions_create": {M},
    "players_exclusions_lift": {M},
}

#: Bodies no endpoint accepts: wrong types everywhere, unknown fields, nothing at all.
INVALID_BODIES: list[Any] = [
    {},
    {
        "quantity": "many",
        "cash_desk": "x",
        "cash_received": -1,
        "room": "x",
        "starts_at": "soon",
        "series": [],
        "name": "",
        "price": 1.5,
    },
]


def write_operations() -> list[tuple[str, str, str]]:
    """(method, path, operation id) of every write in the OpenAPI schema."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (method.upper(), path, operation["operationId"])
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in {"post", "put", "patch", "delete"}
    )


def test_the_table_lists_every_write_endpoint() -> None:
    assert {operation for _m, _p, operation in write_operations()} == set(ALLOWED)


class World(HallSetup):
    """A hall with one object of every kind a write endpoint names, and a user in each role."""

    def __init__(self) -> None:
        super().__init__()
        self.series_on_sale = self.series(1)
        self.selling = self.game(self.series_on_sale)
        self.ball_set = ballset_services.ball_set_create(hall=self.hall, serial_number="JB-1", size=90)
        self.people: dict[Role, Any] = {}
        for role in Role:
            user = UserFactory(username=f"{role.value}-walk", password=None)
            user_roles_set(user=user, roles=[role])
            if role != PLAYER:
                StaffMembership.objects.create(hall=self.hall, user=user, role=role.value)
            self.people[role] = user
        self.player = adult_player(self.people[PLAYER], self.hall)
        self.exclusion = protection_services.player_exclude(
            player=self.player, staff=self.people[M], length="1m", reason="walk"
        )
        # A real open standing order of the player (in an online room of the hall), so the cancel
        # endpoint names one: written as it stood before the exclusion above, which would have
        # ended it (R101) and which refuses a new one.
        online_room = OnlineRoom.objects.create(
            room=Room.objects.create(hall=self.hall, name="Online walk"), mode=RoomMode.CONTINUOUS
        )
        self.order = OnlineOrder.objects.create(
            player=self.player,
            online_room=online_room,
            quantity=1,
            games_wanted=2,
            key="walk",
            price=Decimal("10.00"),
            variant="90",
            created_at=timezone.now(),
        )

    def ids(self) -> dict[str, int]:
        return {
            "hall_id": self.hall.pk,
            "game_id": self.selling.pk,
            "session_id": self.session.pk,
            "series_id": self.series_on_sale.pk,
            "card_set_id": self.card_set.pk,
            "ball_set_id": self.ball_set.pk,
            "player_id": self.player.pk,
            "room_id": self.room.pk,
            "exclusion_id": self.exclusion.pk,
            # No online game here to complain about: an id naming none still walks the managers'
            # decision endpoint (a role that may not decide is refused before any lookup).
            "complaint_id": 1,
            # The player's open standing order: another role is refused before any lookup.
            "order_id": self.order.pk,
        }


@pytest.fixture
def world(db: None) -> World:
    return World()


def _url(path: str, ids: dict[str, int]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(ids[m[1]]), path)


@pytest.mark.parametrize("body", INVALID_BODIES, ids=["empty", "garbage"])
def test_a_role_that_may_not_act_gets_403_whatever_the_body(world: World, body: Any) -> None:
    ids = world.ids()
    wrong: list[str] = []
    checked = 0
    for method, path, operation in write_operations():
        for role, user in world.people.items():
            if role in ALLOWED[operation]:
                continue
            response = api(user).generic(
                method, _url(path, ids), data=__import__("json").dumps(body), content_type="application/json"
            )
            checked += 1
            if response.status_code != 403:
                wrong.append(
                    f"{method} {path} as {role.value}: {response.status_code} {response.content[:120]!r}"
                )
    assert checked > 100
    assert not wrong, "\n".join(wrong)


def _written() -> tuple[int, ...]:
    """How many rows of each kind a forbidden write could have added or decided."""
    return (
        Session.objects.count(),
        Game.objects.count(),
        Sale.objects.count(),
        WalletEntry.objects.count(),
        PlayerLimit.objects.count(),
        PlayerExclusion.objects.count(),
        PlayerExclusionLift.objects.count(),
        PlayerComplaint.objects.filter(decided_at__isnull=False).count(),
        OnlineOrder.objects.count(),
        OnlineOrder.objects.filter(ended_at__isnull=False).count(),
    )


def test_the_player_cancels_their_order_the_others_were_refused(world: World) -> None:
    """The allowed role's path on the order's cancel, after every forbidden one: the order named
    is real, still open, and its player cancels it (200)."""
    for role, user in world.people.items():
        if role != PLAYER:
            assert api(user).post(f"/api/online/orders/{world.order.pk}/cancel/").status_code == 403
    world.order.refresh_from_db()
    assert world.order.is_open

    cancelled = api(world.people[PLAYER]).post(f"/api/online/orders/{world.order.pk}/cancel/")

    assert cancelled.status_code == 200, cancelled.content
    assert (cancelled.json()["id"], cancelled.json()["end_reason"]) == (world.order.pk, "cancelled")


def test_nothing_changed_after_the_forbidden_requests(world: World) -> None:
    """The refusals above write nothing: the world is as it was (no session, game or sale more)."""
    before = _written()
    for method, path, operation in write_operations():
        for role, user in world.people.items():
            if role in ALLOWED[operation]:
                continue
            logged_in(user).generic(
                method, _url(path, world.ids()), data="{}", content_type="application/json"
            )
    assert _written() == before
