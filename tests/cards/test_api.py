"""The card-stock API: who may call what, card sets, cards, series, PDFs and the public card check."""

from __future__ import annotations

import importlib.util
import json
import re
from datetime import datetime
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from bingo.common.roles import Role
from bingo.engine import ALGORITHM_CARDS, ALGORITHM_CARDS_1, Variant, generate_card_set
from cards import selectors, services
from cards.models import CardSet, CardSetCells, Series
from halls.models import Hall, StaffMembership
from tests.cards.factories import series_make
from tests.factories import DEFAULT_PASSWORD

SEED = 20170109
HAS_PRINT_SERVICES = importlib.util.find_spec("cards.printing.services") is not None


@pytest.fixture
def card_set(db):
    return services.card_set_request(variant="90", size=90, seed=SEED, algorithm=ALGORITHM_CARDS, user=None)


@pytest.fixture
def series(hall, card_set):
    return series_make(hall=hall, card_set=card_set, order_number=1, price="25.00")


def jsonl(response):
    body = b"".join(response.streaming_content).decode()
    return [json.loads(line) for line in body.splitlines()]


# --- who may call what ------------------------------------------------------------------------

READERS = {Role.MANAGER, Role.INSPECTOR}
MANAGER = {Role.MANAGER}

# (name, method, url name, url args from the fixtures, body, roles allowed, status when allowed)
ENDPOINTS = [
    ("card sets list", "get", "card-set-list", (), None, READERS, 200),
    (
        "card set create",
        "post",
        "card-set-list",
        (),
        {"variant": "80", "size": 90, "seed": "7"},
        MANAGER,
        201,
    ),
    ("card set detail", "get", "card-set-detail", ("card_set",), None, READERS, 200),
    ("one card", "get", "card-set-card", ("card_set", 1), None, READERS, 200),
    ("all cards", "get", "card-set-cards", ("card_set",), None, READERS, 200),
    ("compare", "post", "card-set-compare", ("card_set",), None, READERS, 200),
    ("series list", "get", "series-list", (), None, READERS, 200),
    (
        "series create",
        "post",
        "series-list",
        (),
        {
            "hall": "hall",
            "order_number": 2,
            "card_set": "card_set",
            "price": "10.00",
            "back_colour": "#000000",
            "face_colour": "#FFFFFF",
        },
        MANAGER,
        201,
    ),
    ("series detail", "get", "series-detail", ("series",), None, READERS, 200),
    ("series retire", "post", "series-retire", ("series",), None, MANAGER, 200),
    pytest.param(
        "series pdf",
        "get",
        "series-pdf",
        ("series",),
        None,
        MANAGER,
        200,
        marks=pytest.mark.skipif(not HAS_PRINT_SERVICES, reason="cards/printing/services.py not written yet"),
    ),
]


def _resolve(value, objects):
    return objects[value].pk if isinstance(value, str) and value in objects else value


@pytest.mark.parametrize("role", [*Role, None], ids=lambda r: r.value if r else "anonymous")
@pytest.mark.parametrize(("name", "method", "url_name", "args", "body", "allowed", "ok"), ENDPOINTS)
def test_role_matrix(client, make_user, series, role, name, method, url_name, args, body, allowed, ok):
    objects = {"series": series, "card_set": series.card_set, "hall": series.hall}
    url = reverse(f"api:{url_name}", args=[_resolve(a, objects) for a in args])
    data = {k: _resolve(v, objects) for k, v in body.items()} if body else None
    if role is not None:
        user = make_user(role)
        if role == Role.MANAGER:  # a manager of the series' hall (series are per hall)
            StaffMembership.objects.create(hall=series.hall, user=user, role=role.value)
        client.force_login(user)
    counts = (CardSet.objects.count(), Series.objects.count())

    response = getattr(client, method)(url, data=data, content_type="application/json")

    if role in allowed:
        assert response.status_code == ok, getattr(response, "content", b"")[:300]
    else:
        assert response.status_code in (401, 403) if role is None else response.status_code == 403
        assert (CardSet.objects.count(), Series.objects.count()) == counts
        assert Series.objects.get().status == Series.Status.IN_STOCK


def test_anonymous_is_told_to_log_in(client, card_set):
    response = client.get(reverse("api:card-set-list"))
    assert response.status_code == 403
    assert response.json()["detail"] == "As credenciais de autenticação não foram fornecidas."


