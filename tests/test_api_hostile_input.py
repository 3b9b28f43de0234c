"""Hostile input gets a 400, never a 500 (issue 20, 3).

Every write endpoint of the schema is called by a person whose role may act on it, in a world
where the ids in its path exist, so the request gets as far as its body: a JSON body nested
5,000 levels deep is refused as such (the parser, ``bingo.common.parsers``), not with the
recursion error's 500.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from bingo.common.roles import Role
from bingo.complaints import services as complaint_services
from bingo.games import services as game_services
from bingo.models import Player
from bingo.online import services as online_services
from bingo.players.services import wallet_post
from tests.cards.factories import series_make
from tests.factories import UserFactory
from tests.test_api_write_permissions import ALLOWED, World, _url

DEEP = 5_000


def _writes() -> list[tuple[str, str, str, bool]]:
    """(method, path, operation id, whether it takes a body) of every write in the schema."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (method.upper(), path, operation["operationId"], "requestBody" in operation)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in {"post", "put", "patch", "delete"}
    )


WRITES = _writes()


class HostileWorld(World):
    """``World`` and, for the online endpoints, an online room selling a game in which a
    player bought a card and filed a complaint."""

    def __init__(self) -> None:
        super().__init__()
        self.online = online_services.online_room_create(
            hall=self.hall, name="Online", mode="continuous", ball_interval="2"
        )
        online_series = series_make(
            hall=self.hall, card_set=self.card_set, order_number=9, price="10.00", online=True
        )
        self.online_session = game_services.session_open(
            room=self.online.room,
            starts_at=self.session.starts_at,
            scheduled_end=self.session.scheduled_end,
            user=None,
        )
        game = game_services.game_create(session=self.online_session, variant="90")
        self.online_game = game_services.game_open_sales(game=game, series=[online_series])
        # The player of ``World`` is excluded (R101): another one buys and complains.
        buyer = Player.objects.create(
            user=UserFactory(username="buyer-walk", roles=[Role.PLAYER]),
            hall=self.hall,
            birth_date=date(1990, 1, 1),
            adult_confirmed_at=timezone.now(),
        )
        wallet_post(
            player=buyer,
            kind="deposit",
            amount=Decimal("100.00"),
            recorded_by=self.people[Role.CASHIER],
            reference="CC 1",
        )
        online_services.online_buy(player=buyer, game=self.online_game, quantity=1, key="hostile-1")
        self.complaint = complaint_services.complaint_file(
            player=buyer, game=self.online_game, text="The ball was wrong."
        )

    def ids(self) -> dict[str, int]:
        ids = super().ids()
        # The online endpoints name an online room and game; the hall's endpoints take the
        # online game as well (it is a game of this hall), so every path reaches its body.
        ids["room_id"] = self.online.pk
        ids["game_id"] = self.online_game.pk
        ids["complaint_id"] = self.complaint.pk
        return ids

    def client_for(self, operation: str) -> Client:
        """A client logged in as a person whose role may call ``operation`` (none: anonymous)."""
        client = Client()
        client.cookies["django_language"] = "en"
        roles = sorted(ALLOWED[operation], key=lambda role: role.value)
        if roles:
            client.force_login(self.people[roles[0]])
        return client


@pytest.fixture
def hostile(db: None) -> HostileWorld:
    return HostileWorld()


def _send(world: HostileWorld, method: str, path: str, operation: str, body: str) -> Any:
    return world.client_for(operation).generic(
        method,
        _url(path, world.ids()),
        data=body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="hostile-key",  # the desk's sale reads its key before its body
    )


@pytest.mark.parametrize(("method", "path", "operation", "has_body"), WRITES, ids=[w[2] for w in WRITES])
def test_a_body_nested_5000_deep_gets_400_not_500(
    hostile: HostileWorld, method: str, path: str, operation: str, has_body: bool
) -> None:
    body = "[" * DEEP + "]" * DEEP
    response = _send(hostile, method, path, operation, body)
    if has_body:
        assert response.status_code == 400, response.content[:300]
        assert response.json() == {
            "detail": "The JSON body is nested too deeply: at most 32 levels of arrays and objects."
        }
    else:  # an action without a body never reads it
        assert response.status_code < 500, response.content[:300]


def test_a_body_nested_33_deep_is_refused_and_32_deep_is_read(hostile: HostileWorld) -> None:
    """The limit is the parser's own, not the interpreter's stack: 33 levels are refused, 32
    reach the serializer (which says what is wrong with the field)."""
    path, operation = "/api/halls/{hall_id}/rooms/", "halls_rooms_create"
    for depth, expected in ((33, "nested too deeply"), (32, "name")):
        nested: Any = "x"
        for _level in range(depth - 1):
            nested = [nested]
        response = _send(hostile, "POST", path, operation, json.dumps({"name": nested}))
        assert response.status_code == 400
        assert expected in response.content.decode()


def test_the_refusal_is_in_portuguese(hostile: HostileWorld) -> None:
    client = hostile.client_for("halls_rooms_create")
    client.cookies["django_language"] = "pt"
    response = client.post(
        _url("/api/halls/{hall_id}/rooms/", hostile.ids()),
        data='{"name": ' * DEEP + "1" + "}" * DEEP,
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["detail"].startswith("O corpo JSON")
