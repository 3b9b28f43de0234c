"""The OpenAPI schema: valid without warnings, covering every endpoint, browsable without a CDN."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

ENDPOINTS = {
    "/api/players/register/": {"get", "post"},
    "/api/players/me/wallet/": {"get"},
    "/api/players/me/history/": {"get"},
    "/api/players/me/sessions/": {"get"},
    "/api/players/me/playtime/": {"get"},
    "/api/players/me/playtime/continue/": {"post"},
    "/api/players/me/playtime/limit/": {"get", "put"},
    "/api/players/me/history/pdf/": {"get"},
    "/api/players/me/complaints/": {"get", "post"},
    "/api/complaints/": {"get"},
    "/api/complaints/{complaint_id}/decision/": {"post"},
    "/api/players/": {"get"},
    "/api/players/{player_id}/deposits/": {"post"},
    "/api/players/{player_id}/withdrawals/": {"post"},
    "/api/players/me/limits/": {"get", "post"},
    "/api/players/me/exclusion/": {"get", "post"},
    "/api/players/me/pause/": {"post"},
    "/api/players/exclusions/": {"get", "post"},
    "/api/players/exclusions/{exclusion_id}/lift/": {"post"},
    "/api/halls/{hall_id}/ball-sets/": {"get", "post"},
    "/api/ball-sets/{ball_set_id}/": {"get"},
    "/api/ball-sets/{ball_set_id}/checks/": {"get", "post"},
    "/api/ball-sets/{ball_set_id}/replacements/": {"get", "post"},
    "/api/ball-sets/{ball_set_id}/retire/": {"post"},
    "/api/halls/{hall_id}/jackpot/": {"get", "put"},
    "/api/halls/{hall_id}/jackpot/movements/": {"get", "post"},
    "/api/card-sets/": {"get", "post"},
    "/api/card-sets/{card_set_id}/": {"get"},
    "/api/card-sets/{card_set_id}/cards/": {"get"},
    "/api/card-sets/{card_set_id}/cards/{number}/": {"get"},
    "/api/card-sets/{card_set_id}/compare/": {"post"},
    "/api/series/": {"get", "post"},
    "/api/series/{series_id}/": {"get"},
    "/api/series/{series_id}/retire/": {"post"},
    "/api/series/{series_id}/pdf/": {"get"},
    "/api/card-check/": {"get"},
    "/api/halls/": {"get"},
    "/api/halls/{hall_id}/": {"get"},
    "/api/halls/{hall_id}/rooms/": {"get", "post"},
    "/api/halls/{hall_id}/cash-desks/": {"get", "post"},
    "/api/rooms/{room_id}/": {"get"},
    "/api/cash-desks/{desk_id}/": {"get"},
    "/api/sessions/": {"get", "post"},
    "/api/sessions/{session_id}/": {"get"},
    "/api/sessions/{session_id}/close/": {"post"},
    "/api/sessions/{session_id}/games/": {"post"},
    "/api/sessions/{session_id}/acta/notes/": {"get", "post"},
    "/api/sessions/{session_id}/acta/file/": {"get"},
    "/api/games/{game_id}/": {"get"},
    "/api/games/{game_id}/open-sales/": {"post"},
    "/api/games/{game_id}/close-sales/": {"post"},
    "/api/games/{game_id}/play-doubles/": {"post"},
    "/api/games/{game_id}/sales/": {"get", "post"},
    "/api/games/{game_id}/draw/": {"get"},
    "/api/games/{game_id}/draw/start/": {"post"},
    "/api/games/{game_id}/balls/": {"post"},
    "/api/games/{game_id}/manual/": {"post"},
    "/api/games/{game_id}/claims/": {"post"},
    "/api/games/{game_id}/prizes/": {"post"},
    "/api/games/{game_id}/suspend/": {"post"},
    "/api/games/{game_id}/resume/": {"post"},
    "/api/games/{game_id}/annul/": {"post"},
    "/api/games/{game_id}/fault/": {"post"},
    "/api/prize-payments/": {"post"},
    "/api/online/rooms/": {"get", "post"},
    "/api/online/rooms/{room_id}/": {"get", "patch"},
    "/api/online/rooms/{room_id}/sessions/": {"post"},
    "/api/online/lobby/": {"get"},
    "/api/online/games/{game_id}/state/": {"get"},
    "/api/online/games/{game_id}/purchases/": {"post"},
    "/api/online/marking/": {"put"},
    "/api/online/orders/": {"get", "post"},
    "/api/online/orders/{order_id}/cancel/": {"post"},
    "/api/demo/balance/": {"get"},
    "/api/demo/grants/": {"post"},
    "/api/demo/games/": {"post"},
    "/api/demo/games/{game_id}/": {"get"},
}


@pytest.fixture
def schema(tmp_path):
    out = tmp_path / "schema.yml"
    # --fail-on-warn: any drf-spectacular warning (an undocumented response, an untyped field)
    # fails the command.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    return yaml.safe_load(out.read_text())


def test_schema_validates_and_lists_every_endpoint(schema):
    assert schema["openapi"].startswith("3.")
    operations = {path: set(item) - {"parameters"} for path, item in schema["paths"].items()}
    assert operations == ENDPOINTS


def test_only_the_card_check_and_registration_are_open_to_anyone(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            without_login = any("cookieAuth" not in r for r in operation.get("security", [{}]))
            assert without_login == (path in {"/api/card-check/", "/api/players/register/"}), (method, path)


def test_a_write_asks_for_the_csrf_token_as_a_cookie_and_a_header(schema):
    """Issue 26: a program must send the CSRF token twice to write (docs/api.md «Logging in»);
    the schema says so, so a generated client does and Schemathesis can test without it."""
    schemes = schema["components"]["securitySchemes"]
    assert schemes["csrfCookie"] == {"type": "apiKey", "in": "cookie", "name": "csrftoken"}
    assert schemes["csrfHeader"] == {"type": "apiKey", "in": "header", "name": "X-CSRFToken"}
    item = schema["paths"]["/api/halls/{hall_id}/rooms/"]
    assert item["get"]["security"] == [{"cookieAuth": []}]
    assert item["post"]["security"] == [{"cookieAuth": [], "csrfCookie": [], "csrfHeader": []}]
    assert schema["paths"]["/api/players/register/"]["post"]["security"] == [
        {"csrfCookie": [], "csrfHeader": []}
    ]


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "responses" in operation:
                yield path, method, operation


def test_every_error_an_operation_can_answer_is_declared_with_its_body(schema):
    """Issue 26: 400 on writes and on reads with query parameters, 403 wherever a login or a
    role is needed, 404 where the path names an object or a list has pages; each with a JSON
    body (bingo/common/schema.py)."""
    for path, method, operation in _operations(schema):
        codes = set(operation["responses"])
        public_read = method == "get" and path in {"/api/card-check/"}
        writes = method in {"post", "put", "patch", "delete"}
        queries = [p for p in operation.get("parameters", []) if p["in"] == "query" and p["name"] != "format"]
        assert ("400" in codes) == bool(writes or queries), (method, path)
        assert ("403" in codes) != public_read, (method, path)
        if "{" in path or any(p["name"] == "page" for p in operation.get("parameters", [])):
            assert "404" in codes, (method, path)
        for code, response in operation["responses"].items():
            if code.startswith("4"):
                assert list(response["content"]) == ["application/json"], (method, path, code)


def test_money_and_ball_intervals_are_patterns_of_what_the_server_takes(schema):
    components = schema["components"]["schemas"]
    price = components["SeriesCreateRequest"]["properties"]["price"]
    pattern = re.compile(price["pattern"])
    for taken in ("25.00", "0.01", "1000000", "1000000.00", "007.5"):
        assert pattern.fullmatch(taken), taken
    for refused in ("", "-", "0", "0.00", "-1.00", "1000000.01", "1e3", " 5", "5.", ".5x", "+5", "5.001"):
        assert not pattern.fullmatch(refused), refused


def test_text_the_server_refuses_blank_says_so(schema):
    name = schema["components"]["schemas"]["NameRequest"]["properties"]["name"]
    assert name["minLength"] == 1
    pattern = re.compile(name["pattern"])
    assert pattern.search("Sala 2")
    assert not pattern.search("   ")
    assert not pattern.search("a\x00b")


def test_money_and_seeds_are_strings(schema):
    components = schema["components"]["schemas"]
    assert components["Series"]["properties"]["price"]["type"] == "string"
    assert components["SeriesCreateRequest"]["properties"]["price"]["type"] == "string"
    assert components["CardSet"]["properties"]["seed"]["type"] == "string"
    assert components["Prize"]["properties"]["amount_each"]["type"] == "string"
    assert components["Payout"]["properties"]["net"]["type"] == "string"


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_schema_is_downloadable_without_login(client, db, fmt):
    response = client.get(reverse("api:schema"), {"format": fmt})
    assert response.status_code == 200
    assert "/api/card-check/" in response.content.decode()


def test_docs_render_from_local_assets_only(client, db):
    response = client.get(reverse("api:docs"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets
    assert all(not re.match(r"(https?:)?//", url) for url in assets), assets
    assert reverse("api:schema") in html


def test_who_made_a_card_set_series_or_jackpot_movement_may_be_null_as_the_api_answers(schema):
    """Issue 26: the demo's card sets and series, and the jackpot's contributions, are the
    system's (created_by null), which the schema said was always a string: a client generated
    from it broke. An exclusion always has a person behind it."""
    components = schema["components"]["schemas"]
    for name in ("CardSet", "Series", "JackpotMovement"):
        assert components[name]["properties"]["created_by"]["nullable"] is True, name
    assert "nullable" not in components["Exclusion"]["properties"]["created_by"]


REFUSED_WITH_FIELD_ERRORS = {
    "online_rooms_create",
    "online_rooms_partial_update",
    "online_rooms_sessions_create",
    "online_games_purchases_create",
    "demo_grants_create",
    "demo_games_create",
    "players_me_playtime_continue",
    "players_me_playtime_limit_set",
}


def _bad_request_schema(schema, operation_id):
    for item in schema["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                return operation["responses"]["400"]["content"]["application/json"]["schema"]
    raise AssertionError(operation_id)


@pytest.mark.parametrize("operation_id", sorted(REFUSED_WITH_FIELD_ERRORS))
def test_a_refusal_that_names_its_fields_is_what_the_schema_says(schema, operation_id):
    """Issue 26: these operations' 400 was documented as {"detail"} while the server answers
    with the fields at fault; both shapes validate against the schema now."""
    bad_request = _bad_request_schema(schema, operation_id)

    jsonschema.validate({"sales_seconds": ["Ensure this value is at most 3600."]}, bad_request)
    jsonschema.validate({"detail": "JSON parse error."}, bad_request)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"sales_seconds": "not a list"}, bad_request)


def test_a_real_refusal_of_an_online_room_validates_against_its_schema(schema, client, db):
    from bingo.common.roles import Role
    from tests.factories import UserFactory

    client.force_login(UserFactory(roles=[Role.MANAGER]))
    response = client.post("/api/online/rooms/", {"sales_seconds": 10**9}, content_type="application/json")

    assert response.status_code == 400
    assert "sales_seconds" in response.json()
    jsonschema.validate(response.json(), _bad_request_schema(schema, "online_rooms_create"))


def _validator(schema, component):
    """A JSON Schema validator for ``component`` of the OpenAPI 3.0 ``schema``: ``nullable``
    becomes null allowed, ``$ref`` resolves against the document."""

    def convert(node):
        if isinstance(node, list):
            return [convert(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: convert(value) for key, value in node.items()}
        if node.pop("nullable", False):
            if "enum" in node:
                node["enum"] = [*node["enum"], None]
            if "type" in node:
                node["type"] = [node["type"], "null"]
            else:
                node = {"anyOf": [node, {"type": "null"}]}
        return node

    document = {"components": convert(schema["components"])}
    return jsonschema.Draft7Validator({**document, "$ref": f"#/components/schemas/{component}"})


def test_the_game_screens_state_is_what_the_schema_says(schema, db):
    """Issue 26: the player's game state was declared with a description only; a real one, with
    cards, balls and an awarded prize, validates against its component, which lists every key."""
    from django.test import Client

    from bingo.draw import services as draw_services
    from bingo.online import services as online_services
    from cards.selectors import card_get
    from tests.online.helpers import OnlineSetup

    site = OnlineSetup()
    game = site.game(site.series(1))
    player = site.player()
    online_services.online_buy(player=player, game=game, quantity=3, key="k")
    game = site.drawing(game)
    first_row = [n for n in card_get(card_set=site.card_set, number=1)[0] if n is not None]
    site.key(game, *first_row)  # the player's first card holds the line
    draw_services.prize_award(game=game, user=site.caller, kind="line")
    client = Client()
    client.force_login(player.user)

    state = client.get(f"/api/online/games/{game.pk}/state/").json()

    assert state["cards"]
    assert state["awarded"] == ["line"]
    component = "PlayerGameState"
    assert set(state) == set(schema["components"]["schemas"][component]["properties"])
    validator = _validator(schema, component)
    errors = sorted(validator.iter_errors(state), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    assert list(validator.iter_errors({**state, "balance": 80}))  # money is a string: the check bites


def test_the_demo_games_state_is_what_the_schema_says(schema, db):
    from django.test import Client

    from tests.online.helpers import OnlineSetup

    site = OnlineSetup()
    player = site.player("0")
    client = Client()
    client.force_login(player.user)
    assert client.post("/api/demo/grants/").status_code == 201
    made = client.post(
        "/api/demo/games/", {"room": site.online.pk, "cards": 2, "key": "s"}, content_type="application/json"
    )
    assert made.status_code == 201

    state = made.json()

    component = "DemoGameState"
    assert set(state) == set(schema["components"]["schemas"][component]["properties"])
    validator = _validator(schema, component)
    errors = sorted(validator.iter_errors(state), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    assert list(validator.iter_errors({**state, "balance": "80.00"}))  # credits are whole numbers


def test_the_schema_answers_requests_that_come_together(live_server):
    """drf-spectacular's generation is not thread-safe; the contract run's roles loading the
    schema at once got a 500. ``SchemaView`` generates one at a time (bingo/common/schema.py)."""
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    def fetch(_: int) -> int:
        with urllib.request.urlopen(f"{live_server.url}/api/schema/?format=json", timeout=60) as answer:
            return answer.status

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert list(pool.map(fetch, range(12))) == [200] * 12


def test_choices_confirmations_and_pages_are_stated(schema):
    """Issue 26: a limit's kind was free text, "confirmed" any boolean, a page any integer."""
    components = schema["components"]["schemas"]

    def enum(component, field):
        (ref,) = components[component]["properties"][field]["allOf"]
        return components[ref["$ref"].rsplit("/", 1)[1]]["enum"]

    assert enum("LimitRequestRequest", "kind") == ["deposit", "loss"]
    assert enum("SelfExclusionRequest", "confirmed") == [True]
    assert enum("RegistrationRequest", "adult_confirmed") == [True]
    for path in ("/api/series/", "/api/players/me/wallet/"):
        parameters = {p["name"]: p["schema"] for p in schema["paths"][path]["get"]["parameters"]}
        assert parameters["page"]["minimum"] == 1
        assert (parameters["page_size"]["minimum"], parameters["page_size"]["maximum"]) == (1, 500)


def test_the_published_schema_is_the_one_the_code_generates(tmp_path):
    """docs/openapi.yaml is the API's contract as published: a change to the code that changes
    the schema must change this file with it (`make schema`), so a reviewer sees the contract move
    (issue 21: a refactoring leaves it byte-for-byte the same)."""
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(out))
    published = (Path(settings.BASE_DIR) / "docs" / "openapi.yaml").read_text()
    assert out.read_text() == published, "the schema changed: run `make schema` and review docs/openapi.yaml"
