"""The card-stock screens: who may open what, the forms, printing, and the public card check."""

from __future__ import annotations

import logging
import re
from decimal import Decimal
from typing import Any

import pytest
from django.core.cache.backends.redis import RedisCache
from django.test import Client, override_settings
from django.urls import reverse

from bingo.common.roles import Role
from bingo.common.throttling import SlidingWindowThrottle
from bingo.engine import ALGORITHM_CARDS, ALGORITHM_STRIPS
from cards import services
from cards.models import CardSet, CardSetCells, PrintJob, Series
from cards.selectors import card_check_code, card_get
from halls.models import Hall
from tests.cards.factories import series_make

pytestmark = pytest.mark.django_db

STAFF_REFUSED = (Role.CASHIER, Role.CALLER, Role.PLAYER)


@pytest.fixture
def card_set() -> CardSet:
    return services.card_set_request(variant="90", size=90, seed=7, algorithm=ALGORITHM_CARDS, user=None)


@pytest.fixture
def series(hall: Hall, card_set: CardSet) -> Series:
    return series_make(hall=hall, card_set=card_set, order_number=1, price=Decimal("50.00"))


def _series_form(hall: Hall, card_set: CardSet | None = None, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "hall": hall.pk,
        "order_number": 1,
        "source": "existing" if card_set else "new",
        "card_set": card_set.pk if card_set else "",
        "new_variant": "90",
        "new_size_letter": "A",
        "price": "50.00",
        "back_colour": "#1e88e5",
        "face_colour": "#fdd835",
        "authorization": "",
    }
    data.update(overrides)
    return data


# --- who may open what -----------------------------------------------------------------------

# (url name, needs "card_set" / "series" / "job" / None, method, the inspector may use it)
VIEWS = [
    ("cards:card_set_list", None, "get", True),
    ("cards:card_set_create", None, "get", False),
    ("cards:card_set_create", None, "post", False),
    ("cards:card_set_detail", "card_set", "get", True),
    ("cards:card_set_status", "card_set", "get", True),
    ("cards:card_set_compare", "card_set", "post", True),
    ("cards:series_list", None, "get", False),
    ("cards:series_create", None, "get", False),
    ("cards:series_create", None, "post", False),
    ("cards:series_detail", "series", "get", False),
    ("cards:series_print", "series", "post", False),
    ("cards:series_retire", "series", "get", False),
    ("cards:series_retire", "series", "post", False),
    ("cards:print_job_status", "job", "get", False),
    ("cards:print_job_download", "job", "get", False),
]


@pytest.fixture
def objects(series: Series) -> dict[str, int]:
    job = PrintJob.objects.create(series=series, first=1, last=2)
    return {"card_set": series.card_set_id, "series": series.pk, "job": job.pk}


def _call(client: Client, name: str, needs: str | None, method: str, objects: dict[str, int]) -> Any:
    url = reverse(name, kwargs={"pk": objects[needs]} if needs else None)
    return getattr(client, method)(url), url


@pytest.mark.parametrize(("name", "needs", "method", "inspector"), VIEWS)
def test_anonymous_users_are_sent_to_the_login_page(
    client: Client, objects: dict[str, int], name: str, needs: str | None, method: str, inspector: bool
) -> None:
    response, url = _call(client, name, needs, method, objects)

    assert response.status_code == 302
    assert response["Location"] == f"/entrar/?next={url}"


@pytest.mark.parametrize("role", STAFF_REFUSED)
@pytest.mark.parametrize(("name", "needs", "method", "inspector"), VIEWS)
def test_cashiers_callers_and_players_are_refused(
    client_as: Any,
    objects: dict[str, int],
    role: Role,
    name: str,
    needs: str | None,
    method: str,
    inspector: bool,
) -> None:
    response, _url = _call(client_as(role), name, needs, method, objects)

    assert response.status_code == 403


@pytest.mark.parametrize(("name", "needs", "method", "inspector"), VIEWS)
def test_the_inspector_reads_card_sets_and_compares_but_nothing_else(
    client_as: Any, objects: dict[str, int], name: str, needs: str | None, method: str, inspector: bool
) -> None:
    response, _url = _call(client_as(Role.INSPECTOR), name, needs, method, objects)

    if inspector:
        assert response.status_code in (200, 302)
    else:
        assert response.status_code == 403


