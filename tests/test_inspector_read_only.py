"""The inspector reads and never writes (SPEC "The people who use it": read-only), proven by walking
every route of the site.

Every URL pattern of the resolver (recursively: pages, the API, the admin, i18n) and every
operation of the OpenAPI schema is requested as a logged-in inspector of the hall, with GET,
POST, PUT, PATCH and DELETE, each path parameter filled with the real ids of a populated hall (a
session closed and one running, games in every state, sales, balls, prizes and payments, a ball
set, a jackpot, card sets, series, a print job), every write with a body a permitted person's
request could carry. Then: no answer is a 5xx, and every table of every model
(``apps.get_models()``) holds exactly the rows it held before, value for value.

Two things are left out, each for a reason: ``django_session`` (the inspector's own login session:
the card-set comparison an inspector may run keeps its result there, and it is no record of
the hall), and the logout route (it ends that session, and axes stamps the logout time).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.apps import apps
from django.contrib.sessions.models import Session as LoginSession
from django.db import models
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from drf_spectacular.generators import SchemaGenerator

from bingo.common.roles import Role
from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.drawers import services as drawer_services
from bingo.games import services
from bingo.models import DrawMode, Game, OnlineOrder, PlayerComplaint, Sale
from bingo.players import services as player_services
from bingo.protection import services as protection_services
from cards.models import PrintJob
from halls.models import StaffMembership
from tests.actas.world import AuditedHall

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
SKIPPED_NAMES = {"logout"}


class Populated(AuditedHall):
    """``AuditedHall`` (a closed session: a game finished and paid, one annulled) and a second
    session whose games are planned, selling, closed, drawing and suspended."""

    def __init__(self) -> None:
        super().__init__("Sala Inspecionada")
        start = timezone.now()
        self.session = services.session_open(
            room=self.room, starts_at=start, scheduled_end=start + timedelta(hours=4), user=self.manager
        )
        self.planned = services.game_create(session=self.session, variant="90")
        self.selling = self.game(self.series(21))
        self.sell(self.selling, 3)
        self.closed = self.game(self.series(22))
        self.sell(self.closed, 2)
        services.game_close_sales(game=self.closed, user=self.manager)
        self.drawing = self.game(self.series(23))
        self.sell(self.drawing, 2)
        services.game_close_sales(game=self.drawing, user=self.manager)
        draw_services.game_start_draw(game=self.drawing, user=self.caller, mode=DrawMode.ELECTRONIC)
        draw_services.game_draw_ball(game=self.drawing, user=self.caller, position=1)
        self.suspended = self.game(self.series(24))
        services.game_close_sales(game=self.suspended, user=self.manager)
        draw_services.game_suspend(game=self.suspended, user=self.caller, reason="monitor failure")
        self.print_job = PrintJob.objects.create(series=self.series_of(self.won), first=1, last=10)
        self.player = player_services.player_register(
            username="jogadora", email="jogadora@example.cv", first_name="Rosa", last_name="Silva",
            password="correct-horse-battery-staple", birth_date=date(1990, 1, 1), adult_confirmed=True,
            hall=self.hall,
        )  # fmt: skip
        self.exclusion = protection_services.player_exclude(
            player=self.player, staff=self.manager, length="1m", reason="walked"
        )
        self.drawer = drawer_services.drawer_open(
            cash_desk=self.desk, cashier=self.cashier, opening_float=Decimal("100")
        )

    def ids(self) -> dict[str, list[Any]]:
        """The values each path parameter takes: every object of its kind."""
        games = list(Game.objects.values_list("pk", flat=True))
        membership = StaffMembership.objects.filter(hall=self.hall).values_list("pk", flat=True)
        return {
            "hall": [self.hall.pk],
            "session": [self.session.pk, self.won.session_id],
            "game": games,
            "card_set": [self.card_set.pk],
            "series": [self.series_of(g).pk for g in (self.won, self.selling)],
            "ball_set": [self.ball_set.pk],
            "print_job": [self.print_job.pk],
            "room": [self.room.pk],
            "desk": [self.desk.pk],
            "membership": list(membership),
            "request_key": [Sale.objects.filter(game=self.won).values_list("request_key", flat=True).first()],
            "token": [draw_selectors.display_token(room=self.room)],
            # The password reset's and the e-mail verification's links: a user's id, a token
            # (the display's: a link that does not work, refused without a change).
            "uidb64": [urlsafe_base64_encode(force_bytes(self.player.pk))],
            "number": [1],
            "player": [self.player.pk],
            # No online game here to complain about: an id that names none still walks the
            # managers' complaint pages (refused to the inspector before any lookup).
            "complaint": list(PlayerComplaint.objects.values_list("pk", flat=True)) or [1],
            "exclusion": [self.exclusion.pk],
            # No standing order here: an id naming none walks the player's cancel (refused to the
            # inspector, who plays no game, before any lookup).
            "order": list(OnlineOrder.objects.values_list("pk", flat=True)) or [1],
            "drawer": [self.drawer.pk],
            # A payout slip's code (cashiers' and managers' pages: refused to the inspector
            # before any lookup); one that finds nothing walks them as well.
            "slip_code": ["1AAAA"],
        }

    def body(self) -> dict[str, Any]:
        """Fields a permitted person's write would carry, with real ids: a refusal must come from
        who the inspector is, not from a body no endpoint could accept."""
        return {
            "quantity": 1,
            "cash_desk": self.desk.pk,
            "cash_received": "1000.00",
            "request_key": "walk-key",
            "series": [self.series_of(self.selling).pk],
            "first": self.series_of(self.selling).pk,
            "name": "Walked",
            "room": self.room.pk,
            "starts_at": (timezone.now() + timedelta(hours=1)).isoformat(),
            "scheduled_end": (timezone.now() + timedelta(hours=3)).isoformat(),
            "variant": "90",
            "reason": "walked",
            "kind": "line",
            "card_number": 1,
            "position": 2,
            "mode": DrawMode.ELECTRONIC.value,
            "amount": "10.00",
            "base_value": "500.00",
            "note": "walked",
            "serial_number": "WALK-1",
            "size": 90,
            "phase": "end",
            "ball_number": 3,
            "price": "100.00",
            "order_number": 99,
            "card_set": self.card_set.pk,
            "back_colour": "#000000",
            "face_colour": "#FFFFFF",
            "user": self.inspector.pk,
            "role": Role.MANAGER.value,
            "check_code": "XXXX",
            "first_card": 1,
            "last_card": 2,
            "opening_float": "100",
            "counted_cash": "100",
            "scan": "walked",
        }


@pytest.fixture
def hall() -> Populated:
    return Populated()


# --- every route ----------------------------------------------------------------------------------


def _patterns(
    patterns: list[URLPattern | URLResolver], namespace: str | None = None
) -> Iterator[tuple[str | None, URLPattern, str]]:
    """(namespaced name, pattern, its full route text) of every pattern, recursively."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = namespace
            if pattern.namespace:
                inner = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
            for name, leaf, route in _patterns(pattern.url_patterns, inner):
                yield name, leaf, str(pattern.pattern) + route
        else:
            name = f"{namespace}:{pattern.name}" if namespace and pattern.name else pattern.name
            yield name, pattern, str(pattern.pattern)


