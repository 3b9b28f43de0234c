"""A retired series sells nothing more, whatever the path (issue [A0] 1).

The rule: retiring a series stops its sale at once, even in a game that is selling it; the
cards sold stay valid and the game's R40 announcement still counts them. Every sale path
refuses it: the fast SQL path, the locked ORM path (a hall with a per-player limit, R35), the
API, the cashier's screen and the simulation; on PostgreSQL the ledger refuses it too.
"""

from __future__ import annotations

import random
import threading
import uuid
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, connections, transaction
from django.test import Client
from django.urls import reverse
from django.utils import translation

from bingo.common.roles import Role, user_roles_set
from bingo.games import services, simulation
from bingo.models import Sale
from cards import services as card_services
from cards.models import Series
from tests.sales.test_services import HallSetup
from tests.sales.test_views import SCREEN, Desk, english, key_of, sell_form


@pytest.fixture(autouse=True)
def english_messages():
    with translation.override("en"):
        yield


@pytest.fixture
def praia(db: None) -> Desk:
    return Desk()


def test_retiring_a_series_on_sale_stops_the_fast_path(praia: Desk) -> None:
    praia.sell(praia.selling, 3)

    retired = card_services.series_retire(series=praia.on_sale)

    assert retired.status == Series.Status.RETIRED
    with pytest.raises(ValidationError, match="A-1 was retired: its sale has stopped"):
        praia.sell(praia.selling, 2)
    praia.on_sale.refresh_from_db()
    assert praia.on_sale.last_sold == 3
    assert Sale.objects.count() == 1


def test_retiring_a_series_on_sale_stops_the_locked_path(db: None) -> None:
    capped = Desk(card_limit_per_player=10)  # R35: every sale takes the locked ORM path
    capped.sell(capped.selling, 2, player="Rui")

    card_services.series_retire(series=capped.on_sale)

    with pytest.raises(ValidationError, match="A-1 was retired"):
        capped.sell(capped.selling, 2, player="Rui")
    assert Sale.objects.count() == 1


def test_the_cards_sold_before_retirement_are_announced_when_sales_close(praia: Desk) -> None:
    praia.sell(praia.selling, 4)
    card_services.series_retire(series=praia.on_sale)

    closed = services.game_close_sales(game=praia.selling)

    # R40: the figures of the retired series are kept.
    assert "Venderam-se 4 cartões da série A-1, do n.º 1 ao n.º 4" in closed.closing_announcement
    praia.on_sale.refresh_from_db()
    assert praia.on_sale.status == Series.Status.RETIRED
    assert praia.on_sale.on_sale_in is None


def test_a_retired_series_cannot_be_put_on_sale_again(praia: Desk) -> None:
    services.game_close_sales(game=praia.selling)
    card_services.series_retire(series=praia.on_sale)
    game = services.game_create(session=praia.session, variant="90")

    with pytest.raises(ValidationError, match="A-1 cannot be sold"):
        services.game_open_sales(game=game, series=[praia.on_sale])


def test_a_retired_second_series_is_not_rolled_into(db: None) -> None:
    hall = HallSetup()
    first, second = hall.series(1), hall.series(2)
    game = hall.game(first, second)
    hall.sell(game, 88)
    card_services.series_retire(series=second)

    with pytest.raises(ValidationError):
        hall.sell(game, 5)  # would need 3 cards of the retired series (R38)
    sold = hall.sell(game, 2)

    assert [(s.series_id, s.first_number, s.last_number) for s in sold.sales] == [(first.pk, 89, 90)]
    assert not Sale.objects.filter(series=second).exists()


def test_the_api_refuses_a_sale_of_a_retired_series(praia: Desk) -> None:
    card_services.series_retire(series=praia.on_sale)
    client = Client()
    client.cookies["django_language"] = "en"
    client.force_login(praia.cashier)

    response = client.post(
        reverse("api:game-sales", args=[praia.selling.pk]),
        {"quantity": 1, "cash_desk": praia.desk.pk, "cash_received": "100.00"},
        content_type="application/json",
        headers={"Idempotency-Key": uuid.uuid4().hex},
    )

    assert response.status_code == 400
    assert "A-1 was retired" in response.json()["non_field_errors"][0]
    assert not Sale.objects.exists()