@pytest.mark.parametrize(("name", "needs", "method", "inspector"), VIEWS)
def test_the_manager_reaches_every_page(
    client_as: Any, objects: dict[str, int], name: str, needs: str | None, method: str, inspector: bool
) -> None:
    response, _url = _call(client_as(Role.MANAGER), name, needs, method, objects)

    # An empty POST is refused with the form's errors (200/400) or done (302); never 403.
    assert response.status_code in (200, 302, 400, 404)
    if name == "cards:print_job_download":
        assert response.status_code == 404  # the job is not done: there is no PDF yet
    elif method == "get":
        assert response.status_code == 200


def test_the_inspector_sees_no_create_button_and_no_series_links(client_as: Any, series: Series) -> None:
    client = client_as(Role.INSPECTOR)

    listing = client.get(reverse("cards:card_set_list")).content.decode()
    detail = client.get(reverse("cards:card_set_detail", kwargs={"pk": series.card_set_id})).content.decode()

    assert reverse("cards:card_set_create") not in listing
    assert reverse("cards:series_detail", kwargs={"pk": series.pk}) not in detail
    assert series.label in detail


def test_the_manager_dashboard_links_to_the_series(client_as: Any) -> None:
    body = client_as(Role.MANAGER).get("/gerente/").content.decode()

    assert f'href="{reverse("cards:series_list")}"' in body


# --- card sets ---------------------------------------------------------------------------------


def test_a_manager_generates_a_k_card_set_through_the_form(client_as: Any, make_user: Any) -> None:
    client = client_as(Role.MANAGER)

    response = client.post(
        reverse("cards:card_set_create"), {"variant": "90", "size_letter": "K", "seed": "12345"}
    )

    card_set = CardSet.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("cards:card_set_detail", kwargs={"pk": card_set.pk})
    assert (card_set.variant, card_set.size, card_set.seed_int, card_set.algorithm) == (
        "90",
        1680,
        12345,
        ALGORITHM_CARDS,
    )
    assert card_set.status == CardSet.Status.READY
    assert card_set.created_by is not None
    page = client.get(response["Location"]).content.decode()
    assert card_set.fingerprint in page
    assert "12345" in page


def test_a_blank_seed_is_drawn_and_strips_make_a_strips_set(client_as: Any) -> None:
    client = client_as(Role.MANAGER)

    client.post(reverse("cards:card_set_create"), {"variant": "90", "size_letter": "A", "strips": "on"})

    card_set = CardSet.objects.get()
    assert card_set.algorithm == ALGORITHM_STRIPS
    assert card_set.seed_int > 0


def test_a_custom_size_is_generated_with_its_number(client_as: Any) -> None:
    client = client_as(Role.MANAGER)

    client.post(
        reverse("cards:card_set_create"), {"variant": "75", "size_letter": "custom", "custom_size": "100"}
    )

    assert CardSet.objects.get().size == 100


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"variant": "75", "size_letter": "A", "strips": "on"},
            "strips",
            "Strips of six exist only for 90-ball",
        ),
        ({"variant": "90", "size_letter": "A", "seed": "-4"}, "seed", "The seed must be a whole number"),
        ({"variant": "90", "size_letter": "A", "seed": "abc"}, "seed", "The seed must be a whole number"),
        ({"variant": "90", "size_letter": "custom"}, "custom_size", "Give the number of cards"),
        ({"variant": "99", "size_letter": "A"}, "variant", "Select a valid choice"),
    ],
)
def test_bad_card_set_input_shows_the_error_and_creates_nothing(
    client_as: Any, data: dict[str, str], field: str, message: str
) -> None:
    client = client_as(Role.MANAGER)
    client.cookies["django_language"] = "en"

    response = client.post(reverse("cards:card_set_create"), data)

    assert response.status_code == 200
    assert response.context["form"].errors[field]
    assert message in response.context["form"].errors[field][0]
    assert message in response.content.decode()
    assert not CardSet.objects.exists()


