"""90-ball strips of six online (issue 25, point 2): a room set to sell strips sells whole strips
only — six consecutive cards from a number after a multiple of six, of a card set generated as
strips (``strips/1``), together holding every number from 1 to 90 once — in number order
(R36-R38), and never a broken strip."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from bingo.autodraw import services as autodraw_services
from bingo.engine import ALGORITHM_STRIPS
from bingo.models import Game, OnlineRoom, Sale, WalletEntry
from bingo.online import selectors, services
from bingo.players.selectors import wallet_balance
from cards.models import Series
from cards.selectors import card_get
from tests.autodraw.helpers import Clock, committed
from tests.cards.factories import card_set_make, series_make
from tests.clients import logged_in
from tests.online.helpers import OnlineSetup


@pytest.fixture
def site(db: None) -> OnlineSetup:
    """A continuous room selling strips of six from an online series of strips at 10 CVE a card."""
    setup = OnlineSetup(name="Salão das Tiras")
    setup.card_set = card_set_make(variant="90", size=90, algorithm=ALGORITHM_STRIPS)
    setup.series(1, price="10.00")
    services.online_room_update(online_room=setup.online, strips=True)
    return setup


def _numbers(series: Series, first: int, last: int) -> list[int]:
    found: list[int] = []
    for number in range(first, last + 1):
        found += [n for row in card_get(card_set=series.card_set, number=number) for n in row if n]
    return found


def test_a_strip_bought_online_is_six_cards_holding_every_number_from_1_to_90_once(site: OnlineSetup) -> None:
    game = site.game(Series.objects.get(hall=site.hall, order_number=1))
    player = site.player("200.00")

    one = services.online_buy(player=player, game=game, quantity=6, key="one-strip")
    two = services.online_buy(player=player, game=game, quantity=12, key="two-strips")

    assert [(s.first_number, s.last_number) for s in one.sales] == [(1, 6)]
    assert [(s.first_number, s.last_number) for s in two.sales] == [(7, 18)]
    series = one.sales[0].series
    for first in (1, 7, 13):
        assert sorted(_numbers(series, first, first + 5)) == list(range(1, 91))
    assert wallet_balance(player=player) == Decimal("20.00")


def test_a_purchase_of_a_part_of_a_strip_is_refused_and_takes_nothing(site: OnlineSetup) -> None:
    game = site.game(Series.objects.get(hall=site.hall, order_number=1))
    player = site.player("100.00")

    with pytest.raises(ValidationError, match="tiras de seis"):
        services.online_buy(player=player, game=game, quantity=5, key="five")

    assert not Sale.objects.filter(game=game).exists()
    assert wallet_balance(player=player) == Decimal("100.00")


def test_a_series_not_generated_as_strips_never_sells_six_cards_as_a_strip(site: OnlineSetup) -> None:
    """A series of plain cards put on sale in a strip room's game by hand: the purchase is
    refused and its debit undone, rather than six cards sold as a strip that is not one."""
    plain = series_make(
        hall=site.hall,
        card_set=card_set_make(variant="90", size=90),
        order_number=7,
        price="10.00",
        online=True,
    )
    game = site.game(plain)
    player = site.player("100.00")

    with pytest.raises(ValidationError, match="tiras de seis inteiras"):
        services.online_buy(player=player, game=game, quantity=6, key="plain")

    assert not Sale.objects.filter(game=game).exists()
    assert wallet_balance(player=player) == Decimal("100.00")
    assert not WalletEntry.objects.filter(player=player, kind="purchase").exists()


def test_the_game_page_sells_strips_by_the_strip(site: OnlineSetup) -> None:
    game = site.game(Series.objects.get(hall=site.hall, order_number=1))
    player = site.player("200.00")
    client = logged_in(player.user, "pt")

    html = client.get(reverse("online:game", args=[game.pk])).content.decode()
    assert "Quantas tiras de seis?" in html
    assert 'data-cards-each="6"' in html
    client.post(reverse("online:buy", args=[game.pk]), {"quantity": "2", "key": "page-strips"})

    sale = Sale.objects.get(game=game, buyer=player)
    assert (sale.first_number, sale.last_number, sale.amount) == (1, 12, Decimal("120.00"))


def test_the_loop_opens_a_strip_room_s_game_with_a_series_of_whole_strips(site: OnlineSetup) -> None:
    """The series picked is one of strips whose next card begins a strip, before any plain
    series of a lower order number or a strip series sold out of step."""
    shifted = Series.objects.get(hall=site.hall, order_number=1)
    Series.objects.filter(pk=shifted.pk).update(last_sold=3)  # sold in single cards once
    series_make(hall=site.hall, card_set=card_set_make(variant="90", size=90), order_number=2, online=True)
    whole = site.series(3, price="10.00")
    assert selectors.online_series_pick(hall=site.hall, variant="90").order_number == 1  # single cards

    assert selectors.online_series_pick(hall=site.hall, variant="90", strips=True) == whole
    game = committed(lambda: autodraw_services.online_room_advance(room_id=site.online.pk))

    assert game is not None
    assert [entry.series_id for entry in game.on_sale.all()] == [whole.pk]


def test_a_strip_room_needs_strip_series_and_the_90_ball_variant(db: None) -> None:
    setup = OnlineSetup(name="Salão Sem Tiras")
    setup.series(1, price="10.00")  # plain cards only

    with pytest.raises(ValidationError) as refused:
        services.online_room_update(online_room=setup.online, strips=True)
    assert "strips" in refused.value.message_dict
    with pytest.raises(ValidationError) as wrong:
        services.online_room_create(
            hall=setup.hall, name="Tiras 75", mode="continuous", ball_interval="2", variant="75", strips=True,
            active=False,
        )  # fmt: skip
    assert "strips" in wrong.value.message_dict
    assert not OnlineRoom.objects.get(pk=setup.online.pk).strips
    with pytest.raises(IntegrityError), transaction.atomic():
        OnlineRoom.objects.filter(pk=setup.online.pk).update(strips=True, variant="75")


def test_strips_are_not_switched_while_a_game_of_the_room_sells(site: OnlineSetup) -> None:
    """R36: single cards sold in a game selling strips would shift every strip after them."""
    site.game(Series.objects.get(hall=site.hall, order_number=1))

    with pytest.raises(ValidationError) as refused:
        services.online_room_update(online_room=site.online, strips=False)

    assert "strips" in refused.value.message_dict
    assert OnlineRoom.objects.get(pk=site.online.pk).strips
    assert Game.objects.filter(session__room=site.room, state="selling").exists()


def test_the_room_s_form_sets_strips(site: OnlineSetup) -> None:
    client = logged_in(site.manager, "pt")
    page = client.get(reverse("online:room_detail", args=[site.online.pk])).content.decode()
    assert "Vender tiras de seis" in page
    assert "Tempo mínimo de vendas após a primeira compra (segundos)" in page


def test_buying_strips_ahead_takes_whole_strips_in_each_game(site: OnlineSetup, clock: Clock) -> None:
    game = site.game(Series.objects.get(hall=site.hall, order_number=1))
    player = site.player("200.00")
    client = logged_in(player.user, "pt")

    client.post(
        reverse("online:buy_ahead", args=[site.online.pk]),
        {"games": "1", "quantity": "1", "key": "ahead-strip"},
    )

    sale = Sale.objects.get(game=game, buyer=player)
    assert (sale.first_number, sale.last_number) == (1, 6)
