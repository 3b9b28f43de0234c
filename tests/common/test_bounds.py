"""The bounds of the numbers people set (bingo.common.bounds; issue 20, 3) hold in every layer
below the API (tests/test_api_hostile_input.py walks the API): the screens' forms refuse them
with the field's error, the services with a ValidationError naming the field, and the database
with its CheckConstraint when a row gets there by another way. Nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from bingo.common import bounds
from bingo.common.roles import Role
from bingo.games import services as game_services
from bingo.jackpot import services as jackpot_services
from bingo.models import Game, OnlineRoom, PlayLimit, Sale, Session, WalletEntry
from bingo.online import services as online_services
from bingo.players import services as player_services
from bingo.playtime import services as playtime_services
from bingo.sales import services as sales_services
from cards import services as card_services
from cards.models import CardSet, Series
from halls import services as hall_services
from halls.models import Hall, Jackpot
from tests.cards.factories import series_make
from tests.clients import api
from tests.factories import UserFactory, adult_player
from tests.test_api_write_permissions import World

BIG = 2**31  # one past PostgreSQL's integer: a DataError, so a 500, where nothing refused it


@pytest.fixture
def world(db: None) -> World:
    return World()


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def _manager(world: World) -> Client:
    return api(world.people[Role.MANAGER])


def _online_room(world: World) -> OnlineRoom:
    # R90: a continuous room opens with an online series of its variant to sell.
    series_make(hall=world.hall, card_set=world.card_set, order_number=9, price="10.00", online=True)
    return online_services.online_room_create(
        hall=world.hall, name="Online", mode="continuous", ball_interval="2"
    )


# --- the services -------------------------------------------------------------------------------


def _refused_on(field: str, call: Callable[[], Any]) -> str:
    with pytest.raises(ValidationError) as refused:
        call()
    assert field in refused.value.message_dict, refused.value
    return refused.value.message_dict[field][0]


def test_an_online_room_s_sales_window_and_pause_are_bounded(world: World) -> None:
    """Issue 20: PATCH /api/online/rooms/{id}/ with a huge sales_seconds was a 500 (R90)."""
    room = _online_room(world)
    message = _refused_on(
        "sales_seconds", lambda: online_services.online_room_update(online_room=room, sales_seconds=BIG)
    )
    assert message == "Give a whole number of seconds from 5 to 3600."
    _refused_on(
        "pause_seconds", lambda: online_services.online_room_update(online_room=room, pause_seconds=3601)
    )
    online_services.online_room_update(online_room=room, sales_seconds=3600, pause_seconds=3600)
    room.refresh_from_db()
    assert (room.sales_seconds, room.pause_seconds) == (3600, 3600)


def test_a_session_lasts_a_day_at_most_and_opens_a_year_ahead_at_most(world: World) -> None:
    start = timezone.now()

    def open_session(starts_at: Any, scheduled_end: Any) -> Session:
        return game_services.session_open(
            room=world.room, starts_at=starts_at, scheduled_end=scheduled_end, user=None
        )

    before = Session.objects.count()
    message = _refused_on(
        "scheduled_end", lambda: open_session(start, start + timedelta(hours=26, seconds=1))
    )
    assert message == "A session lasts at most 26 hours."
    far = start + timedelta(days=367)
    assert _refused_on("starts_at", lambda: open_session(far, far + timedelta(hours=1))) == (
        "A session is opened at most a year ahead."
    )
    assert Session.objects.count() == before
    # The day the clocks go back lasts 25 hours: a continuous room's session, midnight to
    # midnight on the hall's clock, is still one day (Europe/Lisbon, 25 October 2026).
    lisbon = ZoneInfo("Europe/Lisbon")
    midnight = datetime(2026, 10, 25, tzinfo=lisbon).astimezone(UTC)
    next_midnight = datetime(2026, 10, 26, tzinfo=lisbon).astimezone(UTC)
    assert next_midnight - midnight == timedelta(hours=25)
    assert open_session(midnight, next_midnight).pk


def test_a_sale_sells_at_most_1000_cards_for_bounded_cash(world: World) -> None:
    def sell(**fields: Any) -> sales_services.SaleResult:
        return sales_services.sale_make(
            game=world.selling,
            cash_desk=world.desk,
            cashier=world.cashier,
            request_key=f"k-{len(fields)}-{fields}",
            **{"quantity": 1, "cash_received": Decimal("1000.00"), **fields},
        )

    assert _refused_on("quantity", lambda: sell(quantity=1001)) == "Sell at most 1000 cards in one sale."
    _refused_on("cash_received", lambda: sell(cash_received=bounds.AMOUNT_MAX + 1))
    assert not Sale.objects.exists()


def test_a_series_order_number_and_price_are_bounded(world: World) -> None:
    def create(**fields: Any) -> Series:
        return card_services.series_create(
            hall=world.hall,
            card_set=world.card_set,
            back_colour="#1E88E5",
            face_colour="#1E88E5",
            user=None,
            **{"order_number": 50, "price": "10.00", **fields},
        )

    assert (
        _refused_on("order_number", lambda: create(order_number=BIG)) == "The order number is at most 999999."
    )
    _refused_on("price", lambda: create(price=bounds.CARD_PRICE_MAX + 1))
    assert not Series.objects.filter(order_number=50).exists()


def test_a_hall_s_card_limit_and_tax_threshold_are_bounded(world: World) -> None:
    def update(**fields: Any) -> Hall:
        settings = {
            "name": world.hall.name,
            "currency": world.hall.currency,
            "time_zone": world.hall.time_zone,
            "card_limit_per_player": None,
            "tax_rate": Decimal("0"),
            "tax_threshold": Decimal("0"),
            "jackpot_active": False,
        }
        return hall_services.hall_update(hall=world.hall, **{**settings, **fields})

    _refused_on("card_limit_per_player", lambda: update(card_limit_per_player=BIG))
    _refused_on("tax_threshold", lambda: update(tax_threshold=bounds.AMOUNT_MAX + 1))


def test_a_desk_s_deposit_and_the_wallet_s_balance_are_bounded(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    buyer = adult_player(UserFactory(username="buyer-bounds", roles=[Role.PLAYER]), world.hall)
    message = _refused_on(
        "amount",
        lambda: player_services.wallet_deposit(
            player=buyer, amount=bounds.AMOUNT_MAX + 1, staff=world.cashier, reference="CC 1", key="d1"
        ),
    )
    assert message == "The amount is at most 1000000000.00."
    # The balance: a movement that would take it past what the ledger holds is refused by the
    # service, not by the database (made small here, so as not to deposit a thousand times).
    monkeypatch.setattr(bounds, "BALANCE_MAX", Decimal("150.00"))
    player_services.wallet_post(
        player=buyer, kind="deposit", amount=Decimal("100.00"), recorded_by=world.cashier, reference="CC"
    )
    message = _refused_on(
        "amount",
        lambda: player_services.wallet_post(
            player=buyer, kind="deposit", amount=Decimal("60.00"), recorded_by=world.cashier, reference="CC"
        ),
    )
    assert message == "The wallet holds 100.00 and can hold at most 150.00."
    assert WalletEntry.objects.filter(player=buyer).count() == 1


def test_the_jackpot_s_typed_amounts_and_balance_are_bounded(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refused_on(
        "base_value",
        lambda: jackpot_services.jackpot_configure(hall=world.hall, base_value=bounds.AMOUNT_MAX + 1),
    )
    _refused_on(
        "amount", lambda: jackpot_services.jackpot_seed(hall=world.hall, amount=bounds.AMOUNT_MAX + 1)
    )
    _refused_on(
        "amount",
        lambda: jackpot_services.jackpot_adjust(hall=world.hall, amount=-bounds.AMOUNT_MAX - 1, note="x"),
    )
    monkeypatch.setattr(bounds, "BALANCE_MAX", Decimal("150.00"))
    jackpot_services.jackpot_seed(hall=world.hall, amount=Decimal("100.00"))
    message = _refused_on(
        "amount", lambda: jackpot_services.jackpot_seed(hall=world.hall, amount=Decimal("60.00"))
    )
    assert message == "The jackpot holds 100.00 and can hold at most 150.00."
    assert Jackpot.objects.get(hall=world.hall).balance == Decimal("100.00")


def test_a_scheduled_online_session_has_at_most_20_games(world: World) -> None:
    room = online_services.online_room_create(
        hall=world.hall, name="Sessions", mode="session", ball_interval="2"
    )
    start = timezone.now()
    games = [online_services.SessionGame("90", "100.00")] * 21
    message = _refused_on(
        "games",
        lambda: online_services.online_session_schedule(
            online_room=room,
            starts_at=start,
            sales_close_at=start + timedelta(minutes=30),
            scheduled_end=start + timedelta(hours=2),
            games=games,
            user=None,
        ),
    )
    assert message == "A session has at most 20 games (R92)."


# --- the screens' forms ----------------------------------------------------------------------


def test_the_online_room_form_refuses_a_huge_sales_window(world: World) -> None:
    """Issue 20's 500, on the manager's screen: the form says which field is wrong."""
    room = _online_room(world)
    data = {
        "name": "Online",
        "mode": "continuous",
        "ball_interval": "2",
        "sales_seconds": str(BIG),
        "pause_seconds": "10",
        "variant": "90",
    }
    page = _manager(world).post(reverse("online:room_detail", args=[room.pk]), data)
    assert page.status_code == 200
    assert "Ensure this value is less than or equal to 3600." in page.content.decode()
    room.refresh_from_db()
    assert room.sales_seconds == 60


@pytest.mark.parametrize(
    ("url", "data", "error"),
    [
        (
            lambda w: reverse("halls:hall_edit", args=[w.hall.pk]),
            lambda w: {
                "name": w.hall.name,
                "currency": "CVE",
                "time_zone": "Atlantic/Cape_Verde",
                "card_limit_per_player": str(BIG),
                "tax_rate": "0",
                "tax_threshold": "0",
            },
            "Ensure this value is less than or equal to 10000.",
        ),
        (
            lambda w: reverse("cards:series_create"),
            lambda w: {
                "hall": w.hall.pk,
                "order_number": str(BIG),
                "source": "existing",
                "card_set": w.card_set.pk,
                "price": "10.00",
                "back_colour": "#1e88e5",
                "face_colour": "#1e88e5",
            },
            "Ensure this value is less than or equal to 999999.",
        ),
    ],
    ids=["hall-card-limit", "series-order-number"],
)
def test_a_manager_s_form_refuses_a_number_beyond_its_bound(
    world: World, url: Any, data: Any, error: str
) -> None:
    page = _manager(world).post(url(world), data(world))
    assert page.status_code == 200
    assert error in page.content.decode()


# --- the database ---------------------------------------------------------------------------


def _limit(world: World) -> PlayLimit:
    playtime_services.play_limit_set(player=world.player, session_minutes=60, reminder_minutes=15)
    return PlayLimit.objects.get(player=world.player)


#: (the rows' queryset, the update beyond the bound, the constraint that refuses it).
ROWS: list[tuple[Callable[[World], Any], dict[str, Any], str]] = [
    (
        lambda w: OnlineRoom.objects.filter(pk=_online_room(w).pk),
        {"sales_seconds": 3601},
        "online_room_sales_window_at_most_an_hour",
    ),
    (
        lambda w: OnlineRoom.objects.filter(pk=_online_room(w).pk),
        {"pause_seconds": BIG - 1},
        "online_room_pause_at_most_an_hour",
    ),
    (
        lambda w: Session.objects.filter(pk=w.session.pk),
        {"scheduled_end": F("starts_at") + timedelta(hours=26, seconds=1)},
        "session_at_most_a_day",
    ),
    (lambda w: Game.objects.filter(pk=w.selling.pk), {"price": Decimal("1000000.01")}, "game_price_in_range"),
    (
        lambda w: Series.objects.filter(pk=w.series_on_sale.pk),
        {"order_number": 1_000_000},
        "series_order_number_at_most_max",
    ),
    (
        lambda w: Series.objects.filter(pk=w.series_on_sale.pk),
        {"price": Decimal("1000000.01")},
        "series_price_at_most_max",
    ),
    (lambda w: CardSet.objects.filter(pk=w.card_set.pk), {"size": 1_000_001}, "card_set_size_at_most_max"),
    (
        lambda w: Hall.objects.filter(pk=w.hall.pk),
        {"card_limit_per_player": 10_001},
        "hall_card_limit_at_most_max",
    ),
    (
        lambda w: Hall.objects.filter(pk=w.hall.pk),
        {"tax_threshold": Decimal("1000000000.01")},
        "hall_tax_threshold_at_most_max",
    ),
    (
        lambda w: Jackpot.objects.filter(pk=Jackpot.objects.get_or_create(hall=w.hall)[0].pk),
        {"base_value": Decimal("1000000000.01")},
        "jackpot_base_at_most_max",
    ),
    (
        lambda w: PlayLimit.objects.filter(pk=_limit(w).pk),
        {"session_minutes": 1441},
        "play_limit_minutes_in_range",
    ),
    (
        lambda w: PlayLimit.objects.filter(pk=_limit(w).pk),
        {"reminder_minutes": 20},
        "play_limit_reminder_offered",
    ),
]


@pytest.mark.parametrize(
    ("rows", "update", "constraint"), ROWS, ids=[constraint for _r, _u, constraint in ROWS]
)
def test_the_database_refuses_a_row_beyond_its_bound(
    world: World, rows: Callable[[World], Any], update: dict[str, Any], constraint: str
) -> None:
    queryset = rows(world)
    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        queryset.update(**update)
    assert constraint in str(refused.value)


def test_the_database_refuses_a_desk_deposit_beyond_its_bound(world: World) -> None:
    """The wallet's ledger is insert-only: the bound holds on the insert."""
    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        WalletEntry.objects.create(
            player=world.player,
            seq=1,
            kind="deposit",
            amount=bounds.AMOUNT_MAX + 1,
            balance_after=bounds.AMOUNT_MAX + 1,
            recorded_by=world.cashier,
            reference="CC 1",
        )
    assert "wallet_cash_movement_at_most_max" in str(refused.value)