def test_a_program_logs_in_and_writes_with_the_csrf_token(make_user):
    """The flow docs/api.md gives programs: log in through /entrar/, then send X-CSRFToken."""
    user = make_user(Role.MANAGER)
    client = Client(enforce_csrf_checks=True)
    client.get(reverse("login"))
    login = client.post(
        reverse("login"),
        {
            "username": user.username,
            "password": DEFAULT_PASSWORD,
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
        },
    )
    assert login.status_code == 302
    body = {"variant": "90", "size": 90}
    url = reverse("api:card-set-list")

    response = client.post(url, body, content_type="application/json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert not CardSet.objects.exists()

    token = client.cookies["csrftoken"].value  # rotated at login
    response = client.post(url, body, content_type="application/json", headers={"X-CSRFToken": token})
    assert response.status_code == 201


# --- card sets --------------------------------------------------------------------------------


def test_create_card_set_generates_it_at_once(client_as):
    client = client_as(Role.MANAGER)
    response = client.post(
        reverse("api:card-set-list"),
        {"variant": "90", "size": 90, "seed": "12345", "strips": True},
        content_type="application/json",
    )
    assert response.status_code == 201
    data = response.json()
    assert response["Location"] == reverse("api:card-set-detail", args=[data["id"]])
    assert data["status"] == "ready"
    assert data["progress"] == 100
    assert data["seed"] == "12345"
    assert data["algorithm"] == "strips/1"
    assert data["strips"] is True
    assert data["fingerprint"] == generate_card_set(Variant.B90, 90, 12345, algorithm="strips/1").fingerprint
    assert data["series"] == []
    assert datetime.fromisoformat(data["generated_at"]).utcoffset() is not None
    assert CardSet.objects.get().created_by.username == data["created_by"]


def test_create_card_set_without_seed_records_a_random_one(client_as):
    response = client_as(Role.MANAGER).post(
        reverse("api:card-set-list"), {"variant": "75", "size": 120}, content_type="application/json"
    )
    assert response.status_code == 201
    assert re.fullmatch(r"[0-9]+", response.json()["seed"])
    assert response.json()["seed"] == str(int(CardSet.objects.get().seed))


def test_huge_seed_round_trips_as_a_string(client_as):
    seed = str(2**256 - 1)
    client = client_as(Role.MANAGER)
    created = client.post(
        reverse("api:card-set-list"),
        {"variant": "30", "size": 90, "seed": seed},
        content_type="application/json",
    )
    assert created.status_code == 201
    fetched = client.get(reverse("api:card-set-detail", args=[created.json()["id"]]))
    assert fetched.json()["seed"] == seed


def test_large_card_set_is_scheduled_with_202(client_as, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(services, "INLINE_LIMIT", 50)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_as(Role.MANAGER).post(
            reverse("api:card-set-list"), {"variant": "90", "size": 90}, content_type="application/json"
        )
    assert response.status_code == 202
    assert response.json()["status"] == "pending"
    assert response.json()["progress"] == 0
    assert len(callbacks) == 1  # the Celery task, sent once the request commits


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"variant": "91", "size": 90}, "variant"),
        ({"size": 90}, "variant"),
        ({"variant": "90", "size": 0}, "size"),
        ({"variant": "90", "size": "many"}, "size"),
        ({"variant": "90", "size": 1_000_001}, "size"),
        ({"variant": "90", "size": 90, "seed": "-1"}, "seed"),
        ({"variant": "90", "size": 90, "seed": "12a"}, "seed"),
        ({"variant": "90", "size": 90, "seed": str(2**256)}, "seed"),
        ({"variant": "90", "size": 90, "strips": "maybe"}, "strips"),
        ({"variant": "80", "size": 90, "strips": True}, "non_field_errors"),  # strips are 90-ball only
        ({"variant": "90", "size": 91, "strips": True}, "non_field_errors"),  # not a multiple of 6
    ],
)
def test_bad_card_set_request_is_400_and_creates_nothing(client_as, body, field):
    response = client_as(Role.MANAGER).post(
        reverse("api:card-set-list"), body, content_type="application/json"
    )
    assert response.status_code == 400
    errors = response.json()
    assert list(errors) == [field]
    assert errors[field][0]
    assert not CardSet.objects.exists()