def test_a_card_set_the_service_refuses_shows_its_reason(client_as: Any, card_set: CardSet) -> None:
    client = client_as(Role.MANAGER)

    # The same inputs as an existing set: the service refuses, the form shows why.
    response = client.post(
        reverse("cards:card_set_create"), {"variant": "90", "size_letter": "A", "seed": "7"}
    )

    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert CardSet.objects.count() == 1


def test_a_pending_card_set_page_polls_its_status(client_as: Any) -> None:
    pending = CardSet.objects.create(
        variant="90", size=30_000, seed=1, algorithm=ALGORITHM_CARDS, progress=10
    )
    client = client_as(Role.MANAGER)

    page = client.get(reverse("cards:card_set_detail", kwargs={"pk": pending.pk})).content.decode()
    status = client.get(reverse("cards:card_set_status", kwargs={"pk": pending.pk})).json()

    assert f'data-poll-url="{reverse("cards:card_set_status", kwargs={"pk": pending.pk})}"' in page
    assert '<progress max="100" value="10">' in page
    assert status["status"] == "pending"
    assert status["progress"] == 10
    assert status["finished"] is False


def test_regenerate_and_compare_says_ok_for_an_intact_set(client_as: Any, card_set: CardSet) -> None:
    client = client_as(Role.INSPECTOR)

    response = client.post(reverse("cards:card_set_compare", kwargs={"pk": card_set.pk}))
    page = client.get(response["Location"]).content.decode()

    assert response.status_code == 302
    assert page.count(card_set.fingerprint) >= 4  # recorded, stored and regenerated, and the facts
    assert "verdict-ok" in page
    assert "verdict-bad" not in page


def test_regenerate_and_compare_names_the_cards_that_were_altered(client_as: Any, card_set: CardSet) -> None:
    stored = CardSetCells.objects.get(pk=card_set.pk)
    cells = bytearray(stored.cells)
    width = 27
    cells[2 * width : 3 * width], cells[3 * width : 4 * width] = (
        cells[3 * width : 4 * width],
        cells[2 * width : 3 * width],
    )
    stored.cells = bytes(cells)
    stored.save()
    client = client_as(Role.MANAGER)

    client.post(reverse("cards:card_set_compare", kwargs={"pk": card_set.pk}))
    response = client.get(reverse("cards:card_set_detail", kwargs={"pk": card_set.pk}))
    page = response.content.decode()

    assert "verdict-bad" in page
    assert re.search(r'<dd class="differing">3, 4</dd>', page)
    # The result is shown once (POST-redirect-GET), not on every later visit.
    assert (
        "verdict-bad"
        not in client.get(reverse("cards:card_set_detail", kwargs={"pk": card_set.pk})).content.decode()
    )


# --- series ------------------------------------------------------------------------------------


def test_the_series_form_suggests_the_next_free_order_number(client_as: Any, series: Series) -> None:
    response = client_as(Role.MANAGER).get(reverse("cards:series_create"))

    assert response.context["form"].initial["order_number"] == 2


def test_a_manager_creates_a_series_from_a_ready_card_set(
    client_as: Any, hall: Hall, card_set: CardSet
) -> None:
    client = client_as(Role.MANAGER)

    response = client.post(
        reverse("cards:series_create"),
        _series_form(hall, card_set, order_number=3, double="on", price="75.50"),
    )

    series = Series.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("cards:series_detail", kwargs={"pk": series.pk})
    assert (series.order_number, series.size_letter, series.size, series.price) == (
        3,
        "A",
        90,
        Decimal("75.50"),
    )
    assert (series.back_colour, series.face_colour, series.double) == ("#1E88E5", "#FDD835", True)
    assert series.card_set == card_set
    listing = client.get(reverse("cards:series_list")).content.decode()
    assert "A-3" in listing
    assert 'data-css-vars="--swatch: #1E88E5"' in listing  # coloured by static/js/colours.js


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"order_number": 1}, "order_number"),  # the fixture's series already holds number 1
        ({"price": "0"}, "price"),
        ({"price": "-5"}, "price"),
        ({"back_colour": "blue"}, "back_colour"),
    ],
)
def test_bad_series_input_shows_the_error_and_creates_nothing(
    client_as: Any, hall: Hall, card_set: CardSet, series: Series, overrides: dict[str, str], field: str
) -> None:
    data = _series_form(hall, card_set, order_number=2)
    data.update(overrides)

    response = client_as(Role.MANAGER).post(reverse("cards:series_create"), data)

    assert response.status_code == 200
    assert response.context["form"].errors[field]
    assert 'class="field-error"' in response.content.decode()
    assert Series.objects.count() == 1


