"""What a standing order pins (review of issue 25, point 4): the card price, the variant and the
75-ball pattern the player saw when ordering. A game at another price, or of another variant or
pattern, is skipped (recorded, with why) and the order goes on: never bought at another price. A
session's games opening together are filled lowest number first, whichever game's task runs
first. A page left open while the terms changed is refused, buying and ordering nothing."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from bingo.autodraw import services as autodraw_services
from bingo.models import FillSkip, Game, OnlineOrder, OrderEnd, RoomMode, Sale, Session
from bingo.online import selectors, services
from bingo.online.tasks import orders_fill_task
from bingo.players.selectors import wallet_balance
from tests.autodraw.helpers import Clock, committed
from tests.cards.factories import card_set_make, series_make
from tests.clients import api, logged_in
from tests.online.helpers import Fills, OnlineSetup
from tests.online.test_room_pattern import PatternRoom


@pytest.fixture
def site(db: None, clock: Clock) -> OnlineSetup:
    """A session-mode room whose hall sells online 90-ball series at 10 and 20 CVE a card, and
    75-ball ones at 10 CVE."""
    setup = OnlineSetup(name="Salão dos Preços", mode=RoomMode.SESSION)
    for number in (1, 2, 3):
        setup.series(number, price="10.00")
    setup.series(4, price="20.00")
    series_make(
        hall=setup.hall, card_set=card_set_make(variant="75"), order_number=5, price="10.00", online=True
    )
    return setup


def _schedule(site: OnlineSetup, clock: Clock, games: list[tuple[str, str]], start_in: int = 10) -> Session:
    """A session of ``games`` (variant, card price), its sales opening in ``start_in`` minutes."""
    start = clock.now + timedelta(minutes=start_in)
    return services.online_session_schedule(
        online_room=site.online,
        starts_at=start,
        sales_close_at=start + timedelta(minutes=15),
        scheduled_end=start + timedelta(hours=2),
        games=[services.SessionGame(variant, price) for variant, price in games],
        user=site.manager,
    )


def _open(clock: Clock, session: Session) -> list[Game]:
    """The session's start comes and the online loop opens every game's sales at once (R93)."""
    clock.to(session.starts_at)
    committed(lambda: autodraw_services.online_room_advance(room_id=session.room_id))
    return list(Game.objects.filter(session=session).order_by("number"))


def test_an_order_pins_the_price_and_variant_of_the_room_s_next_game(site: OnlineSetup, clock: Clock) -> None:
    _schedule(site, clock, [("90", "20.00"), ("90", "10.00")])
    player = site.player("100.00")

    order = services.online_order_create(
        player=player, online_room=site.online, games=2, quantity=1, key="fixa"
    )

    assert (order.price, order.variant, order.pattern) == (Decimal("20.00"), "90", "")
    body = api(player.user).get("/api/online/orders/").json()
    assert (body[0]["price"], body[0]["variant"]) == ("20.00", "90")


def test_a_game_at_another_price_is_skipped_never_bought_and_the_order_goes_on(
    site: OnlineSetup, clock: Clock, fills: Fills
) -> None:
    """Point 4: ordered at 10 CVE a card, the order skips the session's game selling at 20 (its
    reason kept on the fill, shown to the player) and buys in the next game at 10."""
    session = _schedule(site, clock, [("90", "10.00"), ("90", "20.00"), ("90", "10.00")])
    player = site.player("100.00")
    order = services.online_order_create(
        player=player, online_room=site.online, games=2, quantity=1, key="dez"
    )

    first, dearer, third = _open(clock, session)
    fills.run()

    assert [s.game_id for s in Sale.objects.filter(buyer=player).order_by("game__number")] == [
        first.pk,
        third.pk,
    ]
    assert wallet_balance(player=player) == Decimal("80.00")  # never 20 for a card
    order.refresh_from_db()
    assert (order.end_reason, order.games_filled) == (OrderEnd.COMPLETED, 2)
    skipped = order.fills.get(game=dearer)
    assert (skipped.skip, skipped.sale_id) == (FillSkip.PRICE, None)
    with translation.override("pt"):
        assert selectors.fill_text(skipped) == (
            "A jogada 2 vende cartões a 20 CVE e a encomenda foi feita a 10 CVE: saltada, nunca "
            "comprada a outro preço; a encomenda continua."
        )
    history = logged_in(player.user, "pt").get(reverse("players:history")).content.decode()
    assert f'data-fill-game="{dearer.pk}" data-fill-result="skipped"' in history


def test_a_game_of_another_variant_is_skipped_and_the_order_goes_on(
    site: OnlineSetup, clock: Clock, fills: Fills
) -> None:
    session = _schedule(site, clock, [("90", "10.00"), ("75", "10.00")])
    player = site.player("100.00")
    order = services.online_order_create(
        player=player, online_room=site.online, games=2, quantity=1, key="noventa"
    )

    first, other = _open(clock, session)
    fills.run()

    assert list(Sale.objects.filter(buyer=player).values_list("game_id", flat=True)) == [first.pk]
    order.refresh_from_db()
    assert (order.is_open, order.games_filled) == (True, 1)
    assert order.fills.get(game=other).skip == FillSkip.VARIANT


def test_a_75_ball_order_skips_a_game_of_another_pattern(db: None, clock: Clock, fills: Fills) -> None:
    """R73 b): ordered when the room's bingo was the letter T, the order buys nothing in a game
    created after the manager changed it to the X."""
    site = PatternRoom()  # a continuous 75-ball room, bingo: the letter T
    player = site.player("100.00")
    order = services.online_order_create(
        player=player, online_room=site.online, games=2, quantity=1, key="letra"
    )
    assert (order.variant, order.pattern) == ("75", "letter_t")
    services.online_room_update(online_room=site.online, pattern="x")

    game = site.advance()
    fills.run()

    assert game is not None
    assert not Sale.objects.filter(buyer=player).exists()
    order.refresh_from_db()
    assert order.is_open
    assert order.fills.get(game=game).skip == FillSkip.PATTERN


def test_a_session_s_games_opening_together_fill_the_lowest_number_first(
    site: OnlineSetup, clock: Clock, fills: Fills
) -> None:
    """Point 4: an order with one game left buys in the session's first game, even when the
    second game's task runs first."""
    session = _schedule(site, clock, [("90", "10.00"), ("90", "10.00")])
    player = site.player("100.00")
    order = services.online_order_create(
        player=player, online_room=site.online, games=1, quantity=1, key="uma"
    )

    first, second = _open(clock, session)
    assert fills.queued == [first.pk, second.pk]
    committed(lambda: orders_fill_task(second.pk))  # the second game's task first
    committed(lambda: orders_fill_task(first.pk))

    assert list(Sale.objects.filter(buyer=player).values_list("game_id", flat=True)) == [first.pk]
    order.refresh_from_db()
    assert (order.end_reason, order.games_filled) == (OrderEnd.COMPLETED, 1)
    assert not order.fills.filter(game=second).exists()


