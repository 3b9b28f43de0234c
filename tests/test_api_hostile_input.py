"""Hostile input gets a 400, never a 500 (issue 20, 3).

Every write endpoint of the schema is called by a person whose role may act on it, in a world
where the ids in its path exist, so the request gets as far as its body: a JSON body nested
5,000 levels deep is refused as such (the parser, ``bingo.common.parsers``), not with the
recursion error's 500.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from bingo.common.roles import Role
from bingo.complaints import services as complaint_services
from bingo.games import services as game_services
from bingo.online import services as online_services
from tests.cards.factories import series_make
from tests.factories import UserFactory, adult_player
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
        # R90: a continuous room opens with something to sell, so its online series comes first;
        # its sessions and games are the online loop's own (online=True).
        online_series = series_make(
            hall=self.hall, card_set=self.card_set, order_number=9, price="10.00", online=True
        )
        self.online = online_services.online_room_create(
            hall=self.hall, name="Online", mode="continuous", ball_interval="2"
        )
        self.online_session = game_services.session_open(
            room=self.online.room,
            starts_at=self.session.starts_at,
            scheduled_end=self.session.scheduled_end,
            user=None,
            online=True,
        )
        game = game_services.game_create(session=self.online_session, variant="90", online=True)
        self.online_game = game_services.game_open_sales(game=game, series=[online_series])
        # The player of ``World`` is excluded (R101): another one buys and complains.
        buyer = adult_player(
            UserFactory(username="buyer-walk", roles=[Role.PLAYER]),
            self.hall,
            deposit="100.00",
            cashier=self.people[Role.CASHIER],
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

    def more_ids(self) -> dict[str, int]:
        """Ids some calls name in place of the schema's: the hall's own room, game and desk, and
        an online room in session mode (R91)."""
        session_room = online_services.online_room_create(
            hall=self.hall, name="Sessions", mode="session", ball_interval="2"
        )
        return {
            "hall_room_id": self.room.pk,
            "hall_game_id": self.selling.pk,
            "desk_id": self.desk.pk,
            "session_room_id": session_room.pk,
        }

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


# --- numbers beyond their bounds (bingo.common.bounds) -----------------------------------------

BIG = 2**31  # one past PostgreSQL's integer
HUGE = 10**30  # past every integer column, and past SQLite's too
AMOUNT = "9999999999.99"  # a decimal string the money fields read, beyond every amount's bound


def _session_body(**times: str) -> dict[str, Any]:
    return {"starts_at": "2026-11-23T20:00", "scheduled_end": "2026-11-23T23:00", **times}


def _online_session_body(**fields: Any) -> dict[str, Any]:
    # A week ahead: R91 refuses a session starting in the past before any other field.
    day = (timezone.localdate() + timedelta(days=7)).isoformat()
    return {
        "starts_at": f"{day}T20:00",
        "sales_close_at": f"{day}T20:30",
        "scheduled_end": f"{day}T23:00",
        "games": [{"variant": "90", "price": "10.00"}],
        **fields,
    }


#: (operation, path (None: the schema's), body, the field the 400 names). A value beyond its
#: bound for every family of write endpoints; each once gave a 500 or reached the service.
BEYOND: list[tuple[str, str | None, dict[str, Any], str]] = [
    # online rooms (R88-R93): issue 20's PATCH with a huge sales window
    ("online_rooms_partial_update", None, {"sales_seconds": BIG}, "sales_seconds"),
    ("online_rooms_partial_update", None, {"sales_seconds": HUGE}, "sales_seconds"),
    ("online_rooms_partial_update", None, {"pause_seconds": BIG}, "pause_seconds"),
    ("online_rooms_partial_update", None, {"ball_interval": "9999.99"}, "ball_interval"),
    (
        "online_rooms_create",
        None,
        {
            "hall": "{hall_id}",
            "name": "Big",
            "mode": "continuous",
            "ball_interval": "2",
            "sales_seconds": BIG,
        },
        "sales_seconds",
    ),
    (
        "online_rooms_sessions_create",
        "/api/online/rooms/{session_room_id}/sessions/",
        _online_session_body(scheduled_end="9999-12-31T23:59:59"),
        "scheduled_end",
    ),
    (
        "online_rooms_sessions_create",
        "/api/online/rooms/{session_room_id}/sessions/",
        _online_session_body(games=[{"variant": "90", "price": "10.00"}] * 21),
        "games",
    ),
    (
        "online_rooms_sessions_create",
        "/api/online/rooms/{session_room_id}/sessions/",
        _online_session_body(games=[{"variant": "90", "price": AMOUNT}]),
        "games",
    ),
    ("online_games_purchases_create", None, {"quantity": HUGE, "key": "k"}, "quantity"),
    ("online_orders_create", None, {"room": "{room_id}", "games": HUGE, "quantity": 1, "key": "k"}, "games"),
    (
        "online_orders_create",
        None,
        {"room": "{room_id}", "games": 1, "quantity": HUGE, "key": "k"},
        "quantity",
    ),
    ("demo_games_create", None, {"room": HUGE, "cards": 1, "key": "k"}, "room"),
    # sessions and the desk's sales
    (
        "sessions_create",
        None,
        {"room": "{hall_room_id}", **_session_body(scheduled_end="9999-12-31T23:59:59")},
        "scheduled_end",
    ),
    (
        "sessions_create",
        None,
        {"room": "{hall_room_id}", **_session_body(scheduled_end="2026-11-25T20:00")},
        "scheduled_end",
    ),
    (
        "sessions_create",
        None,
        {
            "room": "{hall_room_id}",
            **_session_body(starts_at="9999-12-30T20:00", scheduled_end="9999-12-30T23:00"),
        },
        "starts_at",
    ),
    (
        "games_sales_create",
        "/api/games/{hall_game_id}/sales/",
        {"quantity": BIG, "cash_desk": "{desk_id}", "cash_received": "100.00"},
        "quantity",
    ),
    (
        "games_sales_create",
        "/api/games/{hall_game_id}/sales/",
        {"quantity": 1, "cash_desk": "{desk_id}", "cash_received": AMOUNT},
        "cash_received",
    ),
    # cards and series
    (
        "series_create",
        None,
        {
            "hall": "{hall_id}",
            "order_number": BIG,
            "card_set": "{card_set_id}",
            "price": "10.00",
            "back_colour": "#1E88E5",
            "face_colour": "#1E88E5",
        },
        "order_number",
    ),
    (
        "series_create",
        None,
        {
            "hall": "{hall_id}",
            "order_number": 77,
            "card_set": "{card_set_id}",
            "price": AMOUNT,
            "back_colour": "#1E88E5",
            "face_colour": "#1E88E5",
        },
        "price",
    ),
    ("card_sets_create", None, {"variant": "90", "size": BIG}, "size"),
    # the draw and the desk's prizes
    ("games_balls_create", "/api/games/{hall_game_id}/balls/", {"position": BIG, "number": 5}, "position"),
    ("games_balls_create", "/api/games/{hall_game_id}/balls/", {"position": 1, "number": HUGE}, "number"),
    (
        "games_claims_create",
        "/api/games/{hall_game_id}/claims/",
        {"series": "{series_id}", "card_number": HUGE, "kind": "line"},
        "card_number",
    ),
    (
        "prize_payments_create",
        None,
        {"series": "{series_id}", "card_number": BIG, "check_code": "X", "cash_desk": "{desk_id}"},
        "card_number",
    ),
    # ball sets and the jackpot
    (
        "halls_ball_sets_create",
        None,
        {"serial_number": "JB-9", "size": 90, "games_played": BIG},
        "games_played",
    ),
    ("ball_sets_replacements_create", None, {"ball_number": BIG, "reason": "x"}, "ball_number"),
    ("halls_jackpot_configure", None, {"base_value": AMOUNT}, "base_value"),
    ("halls_jackpot_movements_create", None, {"kind": "seed", "amount": "999999999999.99"}, "amount"),
    # players: the wallet, limits and play time (R101), exclusions, complaints, registering
    (
        "players_deposits_create",
        None,
        {"amount": "999999999999.99", "reference": "CC 1", "key": "k"},
        "amount",
    ),
    (
        "players_withdrawals_create",
        None,
        {"amount": "999999999999.99", "reference": "CC 1", "key": "k"},
        "amount",
    ),
    (
        "players_me_limits_set",
        None,
        {"kind": "deposit", "period": "day", "amount": "999999999999.99"},
        "amount",
    ),
    (
        "players_me_playtime_limit_set",
        None,
        {"session_minutes": BIG, "reminder_minutes": None},
        "session_minutes",
    ),
    (
        "players_me_playtime_limit_set",
        None,
        {"session_minutes": None, "reminder_minutes": HUGE},
        "reminder_minutes",
    ),
    ("players_exclusions_create", None, {"player": HUGE, "length": "1m", "reason": "x"}, "player"),
    ("players_me_complaints_file", None, {"game": HUGE, "text": "x"}, "game"),
    (
        "players_register",
        None,
        {
            "username": "newcomer",
            "email": "newcomer@example.com",
            "first_name": "N",
            "last_name": "C",
            "password": "A-long-passphrase-9",
            "birth_date": "1990-01-01",
            "adult_confirmed": True,
            "hall": HUGE,
        },
        "hall",
    ),
]

_PATHS = {operation: (method, path) for method, path, operation, _body in WRITES}


def _fill(value: Any, ids: dict[str, int]) -> Any:
    """``value`` with its "{name}" strings replaced by the world's ids (as numbers)."""
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return ids[value[1:-1]]
    if isinstance(value, dict):
        return {key: _fill(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, ids) for item in value]
    return value