def test_a_non_standard_size_needs_an_authorization(client_as: Any, hall: Hall) -> None:
    odd = services.card_set_request(variant="75", size=100, seed=3, algorithm=ALGORITHM_CARDS, user=None)
    client = client_as(Role.MANAGER)

    refused = client.post(reverse("cards:series_create"), _series_form(hall, odd))
    accepted = client.post(
        reverse("cards:series_create"), _series_form(hall, odd, authorization="IGJ 12/2025")
    )

    assert "R19" in refused.context["form"].errors["authorization"][0]
    assert accepted.status_code == 302
    series = Series.objects.get()
    assert (series.size_letter, series.size, series.authorization) == ("", 100, "IGJ 12/2025")


def test_a_series_with_a_new_card_set_creates_both(client_as: Any, hall: Hall) -> None:
    client = client_as(Role.MANAGER)

    response = client.post(
        reverse("cards:series_create"), _series_form(hall, new_variant="75", new_size_letter="B")
    )

    series = Series.objects.get()
    assert response.status_code == 302
    assert (series.card_set.variant, series.card_set.size, series.card_set.status) == ("75", 120, "ready")
    assert series.size_letter == "B"


@pytest.mark.parametrize("overrides", [{"order_number": 1}, {"price": "0"}])
def test_a_series_with_a_new_card_set_creates_neither_on_bad_input(
    client_as: Any, hall: Hall, series: Series, overrides: dict[str, Any]
) -> None:
    data = _series_form(hall, order_number=2)
    data.update(overrides)

    response = client_as(Role.MANAGER).post(reverse("cards:series_create"), data)

    assert response.status_code == 200
    assert response.context["form"].errors
    assert Series.objects.count() == 1
    assert CardSet.objects.count() == 1  # only the fixture's: the new set was rolled back


def test_existing_source_needs_a_card_set(client_as: Any, hall: Hall) -> None:
    data = _series_form(hall, source="existing")
    data["source"] = "existing"

    response = client_as(Role.MANAGER).post(reverse("cards:series_create"), data)

    assert response.context["form"].errors["card_set"]
    assert not Series.objects.exists()


def test_the_series_page_shows_card_1_and_its_facts(client_as: Any, series: Series) -> None:
    page = (
        client_as(Role.MANAGER).get(reverse("cards:series_detail", kwargs={"pk": series.pk})).content.decode()
    )

    grid = card_get(card_set=series.card_set, number=1)
    numbers = [n for row in grid for n in row if n]
    assert len(numbers) == 15
    assert all(f"<td>{n}</td>" in page for n in numbers)
    assert page.count('<td class="blank"></td>') == 12
    assert card_check_code(series=series, number=1) in page
    assert "#1E88E5" in page
    assert "#FDD835" in page


def test_a_75_ball_card_has_bingo_heads_and_a_free_centre(client_as: Any, hall: Hall) -> None:
    card_set = services.card_set_request(variant="75", size=90, seed=5, algorithm=ALGORITHM_CARDS, user=None)
    series = series_make(
        hall=hall, card_set=card_set, order_number=9, price="10", back_colour="#000000", face_colour="#FFFFFF"
    )

    page = (
        client_as(Role.MANAGER).get(reverse("cards:series_detail", kwargs={"pk": series.pk})).content.decode()
    )

    assert "".join(re.findall(r'<th scope="col">([A-Z])</th>', page)) == "BINGO"
    assert page.count('class="free"') == 1


def test_retiring_asks_for_confirmation_then_retires_once(client_as: Any, series: Series) -> None:
    client = client_as(Role.MANAGER)
    url = reverse("cards:series_retire", kwargs={"pk": series.pk})

    confirm = client.get(url)
    series.refresh_from_db()
    assert confirm.status_code == 200
    assert series.status == Series.Status.IN_STOCK  # a GET changes nothing

    done = client.post(url)
    series.refresh_from_db()
    assert done.status_code == 302
    assert series.status == Series.Status.RETIRED
    assert series.retired_at is not None

    again = client.post(url, follow=True)
    assert again.status_code == 200
    assert 'role="alert"' in again.content.decode()