def test_the_lobby_s_form_carries_the_price_shown_and_a_changed_price_refuses_it_all(
    site: OnlineSetup, clock: Clock
) -> None:
    """A lobby left open while the next game's price changed: the purchase ahead is refused
    before anything is bought or ordered, saying the price now."""
    selling = _open(clock, _schedule(site, clock, [("90", "10.00")]))[0]
    later = _schedule(site, clock, [("90", "10.00")], start_in=60).games.get()
    player = site.player("100.00")
    client = logged_in(player.user, "pt")
    lobby = client.get(reverse("online:lobby")).content.decode()
    assert 'name="price" value="10.00"' in lobby
    assert "As jogadas encomendadas são compradas a 10 CVE por cartão" in lobby
    Game.objects.filter(pk=later.pk).update(price=Decimal("20.00"))  # the room's next game changed

    page = client.post(
        reverse("online:buy_ahead", args=[site.online.pk]),
        {"games": "2", "quantity": "1", "key": "velha", "price": "10.00", "variant": "90"},
        follow=True,
    )

    assert "vendem cartões a 20 CVE, não aos 10 CVE que viu" in page.content.decode()
    assert not Sale.objects.filter(buyer=player).exists()
    assert not OnlineOrder.objects.filter(player=player).exists()
    assert selling.state == "selling"


def test_the_api_pins_the_price_the_client_saw_or_refuses(site: OnlineSetup, clock: Clock) -> None:
    _schedule(site, clock, [("90", "10.00")])
    player = site.player("100.00")
    client = api(player.user)
    assert client.get("/api/online/lobby/").json()["rooms"][0]["order_price"] == "10.00"

    stale = client.post(
        "/api/online/orders/",
        {"room": site.online.pk, "games": 1, "quantity": 1, "key": "a", "price": "20.00"},
        content_type="application/json",
    )
    made = client.post(
        "/api/online/orders/",
        {"room": site.online.pk, "games": 1, "quantity": 1, "key": "b", "price": "10.00", "variant": "90"},
        content_type="application/json",
    )

    assert stale.status_code == 400
    assert "price" in stale.json()
    assert made.status_code == 201, made.content
    assert made.json()["price"] == "10.00"
    assert OnlineOrder.objects.filter(player=player).count() == 1
