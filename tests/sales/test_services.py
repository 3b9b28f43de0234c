"""Selling cards in numbered order (R33-R41): continuation, rollover, refusals, idempotency,
hall isolation, the R40 announcement, and concurrent cashiers on PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal
from functools import partial

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from bingo.common.roles import Role
from bingo.games import services
from bingo.models import Game, Sale
from bingo.sales import services as sales_services
from cards.models import Series
from halls.models import CashDesk, Hall, Room, StaffMembership
from tests.cards.factories import HallFactory, card_set_make, series_make
from tests.concurrency import postgresql_only, run_threads
from tests.db_roles import as_table_owner
from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def english():
    """Messages are checked in their source language; the screens test the Portuguese."""
    with translation.override("en"):
        yield


class HallSetup:
    """A hall with a room, a desk, a cashier, and a session whose games sell a K card set."""

    def __init__(self, name: str = "Sala Praia", **hall_fields: object) -> None:
        self.hall = HallFactory(name=name, **hall_fields)
        self.room = Room.objects.create(hall=self.hall, name="Sala 1")
        self.desk = CashDesk.objects.create(hall=self.hall, name="Caixa 1")
        self.cashier = UserFactory(username=f"caixa-{name}")
        StaffMembership.objects.create(hall=self.hall, user=self.cashier, role=Role.CASHIER.value)
        start = timezone.now()
        self.session = services.session_open(
            room=self.room, starts_at=start, scheduled_end=start + timedelta(hours=4), user=None
        )
        self.card_set = card_set_make(variant="90", size=90)

    def series(self, order_number: int, price: str = "100.00") -> Series:
        return series_make(hall=self.hall, card_set=self.card_set, order_number=order_number, price=price)

    def game(self, *series: Series) -> Game:
        game = services.game_create(session=self.session, variant="90")
        return services.game_open_sales(game=game, series=list(series))

    def sell(
        self, game: Game, quantity: int, key: str | None = None, **extra: object
    ) -> sales_services.SaleResult:
        return sales_services.sale_make(
            game=game,
            quantity=quantity,
            cash_desk=extra.pop("desk", self.desk),
            cashier=extra.pop("cashier", self.cashier),
            cash_received=extra.pop("cash", Decimal("1000000")),
            request_key=key or uuid.uuid4().hex,
            **extra,
        )


def ranges(result: sales_services.SaleResult) -> list[tuple[str, int, int]]:
    return [(s.series.label, s.first_number, s.last_number) for s in result.sales]


@pytest.fixture
def praia(db):
    return HallSetup()


def test_sales_go_in_number_order_and_continue_from_yesterday(praia):
    series = praia.series(1)
    first_game = praia.game(series)
    assert ranges(praia.sell(first_game, 3)) == [("A-1", 1, 3)]
    assert ranges(praia.sell(first_game, 2)) == [("A-1", 4, 5)]
    services.game_close_sales(game=first_game)

    # The next game, even the next day, starts after the last card sold (R37).
    next_game = praia.game(series)
    assert next_game.on_sale.get().start_number == 6
    assert ranges(praia.sell(next_game, 4)) == [("A-1", 6, 9)]
    series.refresh_from_db()
    assert series.last_sold == 9


def test_the_sale_rolls_into_the_second_series_up_to_the_first_start(praia):
    first, second = praia.series(1), praia.series(2)
    warm_up = praia.game(first)
    praia.sell(warm_up, 80)  # cards 1-80 gone
    services.game_close_sales(game=warm_up)

    game = praia.game(first, second)  # this game's sale of A-1 begins at card 81 (R37)
    result = praia.sell(game, 15)
    # 81-90 of the first, then the second from its card 1 (R38 b).
    assert ranges(result) == [("A-1", 81, 90), ("A-2", 1, 5)]
    assert result.amount == Decimal("1500.00")
    # The second series may go up to card 80, not 81 (R38 c): 75 more cards, not 76.
    assert ranges(praia.sell(game, 75)) == [("A-2", 6, 80)]
    with pytest.raises(ValidationError) as refused:
        praia.sell(game, 1)
    assert "R38" in str(refused.value)
    assert Sale.objects.filter(game=game).count() == 3  # the refusal recorded nothing


def test_a_second_series_of_another_price_is_refused(praia):
    with pytest.raises(ValidationError, match="R38 a"):
        praia.game(praia.series(1, price="100.00"), praia.series(2, price="150.00"))


def test_the_r40_announcement_is_exact(praia):
    first, second = praia.series(7), praia.series(8)
    warm_up = praia.game(first)
    praia.sell(warm_up, 50)
    services.game_close_sales(game=warm_up)
    game = praia.game(first, second)
    praia.sell(game, 45)  # 51-90 of A-7, 1-5 of A-8
    closed = services.game_close_sales(game=game)
    assert closed.state == Game.State.SALES_CLOSED
    # 45 cards at 100: 4,500 of sales; 80% is 3,600: line 20% = 900, bingo 60% = 2,700 (R7).
    assert closed.closing_announcement.splitlines() == [
        "Venderam-se 45 cartões da série A-7, do n.º 51 ao n.º 90, e da série A-8, do n.º 1 ao n.º 5",
        "Line prize: 900 CVE",
        "Bingo prize: 2 700 CVE",
    ]


@pytest.mark.parametrize("quantity", [0, -3])
def test_zero_or_negative_quantities_are_refused(praia, quantity):
    game = praia.game(praia.series(1))
    with pytest.raises(ValidationError, match="at least one card"):
        praia.sell(game, quantity)
    assert not Sale.objects.exists()


def test_a_game_not_selling_sells_nothing(praia):
    game = services.game_create(session=praia.session, variant="90")
    with pytest.raises(ValidationError, match="not selling"):
        praia.sell(game, 1)
    opened = services.game_open_sales(game=game, series=[praia.series(1)])
    services.game_close_sales(game=opened)
    with pytest.raises(ValidationError, match="not selling"):
        praia.sell(opened, 1)


def test_cash_only_and_no_credit(praia):
    game = praia.game(praia.series(1))
    with pytest.raises(ValidationError, match="R39"):
        praia.sell(game, 3, cash=Decimal("299.99"))
    result = praia.sell(game, 3, cash=Decimal("500"))
    assert result.change == Decimal("200.00")


def test_a_retried_request_has_exactly_one_effect(praia):
    game = praia.game(praia.series(1))
    first = praia.sell(game, 4, key="desk1-0001")
    again = praia.sell(game, 4, key="desk1-0001")
    assert ranges(again) == ranges(first) == [("A-1", 1, 4)]
    assert Sale.objects.count() == 1
    assert praia.sell(game, 1).sales[0].first_number == 5
    services.game_close_sales(game=game)
    late = praia.sell(game, 4, key="desk1-0001")  # the answer got lost; the game closed since
    assert ranges(late) == [("A-1", 1, 4)]
    assert Sale.objects.count() == 2


def test_a_cashier_of_one_hall_can_do_nothing_in_another(praia):
    other = HallSetup(name="Sala Mindelo")
    game = praia.game(praia.series(1))
    with pytest.raises(ValidationError, match="Only a cashier of this hall"):
        praia.sell(game, 1, cashier=other.cashier)
    with pytest.raises(ValidationError, match="another hall"):
        praia.sell(game, 1, desk=other.desk)
    assert not Sale.objects.exists()


def test_a_cashier_removed_while_the_game_sells_sells_nothing_more(praia):  # R34
    game = praia.game(praia.series(1))
    praia.sell(game, 2)  # the sale context is now cached in this process: the fast path applies
    StaffMembership.objects.filter(user=praia.cashier, hall=praia.hall).delete()
    with pytest.raises(ValidationError, match="Only a cashier of this hall"):
        praia.sell(game, 1)
    assert Sale.objects.filter(game=game).count() == 1
    assert Series.objects.get(pk=game.on_sale.get().series_id).last_sold == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)  # as a request sells: in autocommit, no savepoint
def test_a_desk_sale_is_one_statement_once_the_game_is_known():
    """The common desk sale on PostgreSQL: the numbers, the ledger row and the cashier's check in
    one statement, one round trip (issue 23; its latency is bench/sales.py's)."""
    postgresql_only("the one-statement sale is PostgreSQL's (SQLite takes the numbers, then inserts)")
    hall = HallSetup(name="Sala Rápida")
    game = hall.game(hall.series(1))
    hall.sell(game, 1)  # the process now knows the game (its first series, price, hall)
    with CaptureQueriesContext(connection) as captured:
        result = hall.sell(game, 3)
    assert ranges(result) == [("A-1", 2, 4)]
    assert len(captured) == 1, [q["sql"] for q in captured.captured_queries]


def test_the_per_player_limit(db):
    hall = HallSetup(name="Sala Limite", card_limit_per_player=5)
    game = hall.game(hall.series(1))
    with pytest.raises(ValidationError, match="R35"):
        hall.sell(game, 1)  # who is buying must be known
    hall.sell(game, 4, player="Maria")
    with pytest.raises(ValidationError, match="at most 5 cards"):
        hall.sell(game, 2, player="Maria")
    assert hall.sell(game, 1, player="Maria").cards == 1
    assert hall.sell(game, 5, player="João").cards == 5


def test_a_limit_set_while_the_game_sells_applies_to_the_next_sale(praia):  # R35
    game = praia.game(praia.series(1))
    praia.sell(game, 2)  # the sale context (no limit) is now cached in this process
    Hall.objects.filter(pk=praia.hall.pk).update(card_limit_per_player=3)
    with pytest.raises(ValidationError, match="R35"):
        praia.sell(game, 1)  # who is buying must now be known
    with pytest.raises(ValidationError, match="at most 3 cards"):
        praia.sell(game, 4, player="Maria")
    assert praia.sell(game, 3, player="Maria").cards == 3
    assert Sale.objects.filter(game=game).count() == 2


def test_illegal_state_changes_are_refused(praia):
    game = services.game_create(session=praia.session, variant="90")
    with pytest.raises(ValidationError, match="planned"):
        services.game_close_sales(game=game)


def test_prize_plans_follow_r7(db):
    hall = HallSetup(name="Sala Plano")
    game = services.game_create(session=hall.session, variant="90", prize_plan={"line": "25", "bingo": "55"})
    assert game.prize_plan == {"line": "25", "bingo": "55"}
    with pytest.raises(ValidationError, match="R7"):
        services.game_create(session=hall.session, variant="90", prize_plan={"line": "30", "bingo": "50"})
    Hall.objects.filter(pk=hall.hall.pk).update(jackpot_active=True)
    hall.session.refresh_from_db()
    with pytest.raises(ValidationError, match="R7"):  # 55% x 0.97 < 55% once the jackpot takes 3%
        services.game_create(session=hall.session, variant="90", prize_plan={"line": "25", "bingo": "55"})


# --- the ledger and its invariants ------------------------------------------------------------


@pytest.mark.postgres
def test_postgres_refuses_changing_a_sale_or_selling_a_card_twice(praia):
    if connection.vendor != "postgresql":
        pytest.skip("the insert-only trigger and the exclusion constraint exist on PostgreSQL only")
    game = praia.game(praia.series(1))
    sale = praia.sell(game, 3).sales[0]
    # As the tables' owner: the app's role is refused by its privileges before any trigger is
    # asked (tests/common/test_db_roles.py).
    with as_table_owner():
        with pytest.raises(IntegrityError, match="R41"), transaction.atomic():
            Sale.objects.filter(pk=sale.pk).update(player="x")
        with pytest.raises(IntegrityError, match="R41"), transaction.atomic():
            Sale.objects.filter(pk=sale.pk).delete()
    with pytest.raises(IntegrityError), transaction.atomic():
        Sale.objects.create(
            game=game, series=sale.series, first_number=3, last_number=4, quantity=2,
            unit_price=sale.unit_price, amount=sale.unit_price * 2, cash_desk=praia.desk,
            cashier=praia.cashier, cash_received=Decimal("200"), request_key="forged",
        )  # fmt: skip


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_cashiers_never_skip_or_repeat_a_number():
    """Eight cashiers sell at once (real threads, real row locks): the numbers sold are exactly
    41..90 of the first series and then 1..M of the second (M <= 40), each once."""
    postgresql_only()
    hall = HallSetup(name="Sala Corrida")
    first, second = hall.series(1), hall.series(2)
    warm_up = hall.game(first)
    hall.sell(warm_up, 40)
    services.game_close_sales(game=warm_up)
    game = hall.game(first, second)  # A-1 from card 41; A-2 may then sell cards 1-40 (R38 c)
    cashiers = []
    for i in range(8):
        user = UserFactory(username=f"caixa-{i}")
        StaffMembership.objects.create(hall=hall.hall, user=user, role=Role.CASHIER.value)
        cashiers.append((user, CashDesk.objects.create(hall=hall.hall, name=f"Caixa {i + 10}")))
    refused = []

    def cashier(index: int) -> None:
        user, desk = cashiers[index]
        for n in range(12):
            try:
                sales_services.sale_make(
                    game=game, quantity=1 + (index + n) % 3, cash_desk=desk, cashier=user,
                    cash_received=Decimal("1000"), request_key=f"race-{index}-{n}",
                )  # fmt: skip
            except ValidationError:
                refused.append(index)  # the game ran out of cards: fine, nothing sold

    run_threads([partial(cashier, i) for i in range(8)])

    sold: dict[str, list[int]] = {"A-1": [], "A-2": []}
    for sale in Sale.objects.filter(game=game).select_related("series"):
        sold[sale.series.label].extend(range(sale.first_number, sale.last_number + 1))
    total = len(sold["A-1"]) + len(sold["A-2"])
    assert total == sum(s.quantity for s in Sale.objects.filter(game=game))
    assert sorted(sold["A-1"]) == list(range(41, 91))  # the rest of the first series, each once
    assert sorted(sold["A-2"]) == list(range(1, len(sold["A-2"]) + 1))  # then the second from 1
    assert 30 <= len(sold["A-2"]) <= 40  # up to, never past, card 40 (R38 c)
    assert refused  # demand exceeded the cards this game may sell


@pytest.mark.parametrize(
    ("price", "quantity", "amount"), [("25.01", 5, "125.05"), ("0.10", 3, "0.30"), ("33.33", 3, "99.99")]
)
def test_an_amount_of_cents_is_the_cards_times_their_price_on_any_database(praia, price, quantity, amount):
    """The database's check that a sale's amount is its cards times their price holds for prices
    a float would round (SQLite keeps decimals as floats: 5 * 25.01 is 125.05000000000001 there)."""
    game = praia.game(praia.series(1, price=price))
    result = praia.sell(game, quantity)
    assert result.amount == Decimal(amount)
    assert Sale.objects.get().amount == Decimal(amount)