#: Which object an ambiguous ``pk`` names, by the route's namespace and name.
PK_KINDS = [
    (r"^cards:card_set", "card_set"),
    (r"^cards:series", "series"),
    (r"^cards:print_job", "print_job"),
    (r"^halls:", "hall"),
    (r"^games:session|^games:game_create", "session"),
    (r"^games:game", "game"),
    (r"^draw:", "game"),
    (r"^actas:session|^actas:acta_", "session"),
    (r"^drawers:", "drawer"),
]
#: The other parameters, by name.
PARAMETER_KINDS = {
    "hall_id": "hall",
    "session_id": "session",
    "game_id": "game",
    "card_set_id": "card_set",
    "series_id": "series",
    "ball_set_id": "ball_set",
    "ball_set_pk": "ball_set",
    "membership_pk": "membership",
    "room_id": "room",
    "desk_id": "desk",
    "request_key": "request_key",
    "token": "token",
    "uidb64": "uidb64",
    "number": "number",
    "player_id": "player",
    "complaint_id": "complaint",
    "exclusion_id": "exclusion",
    "order_id": "order",
    "code": "slip_code",
}
#: The admin's parameters (the inspector is not staff: every admin page sends them to log in).
ADMIN_VALUES = {"app_label": "bingo", "object_id": "1", "content_type_id": "1", "url": "x/"}


def _kind_of(name: str | None, parameter: str) -> str:
    if parameter == "pk":
        for prefix, kind in PK_KINDS:
            if name and re.search(prefix, name):
                return kind
        raise AssertionError(f"no object kind for the pk of {name}: add it to PK_KINDS")
    if parameter not in PARAMETER_KINDS:
        raise AssertionError(f"no value for the parameter {parameter} of {name}: add it to PARAMETER_KINDS")
    return PARAMETER_KINDS[parameter]