def test_the_cashier_screen_refuses_a_sale_of_a_retired_series(client: Client, praia: Desk) -> None:
    client.force_login(praia.cashier)
    cashier = english(client)
    key = key_of(cashier.get(SCREEN).content.decode())
    card_services.series_retire(series=praia.on_sale)  # retired while the form was on screen

    response = cashier.post(SCREEN, sell_form(praia, key))

    assert response.status_code == 400
    assert "A-1 was retired: its sale has stopped" in response.content.decode()
    assert not Sale.objects.exists()


def test_the_manager_retires_a_series_on_sale_through_the_api(praia: Desk, make_user) -> None:
    manager = make_user(Role.MANAGER)
    praia.hall.staff.create(user=manager, role=Role.MANAGER.value)
    client = Client()
    client.cookies["django_language"] = "en"
    client.force_login(manager)

    response = client.post(reverse("api:series-retire", args=[praia.on_sale.pk]))

    assert response.status_code == 200
    assert response.json()["status"] == "retired"
    with pytest.raises(ValidationError, match="was retired"):
        praia.sell(praia.selling, 1)


@pytest.mark.django_db(transaction=True)  # on PostgreSQL the cashiers sell from threads of their own
def test_the_simulation_sells_nothing_of_a_retired_series(praia: Desk) -> None:
    card_services.series_retire(series=praia.on_sale)

    # The threads speak the site's language (Portuguese), not this test's.
    with pytest.raises(ValidationError, match=r"A-1 (was retired|foi retirada)"):
        simulation.sell_concurrently(praia.selling, [praia.desk], [praia.cashier], 5, random.Random(1))
    assert not Sale.objects.exists()


@pytest.mark.postgres
def test_postgresql_refuses_a_sale_row_of_a_retired_series(praia: Desk) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the ledger's triggers exist on PostgreSQL only")
    sold = praia.sell(praia.selling, 1).sales[0]
    card_services.series_retire(series=praia.on_sale)

    with pytest.raises(IntegrityError, match="retired"), transaction.atomic():
        Sale.objects.create(
            game=praia.selling, series=praia.on_sale, first_number=2, last_number=2, quantity=1,
            unit_price=sold.unit_price, amount=sold.unit_price, cash_desk=praia.desk,
            cashier=praia.cashier, cash_received=sold.unit_price, request_key="raw-insert", part=1,
        )  # fmt: skip


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_no_sale_lands_after_the_retirement_commits_under_concurrent_cashiers() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row-lock races are meaningful on PostgreSQL only (SQLite serializes writers)")
    hall = HallSetup()
    user_roles_set(user=hall.cashier, roles=[Role.CASHIER])
    series = hall.series(1)
    game = hall.game(series)
    stop = threading.Event()
    counted_after: list[int] = []
    retired = threading.Event()

    def cashier() -> None:
        try:
            while not stop.is_set():
                try:
                    hall.sell(game, 1, cash=Decimal("100"))
                except ValidationError:
                    if retired.is_set():
                        counted_after.append(Sale.objects.count())
                        return
        finally:
            connections.close_all()

    threads = [threading.Thread(target=cashier) for _ in range(4)]
    for t in threads:
        t.start()
    while Sale.objects.count() < 10:
        pass
    card_services.series_retire(series=series)
    retired.set()
    sold_at_retirement = Sale.objects.count()
    for t in threads:
        t.join(timeout=30)
    stop.set()
    connections.close_all()

    assert counted_after, "every cashier was refused once the series was retired"
    assert Sale.objects.count() == sold_at_retirement
    series.refresh_from_db()
    assert series.last_sold == sold_at_retirement


def test_the_retire_screen_warns_that_the_sale_in_progress_stops(
    client: Client, praia: Desk, make_user
) -> None:
    manager = make_user(Role.MANAGER)
    praia.hall.staff.create(user=manager, role=Role.MANAGER.value)
    client.force_login(manager)
    url = reverse("cards:series_retire", kwargs={"pk": praia.on_sale.pk})

    page = english(client).get(url).content.decode()
    assert f"This series is on sale in game {praia.selling.number}: its sale stops now" in page

    assert client.post(url).status_code == 302
    with pytest.raises(ValidationError, match="A-1 was retired"):
        praia.sell(praia.selling, 1)