def test_same_card_set_twice_is_refused(client_as, card_set):
    response = client_as(Role.MANAGER).post(
        reverse("api:card-set-list"),
        {"variant": "90", "size": 90, "seed": str(SEED)},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert list(response.json()) == ["non_field_errors"]
    assert CardSet.objects.count() == 1


def test_a_new_set_uses_cards_2_beside_a_cards_1_set_of_the_same_seed(client_as, db):
    """Sets recorded as cards/1 stay as they are, served and compared as before (issue 23); the
    same variant, size and seed asked for now is a new cards/2 set."""
    old = services.card_set_request(variant="75", size=90, seed=SEED, algorithm=ALGORITHM_CARDS_1, user=None)
    client = client_as(Role.MANAGER)
    response = client.post(
        reverse("api:card-set-list"),
        {"variant": "75", "size": 90, "seed": str(SEED)},
        content_type="application/json",
    )
    assert response.status_code == 201
    assert response.json()["algorithm"] == "cards/2"
    assert response.json()["fingerprint"] == generate_card_set(Variant.B75, 90, SEED).fingerprint
    assert response.json()["fingerprint"] != old.fingerprint
    compared = client_as(Role.INSPECTOR).post(reverse("api:card-set-compare", args=[old.pk])).json()
    assert compared["matches"] is True
    assert compared["regenerated_fingerprint"] == old.fingerprint
    card = client.get(reverse("api:card-set-card", args=[old.pk, 7])).json()
    assert card["grid"] == generate_card_set(Variant.B75, 90, SEED, algorithm="cards/1").card(7)


def test_card_set_list_is_paginated_and_shows_series_ids(client_as, series, django_assert_max_num_queries):
    client = client_as(Role.INSPECTOR)
    with django_assert_max_num_queries(8):
        response = client.get(reverse("api:card-set-list"))
    data = response.json()
    assert data["count"] == 1
    assert data["results"][0]["id"] == series.card_set_id
    assert data["results"][0]["series"] == [series.pk]


def test_card_set_detail_shows_the_record(client_as, series):
    card_set = series.card_set
    data = client_as(Role.INSPECTOR).get(reverse("api:card-set-detail", args=[card_set.pk])).json()
    assert data["fingerprint"] == card_set.fingerprint
    assert data["seed"] == str(SEED)
    assert data["status"] == "ready"
    assert data["progress"] == 100
    assert data["repeated_lines"] == 0
    assert data["series"] == [series.pk]


def test_unknown_card_set_is_404(client_as, db):
    assert client_as(Role.MANAGER).get(reverse("api:card-set-detail", args=[999])).status_code == 404


# --- cards ------------------------------------------------------------------------------------


def test_one_card_is_its_grid_with_null_blanks(client_as, card_set):
    response = client_as(Role.INSPECTOR).get(reverse("api:card-set-card", args=[card_set.pk, 7]))
    assert response.status_code == 200
    expected = generate_card_set(Variant.B90, 90, SEED, algorithm=ALGORITHM_CARDS).card(7)
    assert response.json() == {"number": 7, "grid": expected}
    assert all(row.count(None) == 4 for row in response.json()["grid"])


@pytest.mark.parametrize("number", [0, 91])
def test_card_outside_the_set_is_404(client_as, card_set, number):
    response = client_as(Role.MANAGER).get(reverse("api:card-set-card", args=[card_set.pk, number]))
    assert response.status_code == 404


def test_cards_of_a_set_not_ready_are_409(client_as, db):
    pending = CardSet.objects.create(variant="90", size=90, seed=Decimal(1), algorithm="cards/1")
    client = client_as(Role.MANAGER)
    assert client.get(reverse("api:card-set-card", args=[pending.pk, 1])).status_code == 409
    assert client.get(reverse("api:card-set-cards", args=[pending.pk])).status_code == 409
    assert client.post(reverse("api:card-set-compare", args=[pending.pk])).status_code == 409


def test_all_cards_stream_as_json_lines(client_as, card_set):
    response = client_as(Role.INSPECTOR).get(reverse("api:card-set-cards", args=[card_set.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    cards = jsonl(response)
    generated = generate_card_set(Variant.B90, 90, SEED, algorithm=ALGORITHM_CARDS)
    assert [c["number"] for c in cards] == list(range(1, 91))
    assert all(c["grid"] == generated.card(c["number"]) for c in cards)


def test_all_cards_answers_accept_jsonl(client_as, card_set):
    response = client_as(Role.MANAGER).get(
        reverse("api:card-set-cards", args=[card_set.pk]), headers={"Accept": "application/x-ndjson"}
    )
    assert response.status_code == 200
    assert len(jsonl(response)) == 90


def test_a_range_of_cards(client_as, card_set):
    url = reverse("api:card-set-cards", args=[card_set.pk])
    cards = jsonl(client_as(Role.MANAGER).get(url, {"from": 5, "to": 7}))
    assert [c["number"] for c in cards] == [5, 6, 7]
    assert cards[0]["grid"] == selectors.card_get(card_set=card_set, number=5)


@pytest.mark.parametrize(
    ("query", "field"), [({"from": 8, "to": 7}, "from"), ({"to": 91}, "to"), ({"from": "x"}, "from")]
)
def test_a_bad_range_is_400(client_as, card_set, query, field):
    response = client_as(Role.MANAGER).get(reverse("api:card-set-cards", args=[card_set.pk]), query)
    assert response.status_code == 400
    assert field in response.json()


# --- compare ----------------------------------------------------------------------------------


def test_compare_matches_an_untouched_set(client_as, card_set):
    response = client_as(Role.INSPECTOR).post(reverse("api:card-set-compare", args=[card_set.pk]))
    assert response.status_code == 200
    assert response.json() == {
        "matches": True,
        "recorded_fingerprint": card_set.fingerprint,
        "stored_fingerprint": card_set.fingerprint,
        "regenerated_fingerprint": card_set.fingerprint,
        "differing_cards": [],
    }


def test_compare_finds_a_tampered_card(client_as, card_set):
    stored = CardSetCells.objects.get(pk=card_set.pk)
    cells = bytearray(bytes(stored.cells))
    width = 27  # 3 rows x 9 columns
    offset = next(i for i in range(12 * width, 13 * width) if cells[i])  # a number on card 13
    cells[offset] = 90 if cells[offset] != 90 else 89
    stored.cells = bytes(cells)
    stored.save()

    data = client_as(Role.INSPECTOR).post(reverse("api:card-set-compare", args=[card_set.pk])).json()
    assert data["matches"] is False
    assert data["differing_cards"] == [13]
    assert data["stored_fingerprint"] != data["recorded_fingerprint"]
    assert data["regenerated_fingerprint"] == data["recorded_fingerprint"]


# --- series -----------------------------------------------------------------------------------


def series_body(in_hall, of_card_set, **changes):
    body = {
        "hall": in_hall.pk,
        "order_number": 12,
        "card_set": of_card_set.pk,
        "price": "25.00",
        "back_colour": "#1e88e5",
        "face_colour": "FDD835",
    }
    return {**body, **changes}


def test_create_series(client_as, hall, card_set):
    response = client_as(Role.MANAGER).post(
        reverse("api:series-list"), series_body(hall, card_set, double=True), content_type="application/json"
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert response["Location"] == reverse("api:series-detail", args=[data["id"]])
    assert data["label"] == "A-12"
    assert data["size_letter"] == "A"
    assert data["size"] == 90
    assert data["price"] == "25.00"
    assert data["currency"] == "CVE"
    assert data["back_colour"] == "#1E88E5"
    assert data["face_colour"] == "#FDD835"
    assert data["double"] is True
    assert data["status"] == "in_stock"
    assert data["hall_name"] == "Salão da Praia"
    assert datetime.fromisoformat(data["created_at"]).utcoffset() is not None
    assert Series.objects.get().price == Decimal("25.00")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"price": 25.5}, "price"),  # a JSON float: money is a decimal string
        ({"price": 25}, "price"),  # a whole JSON number too
        ({"price": -1}, "price"),
        ({"price": True}, "price"),
        ({"price": "0.00"}, "price"),
        ({"price": "1.234"}, "price"),
        ({"price": "abc"}, "price"),
        ({"back_colour": "blue"}, "back_colour"),
        ({"face_colour": "#12345"}, "face_colour"),
        ({"order_number": 0}, "order_number"),
        ({"order_number": 1}, "order_number"),  # the hall already has series 1
        ({"hall": 999}, "hall"),
        ({"card_set": 999}, "card_set"),
    ],
)
def test_bad_series_is_400_and_creates_nothing(client_as, series, changes, field):
    body = series_body(series.hall, series.card_set, **changes)
    response = client_as(Role.MANAGER).post(reverse("api:series-list"), body, content_type="application/json")
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert Series.objects.count() == 1


def test_series_of_a_card_set_not_ready_is_refused(client_as, hall):
    pending = CardSet.objects.create(variant="90", size=90, seed=Decimal(1), algorithm="cards/1")
    response = client_as(Role.MANAGER).post(
        reverse("api:series-list"), series_body(hall, pending), content_type="application/json"
    )
    assert response.status_code == 400
    assert "card_set" in response.json()
    assert not Series.objects.exists()


def test_series_of_a_non_standard_size_needs_an_authorization(client_as, hall):
    odd = services.card_set_request(variant="90", size=100, seed=1, algorithm="cards/1", user=None)
    url = reverse("api:series-list")
    client = client_as(Role.MANAGER)
    response = client.post(url, series_body(hall, odd), content_type="application/json")
    assert response.status_code == 400
    assert list(response.json()) == ["authorization"]
    response = client.post(
        url, series_body(hall, odd, authorization="IGJ 12/2025"), content_type="application/json"
    )
    assert response.status_code == 201
    assert response.json()["label"] == "*-12"


def test_series_list_filters_by_hall(client_as, series, card_set):
    other = Hall.objects.create(name="Salão do Plateau")
    series_make(
        hall=other,
        card_set=card_set,
        order_number=1,
        price="50.00",
        back_colour="#000000",
        face_colour="#FFFFFF",
    )
    client = client_as(Role.INSPECTOR)
    url = reverse("api:series-list")
    assert client.get(url).json()["count"] == 2
    only = client.get(url, {"hall": other.pk}).json()
    assert [s["hall"] for s in only["results"]] == [other.pk]
    assert only["results"][0]["price"] == "50.00"
    assert client.get(url, {"hall": "x"}).status_code == 400


def test_retire_series_once(client_as, series):
    client = client_as(Role.MANAGER)
    url = reverse("api:series-retire", args=[series.pk])
    response = client.post(url)
    assert response.status_code == 200
    assert response.json()["status"] == "retired"
    assert datetime.fromisoformat(response.json()["retired_at"]).utcoffset() is not None
    again = client.post(url)
    assert again.status_code == 400
    assert again.json()["non_field_errors"]
    assert client.post(reverse("api:series-retire", args=[999])).status_code == 404


@pytest.mark.skipif(not HAS_PRINT_SERVICES, reason="cards/printing/services.py not written yet")
def test_series_pdf(client_as, series):
    response = client_as(Role.MANAGER).get(reverse("api:series-pdf", args=[series.pk]), {"from": 1, "to": 6})
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    assert "attachment" in response["Content-Disposition"]


@pytest.mark.skipif(not HAS_PRINT_SERVICES, reason="cards/printing/services.py not written yet")
def test_series_pdf_bad_range_is_400(client_as, series):
    response = client_as(Role.MANAGER).get(reverse("api:series-pdf", args=[series.pk]), {"from": 5, "to": 4})
    assert response.status_code == 400
    assert "from" in response.json()


# --- the public card check --------------------------------------------------------------------


def test_card_check_with_the_right_code_shows_the_card(client, series):
    code = selectors.card_check_code(series=series, number=5)
    response = client.get(
        reverse("api:card-check"), {"serie": series.pk, "cartao": 5, "codigo": code.lower()}
    )
    assert response.status_code == 200
    data = response.json()
    assert data["series"] == series.label == "A-1"
    assert data["number"] == 5
    assert data["price"] == "25.00"
    assert data["currency"] == "CVE"
    assert data["grid"] == selectors.card_get(card_set=series.card_set, number=5)


def test_card_check_refuses_alike_whatever_is_wrong(client, series):
    code = selectors.card_check_code(series=series, number=5)
    url = reverse("api:card-check")
    answers = [
        client.get(url, {"serie": series.pk, "cartao": 5, "codigo": "00000000"}),  # wrong code
        client.get(url, {"serie": series.pk, "cartao": 6, "codigo": code}),  # code of another card
        client.get(url, {"serie": series.pk, "cartao": 91, "codigo": code}),  # beyond the series
        client.get(url, {"serie": series.pk, "cartao": 0, "codigo": code}),
        client.get(url, {"serie": series.pk + 1, "cartao": 5, "codigo": code}),  # no such series
    ]
    assert {a.status_code for a in answers} == {404}
    assert len({a.content for a in answers}) == 1


def test_card_check_with_missing_parameters_is_400(client, series):
    response = client.get(reverse("api:card-check"), {"serie": series.pk, "cartao": "five"})
    assert response.status_code == 400
    assert set(response.json()) == {"cartao", "codigo"}


def test_card_check_is_public_and_throttled(client, make_user, series):
    client.force_login(make_user(Role.CASHIER))  # being logged in changes nothing
    url = reverse("api:card-check")
    code = selectors.card_check_code(series=series, number=1)
    statuses = [
        client.get(url, {"serie": series.pk, "cartao": 1, "codigo": code}).status_code for _ in range(31)
    ]
    assert statuses[:30] == [200] * 30
    assert statuses[30] == 429
