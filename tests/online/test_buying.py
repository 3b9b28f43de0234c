"""Online series (R85) and buying from the wallet (R35-R38): online and hall series never cross,
a purchase and its payment are one step, a retried purchase counts once, and concurrent
buyers on PostgreSQL never share or skip a card."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal
from functools import partial

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone, translation

from bingo.games import services as game_services
from bingo.models import Game, Sale, WalletEntry
from bingo.online import services
from bingo.online.selectors import online_series_pick, player_game_state
from bingo.players.selectors import wallet_balance
from bingo.sales import services as sales_services
from halls.models import CashDesk, Room
from tests.concurrency import postgresql_only, run_threads
from tests.online.helpers import OnlineSetup


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def site(db):
    return OnlineSetup()


def bought(purchase: services.OnlinePurchase) -> list[tuple[str, int, int]]:
    return [(s.series.label, s.first_number, s.last_number) for s in purchase.sales]


# --- R85: online series in online rooms only, hall series at desks only -------------------------


def test_r85_an_online_room_refuses_a_hall_series(site):
    hall_series = site.series(1, online=False)
    game = site.game()
    with pytest.raises(ValidationError, match="R85"):
        game_services.game_open_sales(game=game, series=[hall_series])


def test_r85_a_hall_room_refuses_an_online_series(site):
    online_series = site.series(1)
    room = Room.objects.create(hall=site.hall, name="Salão")
    start = timezone.now()
    session = game_services.session_open(
        room=room, starts_at=start, scheduled_end=start + timedelta(hours=1), user=None
    )
    game = game_services.game_create(session=session, variant="90")
    with pytest.raises(ValidationError, match="R85"):
        game_services.game_open_sales(game=game, series=[online_series])


def _desk_sale(site, game, quantity=1):
    desk = CashDesk.objects.create(hall=site.hall, name=f"Caixa {uuid.uuid4().hex[:6]}")
    return sales_services.sale_make(
        game=game, quantity=quantity, cash_desk=desk, cashier=site.cashier,
        cash_received=Decimal("1000"), request_key=uuid.uuid4().hex,
    )  # fmt: skip


@pytest.mark.parametrize("limit", [None, 10], ids=["fast-path", "locked-path"])
def test_r85_a_desk_never_sells_an_online_series(site, limit):
    """Both desk paths: the fast UPDATE (its SQL requires NOT online, on SQLite and PostgreSQL)
    falls through to the locked path, which refuses it; nothing is sold."""
    site.hall.card_limit_per_player = limit
    site.hall.save()
    series = site.series(1)
    game = site.game(series)
    with pytest.raises(ValidationError, match="R85"):
        _desk_sale(site, game)
    series.refresh_from_db()
    assert series.last_sold == 0
    assert not Sale.objects.filter(game=game).exists()


def test_r85_the_fast_paths_update_itself_refuses_an_online_series(site):
    """The fast path on its own (not the locked path behind it) takes no number of an online series."""
    series = site.series(1)
    game = site.game(series)
    desk = CashDesk.objects.create(hall=site.hall, name="Caixa 9")
    result = sales_services._sell_fast(
        game.pk, series.pk, series.price, 1, desk, site.cashier, Decimal("100"), "k-fast", ""
    )
    assert result is None
    series.refresh_from_db()
    assert series.last_sold == 0


def test_r85_an_online_buyer_never_gets_a_hall_series(site):
    """A hall game's cards are not for sale online."""
    hall_series = site.series(1, online=False)
    room = Room.objects.create(hall=site.hall, name="Salão")
    start = timezone.now()
    session = game_services.session_open(
        room=room, starts_at=start, scheduled_end=start + timedelta(hours=1), user=None
    )
    game = game_services.game_open_sales(
        game=game_services.game_create(session=session, variant="90"), series=[hall_series]
    )
    player = site.player()
    with pytest.raises(ValidationError, match="desks"):
        services.online_buy(player=player, game=game, quantity=1, key="k1")
    assert wallet_balance(player=player) == Decimal("100.00")


# --- buying ------------------------------------------------------------------------------------


def test_a_purchase_takes_the_next_cards_and_pays_from_the_wallet_in_one_step(site):
    series = site.series(1)
    game = site.game(series)
    ana, rui = site.player(), site.player()
    first = services.online_buy(player=ana, game=game, quantity=3, key="a1")
    second = services.online_buy(player=rui, game=game, quantity=2, key="r1")
    assert bought(first) == [("A-1", 1, 3)]
    assert bought(second) == [("A-1", 4, 5)]  # R36: in number order, one after the other
    assert first.amount == Decimal("30.00")
    assert first.balance == Decimal("70.00")
    assert wallet_balance(player=ana) == Decimal("70.00")
    entry = WalletEntry.objects.get(player=ana, kind="purchase")
    assert entry.sale == first.sales[0]
    assert entry.amount == Decimal("-30.00")
    sale = first.sales[0]
    assert sale.buyer == ana
    assert sale.cash_desk is None
    assert sale.cashier is None
    assert sale.cash_received == Decimal("30.00")