@pytest.mark.parametrize(
    ("operation", "path", "body", "field"),
    BEYOND,
    ids=[f"{operation}-{field}-{i}" for i, (operation, _p, _b, field) in enumerate(BEYOND)],
)
def test_a_number_beyond_its_bound_gets_400_naming_the_field(
    hostile: HostileWorld, operation: str, path: str | None, body: dict[str, Any], field: str
) -> None:
    ids = hostile.ids() | hostile.more_ids()
    method, schema_path = _PATHS[operation]
    url = _url(path or schema_path, ids)
    response = hostile.client_for(operation).generic(
        method,
        url,
        data=json.dumps(_fill(body, ids)),
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="hostile-key",
    )
    assert response.status_code == 400, response.content[:300]
    assert field in response.json(), response.json()


@pytest.mark.parametrize(
    ("url", "field"),
    [
        (f"/api/sessions/?room={HUGE}", "room"),
        (f"/api/sessions/?hall={HUGE}", "hall"),
        (f"/api/series/?hall={HUGE}", "hall"),
    ],
)
def test_a_list_filtered_by_an_id_no_row_can_have_gets_400(
    hostile: HostileWorld, url: str, field: str
) -> None:
    """An id past a bigint names no row: refused on the field (SQLite could not even bind it)."""
    client = Client()
    client.force_login(hostile.people[Role.MANAGER])
    response = client.get(url)
    assert response.status_code == 400, response.content[:300]
    assert field in response.json()