def _fill(name: str | None, route: str, ids: dict[str, list[Any]]) -> list[str]:
    """Every path of ``route`` with its parameters filled with every real id of their kind."""
    if route.startswith("admin/") or route.startswith("^admin/"):
        return [_admin_path(name, route)]
    parameters = re.findall(r"<(?:\w+:)?(\w+)>", route)
    paths = [route]
    for parameter in parameters:
        values = ids[_kind_of(name, parameter)]
        paths = [
            re.sub(rf"<(?:\w+:)?{parameter}>", str(value), path, count=1)
            for path in paths
            for value in values
        ]
    return ["/" + path for path in paths]


def _admin_path(name: str | None, route: str) -> str:
    if name is None:
        return "/admin/" + ADMIN_VALUES["url"]
    values = {p: ADMIN_VALUES.get(p, "1") for p in re.findall(r"<(?:\w+:)?(\w+)>", route)}
    for parameter, choices in re.findall(r"\(\?P<(\w+)>([^)]*)\)", route):
        # A group listing its choices (the admin's app labels) takes the first one.
        first = choices.split("|")[0]
        values[parameter] = first if re.fullmatch(r"\w+", first) else ADMIN_VALUES.get(parameter, "1")
    return reverse(name, kwargs=values)


def _schema_operations(ids: dict[str, list[Any]]) -> set[tuple[str, str]]:
    """(method, path) of every operation of the OpenAPI schema, parameters filled."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = set()
    for path, operations in schema["paths"].items():
        for method in operations:
            if method not in METHODS:
                continue
            filled = [path]
            for parameter in re.findall(r"\{(\w+)\}", path):
                values = ids[PARAMETER_KINDS[parameter]]
                filled = [p.replace("{" + parameter + "}", str(v), 1) for p in filled for v in values]
            found.update((method, p) for p in filled)
    return found


# --- the database, before and after -------------------------------------------------------------


def _fingerprint() -> dict[str, tuple[int, str]]:
    """Every model's table: how many rows, and a hash over all their values in id order."""
    prints = {}
    for model in apps.get_models():
        if model is LoginSession or model._meta.proxy:
            continue
        rows = list(model._default_manager.order_by("pk").values_list())
        digest = hashlib.sha256(repr(rows).encode()).hexdigest()
        prints[model._meta.label] = (len(rows), digest)
    return prints


def _request(client: Client, method: str, path: str, body: dict[str, Any]) -> int:
    if method == "get":
        return client.get(path).status_code
    if path.startswith("/api/"):
        return client.generic(
            method.upper(), path, json.dumps(body), content_type="application/json"
        ).status_code
    if method == "post":
        return client.post(path, body).status_code
    return client.generic(method.upper(), path, json.dumps(body), content_type="application/json").status_code


def test_an_inspector_changes_nothing_on_any_route(hall: Populated) -> None:
    ids = hall.ids()
    body = hall.body()
    client = Client(raise_request_exception=False)
    client.force_login(hall.inspector)  # axes records the login now, before the first fingerprint

    requests: set[tuple[str, str]] = set()
    names = set()
    for name, _pattern, route in _patterns(get_resolver().url_patterns):
        if name in SKIPPED_NAMES:
            continue
        names.add(name)
        requests.update((method, path) for path in _fill(name, route, ids) for method in METHODS)
    schema = _schema_operations(ids)
    requests |= schema
    assert {"actas:audit_trail", "api:game-sales", "draw:game_annul", "cards:card_set_compare"} <= names
    assert len(schema) > 100

    before = _fingerprint()
    assert before["bingo.Game"][0] == Game.objects.count() > 6
    answered: dict[int, int] = {}
    failures = []
    for method, path in sorted(requests):
        status = _request(client, method, path, body)
        answered[status] = answered.get(status, 0) + 1
        if status >= 500:
            failures.append((method, path, status))
    after = _fingerprint()

    assert failures == []
    changed = {label: (before[label], after[label]) for label in before if before[label] != after[label]}
    assert changed == {}
    # The walk really reached pages the inspector may read, and was refused elsewhere.
    assert answered.get(200, 0) > 20
    assert answered.get(403, 0) > 100


def test_the_walk_would_see_a_write(hall: Populated) -> None:
    """The fingerprint is not blind: the same walk's check notices one changed value."""
    before = _fingerprint()
    models.QuerySet.update(Game.objects.filter(pk=hall.planned.pk), number=99)
    assert _fingerprint() != before