def test_a_short_wallet_buys_nothing_and_loses_nothing(site):
    series = site.series(1)
    game = site.game(series)
    poor = site.player("25.00")
    with pytest.raises(ValidationError, match="nothing was bought"):
        services.online_buy(player=poor, game=game, quantity=3, key="p1")
    assert wallet_balance(player=poor) == Decimal("25.00")
    assert not Sale.objects.exists()
    series.refresh_from_db()
    assert series.last_sold == 0


def test_the_wallet_check_under_lock_rolls_the_sale_back(site, monkeypatch):
    """Even past the early check (a withdrawal in between), the wallet's refusal undoes the sale."""
    series = site.series(1)
    game = site.game(series)
    player = site.player("25.00")
    monkeypatch.setattr(services.player_selectors, "wallet_balance", lambda **kw: Decimal("1000"))
    with pytest.raises(ValidationError):
        services.online_buy(player=player, game=game, quantity=3, key="p2")
    assert not Sale.objects.exists()
    series.refresh_from_db()
    assert series.last_sold == 0
    assert WalletEntry.objects.filter(player=player).count() == 1


def test_a_retried_purchase_counts_once_even_after_sales_closed(site):
    series = site.series(1)
    game = site.game(series)
    player = site.player()
    first = services.online_buy(player=player, game=game, quantity=2, key="same")
    again = services.online_buy(player=player, game=game, quantity=2, key="same")
    assert bought(again) == bought(first)
    assert wallet_balance(player=player) == Decimal("80.00")
    game_services.game_close_sales(game=game)
    late = services.online_buy(player=player, game=game, quantity=2, key="same")
    assert bought(late) == [("A-1", 1, 2)]
    assert Sale.objects.count() == 1
    # The key is the player's own: another player's same key is another purchase.
    other = site.player()
    with pytest.raises(ValidationError, match="not selling"):
        services.online_buy(player=other, game=game, quantity=1, key="same")


def test_a_key_reused_for_a_different_purchase_buys_nothing(site):
    """A retry asks the same; the key of an earlier purchase with another number of cards, or
    in another game, is refused and nothing is bought or taken."""
    game = site.game(site.series(1))
    player = site.player()
    services.online_buy(player=player, game=game, quantity=2, key="k1")
    with pytest.raises(services.PurchaseKeyReusedError, match="different purchase"):
        services.online_buy(player=player, game=game, quantity=3, key="k1")
    other = site.game(site.series(2))
    with pytest.raises(services.PurchaseKeyReusedError):
        services.online_buy(player=player, game=other, quantity=2, key="k1")
    assert Sale.objects.count() == 1
    assert wallet_balance(player=player) == Decimal("80.00")


def test_r93_no_purchase_after_the_announced_close_even_before_the_reconciler_closes(site):
    """R93: sales end for everyone at ``sales_close_at``; the game is still «selling» until the
    reconciler's next tick (or for as long as beat is down), and buys nothing all the same."""
    game = site.game(site.series(1))
    player = site.player()
    Game.objects.filter(pk=game.pk).update(sales_close_at=timezone.now() - timedelta(seconds=1))
    game.refresh_from_db()
    assert game.state == Game.State.SELLING
    with pytest.raises(ValidationError, match="not selling"):
        services.online_buy(player=player, game=game, quantity=1, key="late")
    assert not Sale.objects.exists()
    assert wallet_balance(player=player) == Decimal("100.00")
    assert player_game_state(player=player, game=game)["choices"]["buy"] is False


def test_the_key_is_required_and_short(site):
    game = site.game(site.series(1))
    player = site.player()
    for key in ("", "x" * 41):
        with pytest.raises(ValidationError):
            services.online_buy(player=player, game=game, quantity=1, key=key)


def test_r35_the_halls_limit_counts_the_players_cards_in_the_game(site):
    site.hall.card_limit_per_player = 4
    site.hall.save()
    game = site.game(site.series(1))
    ana, rui = site.player(), site.player()
    services.online_buy(player=ana, game=game, quantity=3, key="a1")
    with pytest.raises(ValidationError, match="R35"):
        services.online_buy(player=ana, game=game, quantity=2, key="a2")
    services.online_buy(player=ana, game=game, quantity=1, key="a3")
    services.online_buy(player=rui, game=game, quantity=4, key="r1")  # his own count
    assert wallet_balance(player=ana) == Decimal("60.00")