# --- printing ----------------------------------------------------------------------------------


def test_printing_a_small_range_downloads_a_pdf(client_as: Any, series: Series) -> None:
    response = client_as(Role.MANAGER).post(
        reverse("cards:series_print", kwargs={"pk": series.pk}), {"first": 1, "last": 6}
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("attachment;")
    assert response.content.startswith(b"%PDF")
    assert not PrintJob.objects.exists()


def test_printing_a_large_range_makes_a_print_job(
    client_as: Any, hall: Hall, settings: Any, tmp_path: Any
) -> None:
    settings.MEDIA_ROOT = tmp_path
    card_set = services.card_set_request(variant="90", size=840, seed=9, algorithm=ALGORITHM_CARDS, user=None)
    series = series_make(
        hall=hall, card_set=card_set, order_number=4, price="20", back_colour="#336699", face_colour="#FFCC00"
    )
    client = client_as(Role.MANAGER)

    response = client.post(reverse("cards:series_print", kwargs={"pk": series.pk}), {"first": 1, "last": 840})

    job = PrintJob.objects.get()
    assert response.status_code == 302
    assert response["Location"].endswith(f"#job-{job.pk}")
    assert (job.series, job.first, job.last) == (series, 1, 840)
    status = client.get(reverse("cards:print_job_status", kwargs={"pk": job.pk})).json()
    assert status["status"] == job.status == PrintJob.Status.DONE  # 840 cards are printed at once
    page = client.get(response["Location"]).content.decode()
    assert reverse("cards:print_job_download", kwargs={"pk": job.pk}) in page
    download = client.get(reverse("cards:print_job_download", kwargs={"pk": job.pk}))
    assert download["Content-Type"] == "application/pdf"
    assert download.content.startswith(b"%PDF")


@pytest.mark.parametrize(("first", "last"), [(0, 5), (5, 4), (1, 91), ("", 3)])
def test_a_bad_print_range_is_refused(client_as: Any, series: Series, first: Any, last: Any) -> None:
    response = client_as(Role.MANAGER).post(
        reverse("cards:series_print", kwargs={"pk": series.pk}), {"first": first, "last": last}
    )

    assert response.status_code == 400
    assert response.context["print_form"].errors
    assert not PrintJob.objects.exists()


# --- the public card check ---------------------------------------------------------------------


def test_the_card_check_shows_the_card_for_its_code(client: Client, series: Series) -> None:
    code = card_check_code(series=series, number=5)

    response = client.get(reverse("cards:card_check"), {"serie": series.pk, "cartao": 5, "codigo": code})

    page = response.content.decode()
    numbers = [n for row in card_get(card_set=series.card_set, number=5) for n in row if n]
    assert response.status_code == 200
    assert 'class="bingo-grid"' in page
    assert all(f"<td>{n}</td>" in page for n in numbers)
    assert "Cartão ou código inválido" not in page


def test_the_card_check_accepts_a_code_typed_in_lower_case(client: Client, series: Series) -> None:
    code = card_check_code(series=series, number=5).lower()

    response = client.get(reverse("cards:card_check"), {"serie": series.pk, "cartao": 5, "codigo": code})

    assert 'class="bingo-grid"' in response.content.decode()


def test_the_card_check_says_only_invalid_for_any_wrong_input(client: Client, series: Series) -> None:
    code_of_5 = card_check_code(series=series, number=5)
    url = reverse("cards:card_check")
    wrong = [
        {"serie": series.pk, "cartao": 5, "codigo": "ZZZZZZZZ"},  # wrong code
        {"serie": series.pk, "cartao": 6, "codigo": code_of_5},  # wrong number
        {"serie": series.pk, "cartao": 5000, "codigo": code_of_5},  # beyond the series
        {"serie": series.pk + 100, "cartao": 5, "codigo": code_of_5},  # no such series
        {"serie": "x", "cartao": 5, "codigo": code_of_5},  # not even a number
    ]

    bodies = []
    for params in wrong:
        response = client.get(url, params)
        body = response.content.decode()
        assert response.status_code == 200
        assert "Cartão ou código inválido" in body
        assert 'class="bingo-grid"' not in body
        # Nothing but the typed values differs between the answers.
        main = body[body.index("<main") : body.index("</main>")]
        bodies.append(re.sub(r'value="[^"]*"', 'value=""', main))
    assert len(set(bodies)) == 1


def test_the_card_check_page_without_input_shows_just_the_form(client: Client) -> None:
    response = client.get(reverse("cards:card_check"))

    page = response.content.decode()
    assert response.status_code == 200
    assert "Cartão ou código inválido" not in page
    assert 'name="codigo"' in page


# --- Portuguese first (R54) --------------------------------------------------------------------


def test_the_screens_speak_portuguese(client_as: Any, series: Series) -> None:
    client = client_as(Role.MANAGER)

    card_sets = client.get(reverse("cards:card_set_list")).content.decode()
    series_page = client.get(reverse("cards:series_detail", kwargs={"pk": series.pk})).content.decode()
    form = client.get(reverse("cards:series_create")).content.decode()
    check = client.get(reverse("cards:card_check")).content.decode()

    assert "Conjuntos de cartões" in card_sets
    assert "Impressão" in series_page or "Imprimir" in series_page
    assert "Cartão 1" in series_page
    assert "Nova série" in form
    assert "Preço do cartão" in form
    assert "Verificar um cartão" in check


def test_the_card_check_page_is_limited_per_address_like_the_api(client: Client, series: Series) -> None:
    """Issue [A0] 3: /verificar/ allows 30 checks a minute per address, as /api/card-check/."""
    url = reverse("cards:card_check")
    guesses = [{"serie": series.pk, "cartao": 5, "codigo": f"ZZZZ{n:04d}"} for n in range(31)]

    statuses = [client.get(url, params).status_code for params in guesses]

    assert statuses == [200] * 30 + [429]
    right = {"serie": series.pk, "cartao": 5, "codigo": card_check_code(series=series, number=5)}
    refused = client.get(url, right)
    body = refused.content.decode()
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert "Demasiadas verificações a partir deste endereço" in body
    assert 'class="bingo-grid"' not in body  # past the limit even the right code shows nothing
    # Another address still checks.
    assert client.get(url, right, REMOTE_ADDR="198.51.100.4").status_code == 200


def test_the_page_and_the_api_share_one_count(client: Client, series: Series) -> None:
    """Guessing through both doors is no faster than through one."""
    params = {"serie": series.pk, "cartao": 5, "codigo": "ZZZZZZZZ"}
    for _ in range(20):
        client.get(reverse("api:card-check"), params)
    for _ in range(10):
        assert client.get(reverse("cards:card_check"), params).status_code == 200

    assert client.get(reverse("cards:card_check"), params).status_code == 429
    assert client.get(reverse("api:card-check"), params).status_code == 429


def test_opening_the_empty_check_page_counts_nothing(client: Client, series: Series) -> None:
    for _ in range(40):
        assert client.get(reverse("cards:card_check")).status_code == 200


def test_without_redis_the_card_check_answers_and_still_limits(
    client: Client, series: Series, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 20 point 3: with Redis unreachable the check is no 500. Each process counts alone
    (the same 30 a minute, page and API together) and says once that it does."""
    unreachable = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    monkeypatch.setattr(SlidingWindowThrottle, "cache", RedisCache(unreachable, {}))
    caches = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": unreachable}}
    right = {"serie": series.pk, "cartao": 5, "codigo": card_check_code(series=series, number=5)}

    with override_settings(CACHES=caches), caplog.at_level(logging.WARNING, logger="bingo.common.throttling"):
        page = [client.get(reverse("cards:card_check"), right).status_code for _ in range(15)]
        api = [client.get(reverse("api:card-check"), right).status_code for _ in range(16)]
        shown = client.get(reverse("cards:card_check"), right)

    assert page == [200] * 15
    assert api == [200] * 15 + [429]
    assert shown.status_code == 429
    warnings = [r for r in caplog.records if r.name == "bingo.common.throttling"]
    assert [r.levelno for r in warnings] == [logging.WARNING]
