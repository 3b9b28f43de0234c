"""The sessions and games API: hall-scoped access, the open/sell/close flow with the R40
announcement. Selling over the API (idempotent sales, refusals that sell nothing) is
tests/sales/test_api.py's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone

from bingo.common.roles import Role
from bingo.games import services
from bingo.models import Game, Sale, Session
from bingo.sales import services as sales_services
from halls.models import StaffMembership
from tests.cards.factories import series_make
from tests.clients import api
from tests.common.access import CALLERS, STAFF, refused_status
from tests.factories import UserFactory, two_halls
from tests.games.world import UNUSABLE, World, sell, state

praia, mindelo = two_halls(World)


# --- who may call what ------------------------------------------------------------------------

READERS = set(STAFF)
MANAGER = {Role.MANAGER}
LEDGER = {Role.MANAGER, Role.INSPECTOR, Role.CASHIER}

# (name, method, url name, object the url is about, body, roles of the hall allowed, status)
ENDPOINTS = [
    ("session detail", "get", "session-detail", "session", None, READERS, 200),
    ("game create", "post", "session-games", "session", {"variant": "90"}, MANAGER, 201),
    ("game detail", "get", "game-detail", "selling", None, READERS, 200),
    ("open sales", "post", "game-open-sales", "planned", {"series": "series"}, MANAGER, 200),
    ("close sales", "post", "game-close-sales", "selling", None, MANAGER, 200),
    ("sales ledger", "get", "game-sales", "selling", None, LEDGER, 200),
]


@pytest.mark.parametrize(("where", "role"), CALLERS, ids=lambda v: v.value if isinstance(v, Role) else v)
@pytest.mark.parametrize(("name", "method", "url_name", "about", "body", "allowed", "ok"), ENDPOINTS)
def test_role_and_hall_matrix(praia, mindelo, where, role, name, method, url_name, about, body, allowed, ok):
    series = praia.series(2)
    selling = praia.selling_game(praia.series(1))
    objects = {"session": praia.session, "selling": selling, "planned": praia.game()}
    target = objects[about]
    user = {
        "own": praia.staff.get(role),  # type: ignore[arg-type]
        "other": mindelo.staff.get(role),  # type: ignore[arg-type]
        # Holds every role group, but works in no hall: groups open screens, not halls.
        "nobody": UserFactory(username="nobody", roles=list(STAFF), password=UNUSABLE),
        "anon": None,
    }[where]
    data = {k: [series.pk] if v == "series" else v for k, v in body.items()} if body else None
    before = state(objects["planned"]), state(selling)

    response = getattr(api(user), method)(
        reverse(f"api:{url_name}", args=[target.pk]), data=data, content_type="application/json"
    )

    if where == "own" and role in allowed:
        assert response.status_code == ok, response.content[:300]
        return
    if where == "anon":
        assert response.status_code == 403
    elif where == "own":
        assert response.status_code == 403
        assert response.json()["detail"] == "Your role does not allow this."
    else:  # 404: another hall's objects are not there for them
        assert response.status_code == refused_status(where=where, role=role, allowed=allowed, method=method)
    assert (state(objects["planned"]), state(selling)) == before


def test_a_manager_cannot_open_a_session_in_another_halls_room(praia, mindelo):
    start = timezone.now()
    body = {
        "room": mindelo.room.pk,
        "starts_at": start.isoformat(),
        "scheduled_end": (start + timedelta(hours=2)).isoformat(),
    }
    response = api(praia.staff[Role.MANAGER]).post(
        reverse("api:session-list"), body, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {"room": [f'Invalid pk "{mindelo.room.pk}" - object does not exist.']}
    assert Session.objects.count() == 2


def test_a_cashier_cannot_open_a_session(praia):
    start = timezone.now()
    body = {
        "room": praia.room.pk,
        "starts_at": start.isoformat(),
        "scheduled_end": (start + timedelta(hours=2)).isoformat(),
    }
    response = api(praia.staff[Role.CASHIER]).post(
        reverse("api:session-list"), body, content_type="application/json"
    )
    assert response.status_code == 403
    assert Session.objects.count() == 1


def test_sessions_list_only_the_callers_halls(praia, mindelo):
    url = reverse("api:session-list")
    ids = [s["id"] for s in api(praia.staff[Role.CALLER]).get(url).json()["results"]]
    assert ids == [praia.session.pk]
    both = UserFactory(username="both", password=UNUSABLE)
    StaffMembership.objects.create(hall=praia.hall, user=both, role=Role.INSPECTOR.value)
    StaffMembership.objects.create(hall=mindelo.hall, user=both, role=Role.INSPECTOR.value)
    assert api(both).get(url).json()["count"] == 2
    only = api(both).get(url, {"hall": mindelo.hall.pk}).json()["results"]
    assert [s["id"] for s in only] == [mindelo.session.pk]
    assert api(praia.staff[Role.MANAGER]).get(url, {"hall": mindelo.hall.pk}).json()["count"] == 0


# --- the whole flow ---------------------------------------------------------------------------


def test_session_game_open_sell_close_with_the_exact_r40_announcement(praia):
    manager, cashier = api(praia.staff[Role.MANAGER]), api(praia.staff[Role.CASHIER])
    first, second = praia.series(7), praia.series(8)
    warm_up = praia.selling_game(first)
    sales_services.sale_make(
        game=warm_up,
        quantity=50,
        cash_desk=praia.desk,
        cashier=praia.staff[Role.CASHIER],
        cash_received="5000",
        request_key="warm-up",
    )
    services.game_close_sales(game=warm_up)

    start = timezone.now()
    response = manager.post(
        reverse("api:session-list"),
        {
            "room": praia.room.pk,
            "starts_at": start.isoformat(),
            "scheduled_end": (start + timedelta(hours=3)).isoformat(),
        },
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    session = response.json()
    assert response["Location"] == reverse("api:session-detail", args=[session["id"]])
    assert session["hall"] == praia.hall.pk
    assert session["opened_by"] == praia.staff[Role.MANAGER].username

    response = manager.post(
        reverse("api:session-games", args=[session["id"]]),
        {"variant": "90", "prize_plan": {"line": "20", "bingo": "60"}},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    game = response.json()
    assert (game["number"], game["state"], game["prize_plan"]) == (
        1,
        "planned",
        {"line": "20", "bingo": "60"},
    )

    response = manager.post(
        reverse("api:game-open-sales", args=[game["id"]]),
        {"series": [first.pk, second.pk]},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    opened = response.json()
    assert opened["state"] == "selling"
    assert opened["price"] == "100.00"
    assert opened["opening_announcement"]
    assert [(s["label"], s["position"], s["start_number"], s["last_number"]) for s in opened["on_sale"]] == [
        ("A-7", 1, 51, None),
        ("A-8", 2, 1, None),
    ]

    game_obj = Game.objects.get(pk=game["id"])
    response = sell(cashier, game_obj, praia.desk, quantity=45, cash_received="5000.00", player="Maria")
    assert response.status_code == 201, response.content
    assert response.json() == {
        "cards": 45,
        "amount": "4500.00",
        "cash_received": "5000.00",
        "change": "500.00",
        "ranges": [
            {
                **row,
                "game": game["id"],
                "unit_price": "100.00",
                "cash_desk": praia.desk.pk,
                "cashier": praia.staff[Role.CASHIER].username,
                "cash_received": "5000.00",
                "player": "Maria",
                "id": response.json()["ranges"][i]["id"],
                "created_at": response.json()["ranges"][i]["created_at"],
            }
            for i, row in enumerate(
                [
                    {
                        "series": first.pk,
                        "label": "A-7",
                        "first_number": 51,
                        "last_number": 90,
                        "quantity": 40,
                        "amount": "4000.00",
                        "part": 1,
                    },
                    {
                        "series": second.pk,
                        "label": "A-8",
                        "first_number": 1,
                        "last_number": 5,
                        "quantity": 5,
                        "amount": "500.00",
                        "part": 2,
                    },
                ]
            )
        ],
    }

    board = api(praia.staff[Role.CALLER]).get(reverse("api:game-detail", args=[game["id"]])).json()
    assert (board["cards_sold"], board["sales_total"]) == (45, "4500.00")
    assert [
        (s["label"], s["start_number"], s["last_number"], s["cards_sold"], s["amount"])
        for s in board["on_sale"]
    ] == [
        ("A-7", 51, 90, 40, "4000.00"),
        ("A-8", 1, 5, 5, "500.00"),
    ]

    response = manager.post(reverse("api:game-close-sales", args=[game["id"]]))
    assert response.status_code == 200, response.content
    closed = response.json()
    assert closed["state"] == "sales_closed"
    # 45 cards at 100: 4,500 of sales; line 20% = 900, bingo 60% = 2,700 (R7, R40).
    assert closed["closing_announcement"].splitlines() == [
        "Venderam-se 45 cartões da série A-7, do n.º 51 ao n.º 90, e da série A-8, do n.º 1 ao n.º 5",
        "Line prize: 900 CVE",
        "Bingo prize: 2 700 CVE",
    ]

    detail = manager.get(reverse("api:session-detail", args=[session["id"]])).json()
    assert [(g["number"], g["state"], g["price"]) for g in detail["games"]] == [(1, "sales_closed", "100.00")]
    # After the close no more sales.
    assert sell(cashier, game_obj, praia.desk).status_code == 400
    assert Sale.objects.filter(game_id=game["id"]).count() == 2


def test_a_prize_plan_breaking_r7_is_refused_citing_r7(praia):
    response = api(praia.staff[Role.MANAGER]).post(
        reverse("api:session-games", args=[praia.session.pk]),
        {"variant": "90", "prize_plan": {"line": "30", "bingo": "50"}},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "R7" in response.json()["non_field_errors"][0]
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"variant": "91"}, "variant"),
        ({"variant": "90", "prize_plan": {"line": 20, "bingo": 60}}, "prize_plan"),
        ({"variant": "90", "prize_plan": {"jackpot": "20", "bingo": "60"}}, "non_field_errors"),
    ],
)
def test_bad_games_are_refused(praia, body, field):
    response = api(praia.staff[Role.MANAGER]).post(
        reverse("api:session-games", args=[praia.session.pk]), body, content_type="application/json"
    )
    assert response.status_code == 400
    assert field in response.json()
    assert not Game.objects.exists()


def test_opening_another_halls_series_is_refused(praia, mindelo):
    game = praia.game()
    response = api(praia.staff[Role.MANAGER]).post(
        reverse("api:game-open-sales", args=[game.pk]),
        {"series": [mindelo.series(1).pk]},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json() == {"non_field_errors": ["Series A-1 belongs to another hall."]}
    game.refresh_from_db()
    assert game.state == "planned"


# --- times on the hall's clock ----------------------------------------------------------------


def test_a_session_time_without_offset_is_read_on_the_halls_clock(db):
    tokyo = World("Sala Tóquio", time_zone="Asia/Tokyo")
    body = {"room": tokyo.room.pk, "starts_at": "2026-11-23T20:00", "scheduled_end": "2026-11-23T23:00+09:00"}

    response = api(tokyo.staff[Role.MANAGER]).post(
        reverse("api:session-list"), body, content_type="application/json"
    )

    assert response.status_code == 201, response.content
    session = Session.objects.get(pk=response.json()["id"])
    assert session.starts_at == datetime(2026, 11, 23, 20, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert session.scheduled_end == datetime(2026, 11, 23, 14, 0, tzinfo=UTC)


def test_a_session_time_the_halls_clock_change_makes_ambiguous_is_refused(db):
    lisbon = World("Sala Lisboa", time_zone="Europe/Lisbon")
    # Lisbon's clocks go back from 02:00 to 01:00 on 25 October 2026: 01:30 happens twice.
    body = {"room": lisbon.room.pk, "starts_at": "2026-10-25T01:30", "scheduled_end": "2026-10-25T05:00"}

    response = api(lisbon.staff[Role.MANAGER]).post(
        reverse("api:session-list"), body, content_type="application/json"
    )

    assert response.status_code == 400
    assert list(response.json()) == ["starts_at"]
    assert "Lisbon time" in response.json()["starts_at"][0]  # the zone by its name (issue 25)
    assert Session.objects.count() == 1


def test_the_api_refuses_a_hall_session_in_an_online_room_whose_continuous_session_runs(praia):
    from bingo.autodraw.services import online_reconcile
    from bingo.online import services as online_services

    series_make(hall=praia.hall, online=True)
    online = online_services.online_room_create(
        hall=praia.hall, name="Online", mode="continuous", ball_interval="2"
    )
    online_reconcile()
    running = Session.objects.get(room=online.room, ended_at__isnull=True)
    start = timezone.now() + timedelta(hours=1)
    body = {
        "room": online.room.pk,
        "starts_at": start.isoformat(),
        "scheduled_end": (start + timedelta(hours=2)).isoformat(),
    }

    response = api(praia.staff[Role.MANAGER]).post(
        reverse("api:session-list"), body, content_type="application/json"
    )

    assert response.status_code == 400
    assert list(response.json()) == ["room"]
    assert "online room" in response.json()["room"][0]
    assert list(Session.objects.filter(room=online.room)) == [running]


def test_the_api_refuses_a_game_added_by_hand_to_an_online_room_s_session(praia):
    from bingo.autodraw.services import online_reconcile
    from bingo.online import services as online_services

    series_make(hall=praia.hall, online=True)
    online = online_services.online_room_create(
        hall=praia.hall, name="Online", mode="continuous", ball_interval="2"
    )
    online_reconcile()
    running = Session.objects.get(room=online.room, ended_at__isnull=True)

    response = api(praia.staff[Role.MANAGER]).post(
        reverse("api:session-games", args=[running.pk]), {"variant": "90"}, content_type="application/json"
    )

    assert response.status_code == 400
    assert "online room" in response.json()["non_field_errors"][0]
    assert running.games.count() == 1