def test_r37_r38_online_cards_continue_from_the_last_sold_and_roll_into_the_second_series(site):
    first, second = site.series(1), site.series(2)
    warm_up = site.game(first)
    player = site.player("2000.00")
    services.online_buy(player=player, game=warm_up, quantity=80, key="w")
    game_services.game_close_sales(game=warm_up)
    game = site.game(first, second)  # R37: from card 81
    purchase = services.online_buy(player=player, game=game, quantity=15, key="roll")
    assert bought(purchase) == [("A-1", 81, 90), ("A-2", 1, 5)]  # R38 b)
    assert purchase.amount == Decimal("150.00")
    entry = WalletEntry.objects.get(player=player, key=f"online:{player.pk}:roll")
    assert entry.sale == purchase.sales[0]
    assert entry.amount == Decimal("-150.00")
    with pytest.raises(ValidationError, match="R38"):
        services.online_buy(player=player, game=game, quantity=76, key="too-many")  # R38 c)


def test_refusals_game_not_selling_other_operator_closed_room(site):
    game = site.game()  # planned, not selling
    player = site.player()
    with pytest.raises(ValidationError, match="not selling"):
        services.online_buy(player=player, game=game, quantity=1, key="k")
    selling = site.game(site.series(1))
    other = OnlineSetup(name="Outra Sala")
    stranger = other.player()
    with pytest.raises(ValidationError, match="another operator"):
        services.online_buy(player=stranger, game=selling, quantity=1, key="k")
    services.online_room_update(online_room=site.online, active=False)
    with pytest.raises(ValidationError, match="closed"):
        services.online_buy(player=player, game=selling, quantity=1, key="k")
    assert wallet_balance(player=player) == Decimal("100.00")


def test_online_series_pick_takes_the_lowest_order_number_in_stock_of_the_variant_and_price(site):
    assert online_series_pick(hall=site.hall, variant="90") is None
    site.series(3, price="10.00")
    low = site.series(2, price="10.00")
    dear = site.series(4, price="20.00")
    site.series(1, online=False)
    assert online_series_pick(hall=site.hall, variant="90") == low
    assert online_series_pick(hall=site.hall, variant="90", price=Decimal("20.00")) == dear
    assert online_series_pick(hall=site.hall, variant="75") is None
    site.game(low)  # on sale now: not picked for another game
    assert online_series_pick(hall=site.hall, variant="90", price=Decimal("10.00")).order_number == 3


@pytest.mark.postgres
def test_postgres_trigger_refuses_a_desk_sale_of_an_online_series(site):
    if connection.vendor != "postgresql":
        pytest.skip("the sale trigger is PostgreSQL's")
    series = site.series(1)
    game = site.game(series)
    desk = CashDesk.objects.create(hall=site.hall, name="Caixa X")
    with pytest.raises(IntegrityError), transaction.atomic():
        Sale.objects.create(
            game=game, series=series, first_number=1, last_number=1, quantity=1, unit_price=series.price,
            amount=series.price, cash_desk=desk, cashier=site.cashier, cash_received=series.price,
            request_key="forged",
        )  # fmt: skip


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_buyers_never_share_or_skip_a_card_and_pay_once():
    """Eight players buy at once (real threads and row locks), some retrying each purchase: the
    cards sold are 1..N of the series each once, and each wallet paid exactly once per purchase."""
    postgresql_only()
    site = OnlineSetup(name="Sala Corrida Online")
    first, second = site.series(1), site.series(2)
    game = site.game(first, second)
    players = [site.player("1000.00") for _ in range(8)]
    refused: list[int] = []

    def buyer(index: int) -> None:
        player = players[index]
        for n in range(10):
            key = f"p{index}-{n}"
            for _attempt in range(2 if n % 3 == 0 else 1):  # a retry of the same purchase
                try:
                    services.online_buy(player=player, game=game, quantity=1 + (index + n) % 3, key=key)
                except ValidationError:
                    refused.append(index)

    run_threads([partial(buyer, i) for i in range(8)])
    sold: dict[str, list[int]] = {"A-1": [], "A-2": []}
    for sale in Sale.objects.filter(game=game).select_related("series"):
        sold[sale.series.label].extend(range(sale.first_number, sale.last_number + 1))
    assert sorted(sold["A-1"]) == list(range(1, len(sold["A-1"]) + 1))
    assert sorted(sold["A-2"]) == list(range(1, len(sold["A-2"]) + 1))
    assert len(sold["A-1"]) == 90  # the first series ran out before the second was touched
    for player in players:
        purchases = WalletEntry.objects.filter(player=player, kind="purchase")
        paid = -sum(e.amount for e in purchases)
        cards = sum(s.quantity for s in Sale.objects.filter(game=game, buyer=player))
        assert paid == cards * Decimal("10.00")
        assert purchases.count() == len({s.request_key for s in Sale.objects.filter(game=game, buyer=player)})
        assert wallet_balance(player=player) == Decimal("1000.00") - paid
