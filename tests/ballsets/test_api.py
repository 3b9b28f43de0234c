"""Ball sets and the jackpot over the API: a hall's staff read, its managers write, and its
callers record the checks of the balls (R23); another hall's objects answer 404; the endpoints
are in the OpenAPI schema."""

from __future__ import annotations

from decimal import Decimal

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse

from bingo.common.roles import Role
from bingo.jackpot import services as jackpot_services
from halls.models import BallReplacement, BallSet, BallSetCheck, Jackpot, JackpotMovement
from tests.clients import api
from tests.common.access import CALLERS, STAFF, refused_status, staff_of_each_role
from tests.factories import HallWithSessions, UserFactory, two_halls

pytestmark = pytest.mark.django_db

READ = set(STAFF)
MANAGER = {Role.MANAGER}
CHECKERS = {Role.MANAGER, Role.CALLER}  # R23: the caller runs the balls through the mechanism


class Staffed(HallWithSessions):
    """A hall with a ball set, a session and one person in each staff role."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.staff = staff_of_each_role(self.hall, name)
        self.set = self.ball_set("JB-1")
        self.spare = self.ball_set("JB-2")
        self.open_session = self.session()


praia, mindelo = two_halls(Staffed)


def _url(name: str, about: str, hall: Staffed) -> str:
    return reverse(f"api:{name}", args=[hall.hall.pk if about == "hall" else hall.set.pk])


# (name, method, url name, what the url is about, body, roles of the hall allowed, status)
ENDPOINTS = [
    ("ball sets", "get", "hall-ball-sets", "hall", None, READ, 200),
    (
        "ball set create",
        "post",
        "hall-ball-sets",
        "hall",
        {"serial_number": "JB-3", "size": 90},
        MANAGER,
        201,
    ),
    ("ball set", "get", "ball-set-detail", "set", None, READ, 200),
    ("checks", "get", "ball-set-checks", "set", None, READ, 200),
    (
        "check create",
        "post",
        "ball-set-checks",
        "set",
        {"session": "SESSION", "phase": "start"},
        CHECKERS,
        201,
    ),
    ("replacements", "get", "ball-set-replacements", "set", None, READ, 200),
    (
        "ball replace",
        "post",
        "ball-set-replacements",
        "set",
        {"ball_number": 9, "reason": "chip"},
        MANAGER,
        201,
    ),
    ("retire", "post", "ball-set-retire", "set", {"reason": "worn"}, MANAGER, 200),
    ("jackpot", "get", "hall-jackpot", "hall", None, READ, 200),
    ("jackpot configure", "put", "hall-jackpot", "hall", {"base_value": "100.00"}, MANAGER, 200),
    ("ledger", "get", "hall-jackpot-movements", "hall", None, READ, 200),
    ("seed", "post", "hall-jackpot-movements", "hall", {"kind": "seed", "amount": "100.00"}, MANAGER, 201),
]


def _state() -> tuple[int, ...]:
    return (
        BallSet.objects.count(),
        BallSetCheck.objects.count(),
        BallReplacement.objects.count(),
        BallSet.objects.filter(state="retired").count(),
        JackpotMovement.objects.count(),
        Jackpot.objects.filter(base_value__gt=0).count(),
    )


@pytest.mark.parametrize(("where", "role"), CALLERS, ids=lambda v: v.value if isinstance(v, Role) else v)
@pytest.mark.parametrize(("name", "method", "url_name", "about", "body", "allowed", "ok"), ENDPOINTS)
def test_role_and_hall_matrix(praia, mindelo, where, role, name, method, url_name, about, body, allowed, ok):
    user = {
        "own": praia.staff.get(role),
        "other": mindelo.staff.get(role),
        "nobody": UserFactory(username="nobody", roles=list(STAFF), password=None),  # works in no hall
        "anon": None,
    }[where]
    if body and body.get("session") == "SESSION":
        body = {**body, "session": praia.open_session.pk}
    before = _state()

    response = getattr(api(user), method)(
        _url(url_name, about, praia), data=body, content_type="application/json"
    )

    if where == "anon":
        assert response.status_code == 403  # session authentication: not logged in
    elif where != "own":  # 404: as if the hall did not exist
        expected = refused_status(where=where, role=role, allowed=allowed, method=method)
        assert response.status_code == expected, response.content
    elif role in allowed:
        assert response.status_code == ok, response.content
    else:
        assert response.status_code == 403, response.content
    changed = _state() != before
    assert changed == (where == "own" and role in allowed and method != "get")


# --- what the managers write -----------------------------------------------------------------------


def test_a_new_ball_set_answers_with_its_place(praia):
    response = api(praia.staff[Role.MANAGER]).post(
        reverse("api:hall-ball-sets", args=[praia.hall.pk]),
        {"serial_number": "JB-75", "size": 75, "games_played": 1990},
        content_type="application/json",
    )
    assert response.status_code == 201
    body = response.json()
    assert (body["size"], body["games_played"], body["games_left"], body["state"]) == (75, 1990, 10, "active")
    assert response["Location"] == reverse("api:ball-set-detail", args=[body["id"]])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"serial_number": "JB-1", "size": 90}, "serial_number"),  # taken in this hall
        ({"serial_number": "JB-4", "size": 60}, "size"),
        ({"serial_number": "JB-4", "size": 90, "games_played": 2000}, "games_played"),
    ],
)
def test_a_refused_ball_set_is_a_400_with_the_field(praia, body, field):
    response = api(praia.staff[Role.MANAGER]).post(
        reverse("api:hall-ball-sets", args=[praia.hall.pk]), body, content_type="application/json"
    )
    assert response.status_code == 400
    assert field in response.json()


def test_checks_are_recorded_and_listed(praia, mindelo):
    client = api(praia.staff[Role.MANAGER])
    url = reverse("api:ball-set-checks", args=[praia.set.pk])
    session = praia.open_session.pk
    response = client.post(
        url, {"session": session, "phase": "start", "faulty_balls": [12, 3]}, content_type="application/json"
    )
    assert response.status_code == 201
    assert (response.json()["result"], response.json()["faulty_balls"]) == ("faulty", [3, 12])
    assert response.json()["checked_by"] == praia.staff[Role.MANAGER].username

    again = client.post(url, {"session": session, "phase": "start"}, content_type="application/json")
    assert again.status_code == 400
    assert "already recorded" in again.json()["non_field_errors"][0]
    foreign = client.post(
        url, {"session": mindelo.open_session.pk, "phase": "start"}, content_type="application/json"
    )
    assert foreign.status_code == 400
    assert "session" in foreign.json()

    listed = api(praia.staff[Role.INSPECTOR]).get(url).json()
    assert [check["phase"] for check in listed["results"]] == ["start"]


def test_a_caller_records_the_start_and_end_checks(praia, mindelo):
    caller = praia.staff[Role.CALLER]
    client = api(caller)
    url = reverse("api:ball-set-checks", args=[praia.set.pk])
    session = praia.open_session.pk

    start = client.post(url, {"session": session, "phase": "start"}, content_type="application/json")
    end = client.post(
        url, {"session": session, "phase": "end", "faulty_balls": [90]}, content_type="application/json"
    )
    no_start = client.post(
        reverse("api:ball-set-checks", args=[praia.spare.pk]),
        {"session": session, "phase": "end"},
        content_type="application/json",
    )

    assert (start.status_code, end.status_code) == (201, 201), (start.content, end.content)
    assert [(r.json()["phase"], r.json()["result"]) for r in (start, end)] == [
        ("start", "ok"),
        ("end", "faulty"),
    ]
    assert {start.json()["checked_by"], end.json()["checked_by"]} == {caller.username}
    assert no_start.status_code == 400  # the rules hold for callers too (R23)
    # Reading what they check; the rest stays with the managers.
    assert client.get(reverse("api:hall-ball-sets", args=[praia.hall.pk])).status_code == 200
    refused = [
        client.post(
            reverse("api:hall-ball-sets", args=[praia.hall.pk]),
            {"serial_number": "JB-9", "size": 90},
            content_type="application/json",
        ),
        client.post(
            reverse("api:ball-set-replacements", args=[praia.set.pk]),
            {"ball_number": 90, "reason": "cracked"},
            content_type="application/json",
        ),
        client.post(
            reverse("api:ball-set-retire", args=[praia.set.pk]),
            {"reason": "worn"},
            content_type="application/json",
        ),
    ]
    assert [r.status_code for r in refused] == [403, 403, 403]
    # A caller of another hall does not even find the set.
    foreign = api(mindelo.staff[Role.CALLER]).post(
        url, {"session": session, "phase": "start"}, content_type="application/json"
    )
    assert foreign.status_code == 404
    assert BallSetCheck.objects.count() == 2


def test_replacements_are_one_ball_or_the_whole_set(praia, mindelo):
    client = api(praia.staff[Role.MANAGER])
    url = reverse("api:ball-set-replacements", args=[praia.set.pk])

    both = client.post(
        url,
        {"ball_number": 3, "replacement_set": praia.spare.pk, "reason": "x"},
        content_type="application/json",
    )
    neither = client.post(url, {"reason": "x"}, content_type="application/json")
    out_of_set = client.post(url, {"ball_number": 91, "reason": "x"}, content_type="application/json")
    foreign_set = client.post(
        url, {"replacement_set": mindelo.spare.pk, "reason": "x"}, content_type="application/json"
    )
    assert [r.status_code for r in (both, neither, out_of_set, foreign_set)] == [400] * 4
    assert "ball_number" in out_of_set.json()
    assert "replacement_set" in foreign_set.json()

    ball = client.post(url, {"ball_number": 3, "reason": "chipped"}, content_type="application/json")
    assert ball.status_code == 201
    whole = client.post(
        url,
        {"replacement_set": praia.spare.pk, "reason": "worn", "session": praia.open_session.pk},
        content_type="application/json",
    )
    assert whole.status_code == 201
    assert whole.json()["session"] == praia.open_session.pk
    praia.set.refresh_from_db()
    assert praia.set.state == "retired"
    # Both sets show the replacement in their history.
    spare_history = client.get(reverse("api:ball-set-replacements", args=[praia.spare.pk])).json()
    assert [r["ball_set"] for r in spare_history["results"]] == [praia.set.pk]


def test_a_retired_set_is_not_retired_twice(praia):
    client = api(praia.staff[Role.MANAGER])
    url = reverse("api:ball-set-retire", args=[praia.set.pk])
    assert client.post(url, {"reason": "worn"}, content_type="application/json").json()["state"] == "retired"
    assert client.post(url, {"reason": "worn"}, content_type="application/json").status_code == 400


def test_the_jackpot_is_configured_seeded_and_read(praia):
    client = api(praia.staff[Role.MANAGER])
    url = reverse("api:hall-jackpot", args=[praia.hall.pk])
    empty = client.get(url).json()
    assert (empty["active"], empty["balance"], empty["base_value"]) == (False, "0.00", "0.00")

    configured = client.put(
        url,
        {"base_value": "5000.00", "authorization_reference": "Despacho 1", "valid_until": "2030-01-01"},
        content_type="application/json",
    )
    assert configured.status_code == 200
    assert configured.json()["base_value"] == "5000.00"
    assert client.put(url, {"base_value": "-1.00"}, content_type="application/json").status_code == 400

    movements = reverse("api:hall-jackpot-movements", args=[praia.hall.pk])
    seed = client.post(movements, {"kind": "seed", "amount": "5000.00"}, content_type="application/json")
    assert seed.status_code == 201
    assert seed.json()["balance_after"] == "5000.00"
    for body in (
        {"kind": "contribution", "amount": "10.00"},  # only a game contributes (R10)
        {"kind": "adjustment", "amount": "-10.00"},  # without its reason
        {"kind": "seed", "amount": 10.5},  # money travels as a string
    ):
        assert client.post(movements, body, content_type="application/json").status_code == 400, body

    game = praia.game(praia.open_session)
    jackpot_services.jackpot_contribute(hall=praia.hall, game_id=game.pk, amount=Decimal("150.00"))
    ledger = api(praia.staff[Role.CASHIER]).get(movements).json()["results"]
    assert [(m["kind"], m["amount"], m["game"]) for m in ledger] == [
        ("contribution", "150.00", game.pk),
        ("seed", "5000.00", None),
    ]
    assert api(praia.staff[Role.CALLER]).get(url).json()["balance"] == "5150.00"


# --- the schema ------------------------------------------------------------------------------------

OURS = {
    "/api/halls/{hall_id}/ball-sets/": {"get", "post"},
    "/api/ball-sets/{ball_set_id}/": {"get"},
    "/api/ball-sets/{ball_set_id}/checks/": {"get", "post"},
    "/api/ball-sets/{ball_set_id}/replacements/": {"get", "post"},
    "/api/ball-sets/{ball_set_id}/retire/": {"post"},
    "/api/halls/{hall_id}/jackpot/": {"get", "put"},
    "/api/halls/{hall_id}/jackpot/movements/": {"get", "post"},
}


def test_the_schema_describes_every_ball_set_and_jackpot_endpoint(tmp_path):
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema = yaml.safe_load(out.read_text())
    operations = {path: set(item) - {"parameters"} for path, item in schema["paths"].items()}
    assert {path: operations.get(path) for path in OURS} == OURS
    components = schema["components"]["schemas"]
    assert components["Jackpot"]["properties"]["balance"]["type"] == "string"  # money as strings
    assert components["JackpotMovement"]["properties"]["amount"]["type"] == "string"


def test_a_ball_replaced_again_in_a_session_needs_why_through_the_api(praia):
    """Issue [A0] 7 (R26): the repeat is refused without repeat_reason, then recorded flagged."""
    client = api(praia.staff[Role.MANAGER])
    url = reverse("api:ball-set-replacements", args=[praia.set.pk])
    body = {"ball_number": 17, "reason": "cracked", "session": praia.open_session.pk}

    first = client.post(url, body, content_type="application/json")
    refused = client.post(url, body, content_type="application/json")
    again = client.post(url, {**body, "repeat_reason": "chipped too"}, content_type="application/json")

    assert (first.status_code, refused.status_code, again.status_code) == (201, 400, 201)
    assert first.json()["repeated"] is False
    assert "already replaced in this session" in refused.json()["repeat_reason"][0]
    assert again.json()["repeated"] is True
    assert again.json()["repeat_of"] == first.json()["id"]
    assert again.json()["repeat_reason"] == "chipped too"
