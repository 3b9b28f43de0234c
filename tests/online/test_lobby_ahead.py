"""The lobby (issue 25, point 2): each room's next games with their times on the hall's clock and
each prize's share of sales with its value so far (R7, R29, R94); buying ahead in a room's next
games: each game selling bought at once, its own purchase, the rest a standing order filled as
their sales open for everyone (R93); no purchase offered to an excluded player (R101). The
standing orders themselves: tests/online/test_orders.py."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from bingo.autodraw import services as autodraw_services
from bingo.common.clock import hall_clock_text
from bingo.models import Game, GameState, OnlineOrder, OrderEnd, RoomMode, Sale, Session, WalletEntry
from bingo.online import selectors, services
from bingo.players.selectors import wallet_balance
from bingo.protection import selectors as protection_selectors
from bingo.protection import services as protection_services
from tests.autodraw.helpers import Clock, committed, reconcile
from tests.clients import logged_in
from tests.online.helpers import Fills, OnlineSetup

PLAN = {"line": "20", "bingo": "60"}


@pytest.fixture
def site(db: None, clock: Clock) -> OnlineSetup:
    """A session-mode room whose hall sells online series at 10 CVE a card."""
    setup = OnlineSetup(name="Salão das Sessões", mode=RoomMode.SESSION)
    for order in (1, 2, 3, 4):
        setup.series(order, price="10.00")
    return setup


def _schedule(site: OnlineSetup, clock: Clock, *, games: int, start_in: int = 10) -> Session:
    start = clock.now + timedelta(minutes=start_in)
    return services.online_session_schedule(
        online_room=site.online,
        starts_at=start,
        sales_close_at=start + timedelta(minutes=15),
        scheduled_end=start + timedelta(hours=2),
        games=[services.SessionGame("90", "10.00", PLAN) for _ in range(games)],
        user=site.manager,
    )


def _open(clock: Clock, session: Session) -> list[Game]:
    """The session's start comes and the online loop opens every game's sales at once (R93)."""
    clock.to(session.starts_at)
    committed(lambda: autodraw_services.online_room_advance(room_id=session.room_id))
    return list(Game.objects.filter(session=session).order_by("number"))


def _room(site: OnlineSetup) -> selectors.LobbyRoom:
    player = site.player("0.00")
    (room,) = selectors.online_lobby(player=player).rooms
    return room


# --- (a) the next games, their times, the prizes' shares and values -----------------------------


def test_the_lobby_lists_the_next_games_with_their_opening_on_the_hall_s_clock_and_prize_shares(
    site: OnlineSetup, clock: Clock
) -> None:
    session = _schedule(site, clock, games=3)

    room = _room(site)

    assert [item.game.number for item in room.games] == [1, 2, 3]  # every next game, not one
    first = room.games[0]
    assert first.planned
    assert not first.selling
    assert first.opens_at_text == hall_clock_text(session.starts_at, site.hall)
    # R7: the share of sales the plan gives, and nothing yet as no card is sold.
    assert [(p.name, p.share, p.display) for p in first.prizes] == [
        ("Linha", Decimal("20"), "0 CVE"),
        ("Bingo", Decimal("60"), "0 CVE"),
    ]


def test_a_prize_s_value_so_far_follows_the_cards_sold_and_the_close_is_on_the_hall_s_clock(
    site: OnlineSetup, clock: Clock
) -> None:
    games = _open(clock, _schedule(site, clock, games=2))
    services.online_buy(player=site.player("100.00"), game=games[0], quantity=5, key="five")

    room = _room(site)

    first, second = room.games
    assert first.selling
    assert second.selling
    # 5 cards at 10 CVE: 50 CVE sold, 80 % of it in prizes, the line's 20 % of sales = 10 CVE.
    assert [(p.share, p.display) for p in first.prizes] == [
        (Decimal("20"), "10 CVE"),
        (Decimal("60"), "30 CVE"),
    ]
    assert [(p.share, p.display) for p in second.prizes] == [
        (Decimal("20"), "0 CVE"),
        (Decimal("60"), "0 CVE"),
    ]
    assert first.game.sales_close_at is not None
    assert first.closes_at_text == hall_clock_text(first.game.sales_close_at, site.hall, "%H:%M:%S")


def test_the_lobby_page_says_each_prize_s_share_and_value_so_far_in_portuguese(
    site: OnlineSetup, clock: Clock
) -> None:
    games = _open(clock, _schedule(site, clock, games=2))
    player = site.player("100.00")
    services.online_buy(player=player, game=games[0], quantity=2, key="two")

    html = logged_in(player.user, "pt").get(reverse("online:lobby")).content.decode()

    assert "Linha: 20 % das vendas — 4 CVE até agora" in html
    assert "Bingo: 60 % das vendas — 12 CVE até agora" in html
    assert "Linha: 20 % das vendas — 0 CVE até agora" in html  # the second game
    close = hall_clock_text(games[0].sales_close_at, site.hall, "%H:%M:%S")
    assert f"As vendas fecham às {close}" in html
    assert "data-countdown" in html
    assert "As vendas fecham dentro de" in html
    assert "Comprar antecipadamente" in html


def test_a_planned_game_says_when_its_sales_open(site: OnlineSetup, clock: Clock) -> None:
    session = _schedule(site, clock, games=1)
    player = site.player("100.00")

    html = logged_in(player.user, "pt").get(reverse("online:lobby")).content.decode()

    opens = hall_clock_text(session.starts_at, site.hall)
    assert f"As vendas abrem às {opens}, para todos os jogadores ao mesmo tempo (R93)." in html
    assert "Comprar cartões" not in html  # nothing sells yet
    # Buying ahead orders it, bought when its sales open for everyone (R93).
    assert "Comprar antecipadamente" in html


def test_the_lobby_api_carries_each_prize_s_share_and_value_so_far(site: OnlineSetup, clock: Clock) -> None:
    games = _open(clock, _schedule(site, clock, games=1))
    player = site.player("100.00")
    services.online_buy(player=player, game=games[0], quantity=2, key="two")

    body = logged_in(player.user, "en").get("/api/online/lobby/").json()

    (game,) = body["rooms"][0]["games"]
    assert game["prizes"] == [["Line", "4 CVE"], ["Bingo", "12 CVE"]]
    assert game["prize_shares"] == [
        {"name": "Line", "share": "20.00", "value": "4 CVE"},
        {"name": "Bingo", "share": "60.00", "value": "12 CVE"},
    ]
    assert body["rooms"][0]["strips"] is False


# --- (c) buying ahead -----------------------------------------------------------------------------


def test_buying_ahead_buys_in_each_game_selling_and_orders_the_planned_one(
    site: OnlineSetup, clock: Clock, fills: Fills
) -> None:
    """R93: a game whose sales have not opened sells nothing to anyone yet: it is ordered, and
    bought when its sales open for everyone; each game's purchase is its own sale with its own
    key; nothing is debited for the order before."""
    games = _open(clock, _schedule(site, clock, games=2))
    later = _schedule(site, clock, games=1, start_in=60)  # its sales open in an hour
    player = site.player("100.00")

    ahead = services.online_buy_ahead(
        player=player, online_room=site.online, games=3, quantity=2, key="ahead"
    )

    assert [line.game.pk for line in ahead.lines] == [games[0].pk, games[1].pk]
    assert [line.purchase.cards if line.purchase else 0 for line in ahead.lines] == [2, 2]
    assert ahead.order is not None
    assert (ahead.order.games_wanted, ahead.order.quantity, ahead.order.is_open) == (1, 2, True)
    sales = list(Sale.objects.filter(buyer=player).order_by("game__number"))
    assert [(s.game_id, s.quantity) for s in sales] == [(games[0].pk, 2), (games[1].pk, 2)]
    assert len({s.request_key for s in sales}) == 2  # one sale, one key per game
    assert wallet_balance(player=player) == Decimal("60.00")  # the order holds nothing
    assert not Sale.objects.filter(game=later.games.get()).exists()
    assert fills.queued == []  # nothing opened since

    (opened,) = _open(clock, later)

    assert fills.queued == [opened.pk]
    fills.run()
    assert Sale.objects.get(game=opened, buyer=player).quantity == 2
    assert wallet_balance(player=player) == Decimal("40.00")
    ahead.order.refresh_from_db()
    assert ahead.order.end_reason == OrderEnd.COMPLETED


def test_a_retried_purchase_ahead_buys_nothing_more(site: OnlineSetup, clock: Clock) -> None:
    _open(clock, _schedule(site, clock, games=2))
    player = site.player("100.00")
    first = services.online_buy_ahead(
        player=player, online_room=site.online, games=2, quantity=1, key="again"
    )

    retry = services.online_buy_ahead(
        player=player, online_room=site.online, games=2, quantity=1, key="again"
    )

    assert [line.purchase.sales for line in retry.lines if line.purchase] == [
        line.purchase.sales for line in first.lines if line.purchase
    ]
    assert first.order is None  # both games were selling: nothing left to order
    assert Sale.objects.filter(buyer=player).count() == 2
    assert WalletEntry.objects.filter(player=player, kind="purchase").count() == 2


def test_buying_ahead_says_which_games_got_cards_when_the_wallet_runs_short(
    site: OnlineSetup, clock: Clock
) -> None:
    games = _open(clock, _schedule(site, clock, games=2))
    player = site.player("30.00")

    lines = services.online_buy_ahead(
        player=player, online_room=site.online, games=2, quantity=2, key="short"
    ).lines

    assert lines[0].purchase is not None
    assert lines[0].game == games[0]
    assert lines[1].purchase is None
    assert "nada foi comprado" in lines[1].refusal
    assert wallet_balance(player=player) == Decimal("10.00")
    assert not Sale.objects.filter(game=games[1]).exists()


@pytest.mark.parametrize("games", [0, 11])
def test_buying_ahead_is_bounded(site: OnlineSetup, clock: Clock, games: int) -> None:
    _open(clock, _schedule(site, clock, games=1))
    player = site.player("100.00")
    with pytest.raises(ValidationError, match="1 a 10 jogadas"):
        services.online_buy_ahead(player=player, online_room=site.online, games=games, quantity=1, key="k")
    assert not Sale.objects.filter(buyer=player).exists()


def test_another_operator_s_player_cannot_buy_ahead_in_the_room(site: OnlineSetup, clock: Clock) -> None:
    _open(clock, _schedule(site, clock, games=1))
    stranger = OnlineSetup(name="Outra Sala").player("100.00")
    with pytest.raises(ValidationError, match="fechada aos jogadores"):
        services.online_buy_ahead(player=stranger, online_room=site.online, games=1, quantity=1, key="k")
    assert not Sale.objects.filter(buyer=stranger).exists()
    page = logged_in(stranger.user, "pt").post(
        reverse("online:buy_ahead", args=[site.online.pk]), {"games": "1", "quantity": "1", "key": "k"}
    )
    assert page.status_code == 404


def test_the_lobby_s_form_buys_ahead_and_says_which_games_got_cards(site: OnlineSetup, clock: Clock) -> None:
    games = _open(clock, _schedule(site, clock, games=2))
    later = _schedule(site, clock, games=1, start_in=60)
    player = site.player("100.00")

    page = logged_in(player.user, "pt").post(
        reverse("online:buy_ahead", args=[site.online.pk]),
        {"games": "3", "quantity": "3", "key": "form-key"},
        follow=True,
    )

    html = page.content.decode()
    assert f"Comprado: 3 cartões na jogada {games[0].number} por 30 CVE." in html
    assert f"Comprado: 3 cartões na jogada {games[1].number} por 30 CVE." in html
    assert "Encomendado: 3 cartões na próxima jogada, comprados quando abrirem as vendas." in html
    assert wallet_balance(player=player) == Decimal("40.00")
    assert not Sale.objects.filter(game=later.games.get()).exists()


def _continuous(name: str) -> tuple[OnlineSetup, Game]:
    """A continuous room whose game sells now (opened by the online loop, R90)."""
    setup = OnlineSetup(name=name)
    setup.series(1, price="10.00")
    committed(lambda: autodraw_services.online_room_advance(room_id=setup.online.pk))
    return setup, Game.objects.get(session__room=setup.room, state=GameState.SELLING.value)


def test_buying_ahead_in_a_continuous_room_buys_the_game_selling_and_orders_the_rest(
    db: None, clock: Clock, fills: Fills
) -> None:
    """In a continuous room one game sells at a time (R90): buying ahead for 5 games buys in it
    and orders the 4 games not created yet, each bought when its sales open (R93)."""
    room, game = _continuous("Salão Contínuo")
    player = room.player("100.00")

    page = logged_in(player.user, "pt").post(
        reverse("online:buy_ahead", args=[room.online.pk]),
        {"games": "5", "quantity": "2", "key": "cont-key"},
        follow=True,
    )

    html = page.content.decode()
    assert f"Comprado: 2 cartões na jogada {game.number} por 20 CVE." in html
    assert (
        "Encomendado: 2 cartões em cada uma das próximas 4 jogadas, comprados quando abrirem as vendas."
        in html
    )
    order = OnlineOrder.objects.get(player=player)
    assert (order.games_wanted, order.games_filled, order.quantity) == (4, 0, 2)
    assert order.fills_after == game.sales_opened_at  # never fills the game it bought in already
    assert wallet_balance(player=player) == Decimal("80.00")
    # The lobby lists the order with its games left and a button to cancel it.
    lobby = logged_in(player.user, "pt").get(reverse("online:lobby")).content.decode()
    assert f'data-order="{order.pk}" data-order-state="open"' in lobby
    assert "2 cartões por jogada · <span data-games-left>faltam 4 jogadas de 4</span>" in lobby
    assert reverse("online:order_cancel", args=[order.pk]) in lobby
    assert "Cancelar a encomenda" in lobby


def test_the_buy_ahead_form_sent_again_buys_and_orders_nothing_more(
    db: None, clock: Clock, fills: Fills
) -> None:
    room, game = _continuous("Salão Repetido")
    player = room.player("100.00")
    client = logged_in(player.user, "pt")
    form = {"games": "3", "quantity": "1", "key": "same-form"}
    client.post(reverse("online:buy_ahead", args=[room.online.pk]), form)

    again = client.post(reverse("online:buy_ahead", args=[room.online.pk]), form, follow=True)

    assert Sale.objects.filter(buyer=player).count() == 1
    assert OnlineOrder.objects.filter(player=player).count() == 1
    assert wallet_balance(player=player) == Decimal("90.00")
    html = again.content.decode()
    assert f"Comprado: 1 cartão na jogada {game.number} por 10 CVE." in html  # the first answer
    assert "Encomendado: 1 cartão em cada uma das próximas 2 jogadas" in html


def test_an_excluded_player_s_purchase_ahead_orders_nothing(site: OnlineSetup, clock: Clock) -> None:
    """R101: no order from a player a self-exclusion bars; the order's refusal says why."""
    _schedule(site, clock, games=1)  # planned: an order would wait for it
    player = site.player("100.00")
    protection_services.player_self_exclude(player=player, length="1m", confirmed=True)

    ahead = services.online_buy_ahead(player=player, online_room=site.online, games=2, quantity=1, key="exc")

    assert ahead.order is None
    assert "R101" in ahead.order_refusal
    assert not OnlineOrder.objects.filter(player=player).exists()


# --- (e) an excluded player is offered no purchase ------------------------------------------------


def test_an_excluded_player_sees_no_buy_form_only_the_notice_once(site: OnlineSetup, clock: Clock) -> None:
    """R101: a self-excluded player is told why once, in the lobby and on the game page, and
    offered nothing to buy (no buy link, no form to buy ahead, no form on the game page)."""
    games = _open(clock, _schedule(site, clock, games=2))
    player = site.player("100.00")
    protection_services.player_self_exclude(player=player, length="1m", confirmed=True)
    client = logged_in(player.user, "pt")

    lobby = client.get(reverse("online:lobby")).content.decode()
    game = client.get(reverse("online:game", args=[games[0].pk])).content.decode()

    with translation.override("pt"):
        notice = escape(protection_selectors.player_notice(player=player))
    assert "R101" in notice
    for html in (lobby, game):
        assert html.count(notice) == 1  # said once, not again as a refusal
        assert "data-buy" not in html
    assert "Comprar antecipadamente" not in lobby
    assert "Quantos cartões?" not in game
    state = selectors.player_game_state(player=player, game=games[0])
    assert state["choices"]["buy"] is False


def test_a_player_free_to_play_is_offered_the_purchase(site: OnlineSetup, clock: Clock) -> None:
    games = _open(clock, _schedule(site, clock, games=1))
    player = site.player("100.00")
    client = logged_in(player.user, "pt")

    assert "data-buy" in client.get(reverse("online:lobby")).content.decode()
    assert "Quantos cartões?" in client.get(reverse("online:game", args=[games[0].pk])).content.decode()
    assert selectors.player_game_state(player=player, game=games[0])["choices"]["buy"] is True


# --- (f) the same purchase ahead sent again, whatever it did (review of issue 25, point 1) --------


def test_a_repeat_after_every_game_was_bought_and_their_sales_closed_buys_and_orders_nothing(
    site: OnlineSetup, clock: Clock
) -> None:
    """Every game asked for was selling: the first call bought them all and placed no order. Sent
    again once their sales have closed (nothing sells, a later session is planned), it is still
    the same purchase: it answers as the first did and orders nothing."""
    session = _schedule(site, clock, games=2)
    games = _open(clock, session)
    _schedule(site, clock, games=2, start_in=60)  # planned: a new call would order them
    player = site.player("100.00")
    client = logged_in(player.user, "pt")
    form = {"games": "2", "quantity": "1", "key": "tudo-comprado"}
    client.post(reverse("online:buy_ahead", args=[site.online.pk]), form)
    assert Sale.objects.filter(buyer=player).count() == 2
    clock.to(games[0].sales_close_at)
    reconcile()
    assert not any(selectors.game_on_sale(game=g) for g in Game.objects.filter(session=session))

    again = client.post(reverse("online:buy_ahead", args=[site.online.pk]), form, follow=True)

    assert not OnlineOrder.objects.filter(player=player).exists()
    assert Sale.objects.filter(buyer=player).count() == 2
    assert wallet_balance(player=player) == Decimal("80.00")
    html = again.content.decode()
    for game in games:
        assert f"Comprado: 1 cartão na jogada {game.number} por 10 CVE." in html
    assert "Encomendado" not in html


def test_a_repeat_of_a_purchase_ahead_partly_ordered_answers_with_the_first_order(
    site: OnlineSetup, clock: Clock, fills: Fills
) -> None:
    """One game selling bought, the next ordered: sent again after the order filled the game
    that opened since, nothing more is bought or ordered."""
    games = _open(clock, _schedule(site, clock, games=1))
    later = _schedule(site, clock, games=1, start_in=60)
    player = site.player("100.00")
    first = services.online_buy_ahead(
        player=player, online_room=site.online, games=2, quantity=1, key="parte"
    )
    assert first.order is not None
    clock.to(games[0].sales_close_at)
    reconcile()
    (opened,) = _open(clock, later)
    fills.run()

    again = services.online_buy_ahead(
        player=player, online_room=site.online, games=2, quantity=1, key="parte"
    )

    assert again.order == first.order
    assert [line.game for line in again.lines] == [games[0]]
    assert OnlineOrder.objects.filter(player=player).count() == 1
    assert list(Sale.objects.filter(buyer=player).order_by("pk").values_list("game_id", flat=True)) == [
        games[0].pk,
        opened.pk,
    ]


def test_each_room_s_form_has_its_own_key_and_a_key_of_one_room_is_refused_in_another(
    site: OnlineSetup, clock: Clock
) -> None:
    """The lobby renders one key per room's form; a form of room A sent to room B (a stale page,
    or a key reused) gets neither A's answer nor anything in B: it is refused."""
    _open(clock, _schedule(site, clock, games=1))
    _schedule(site, clock, games=1, start_in=60)
    other = services.online_room_create(
        hall=site.hall, name="Online 2", mode=RoomMode.SESSION, ball_interval="2"
    )
    start = clock.now + timedelta(minutes=30)
    services.online_session_schedule(
        online_room=other,
        starts_at=start,
        sales_close_at=start + timedelta(minutes=15),
        scheduled_end=start + timedelta(hours=1),
        games=[services.SessionGame("90", "10.00")],
        user=site.manager,
    )
    player = site.player("100.00")
    client = logged_in(player.user, "pt")

    lobby = client.get(reverse("online:lobby")).content.decode()

    keys = re.findall(r'name="key" value="([^"]+)"', lobby)
    assert len(keys) == 2
    assert len(set(keys)) == 2
    assert len(re.findall(r'id="ahead-[0-9]+-key"', lobby)) == 2  # no id twice on the page
    form = {"games": "2", "quantity": "1", "key": keys[0]}
    client.post(reverse("online:buy_ahead", args=[site.online.pk]), form, follow=True)
    first = OnlineOrder.objects.get(player=player)
    bought = Sale.objects.filter(buyer=player).count()

    stale = client.post(reverse("online:buy_ahead", args=[other.pk]), form, follow=True)

    html = stale.content.decode()
    assert "Esta chave foi usada para outra compra antecipada; nada foi comprado nem encomendado." in html
    assert "Encomendado" not in html
    assert list(OnlineOrder.objects.filter(player=player)) == [first]
    assert Sale.objects.filter(buyer=player).count() == bought
    with pytest.raises(services.OrderKeyReusedError):
        services.online_buy_ahead(player=player, online_room=other, games=2, quantity=1, key=keys[0])


# --- (g) one open order per room (review of issue 25, point 7) -----------------------------------


def test_a_second_order_in_a_room_with_one_open_is_refused_before_anything_is_bought(
    site: OnlineSetup, clock: Clock
) -> None:
    """A player holds one open order per room: buying ahead for games not selling yet while it is
    open is refused before the games selling are bought, saying how to go on; once it is
    cancelled, a new one is taken. The database holds it too."""
    games = _open(clock, _schedule(site, clock, games=1))
    _schedule(site, clock, games=1, start_in=60)
    player = site.player("100.00")
    first = services.online_order_create(player=player, online_room=site.online, games=2, quantity=1, key="a")

    with pytest.raises(ValidationError, match="Já tem uma encomenda aberta nesta sala"):
        services.online_buy_ahead(player=player, online_room=site.online, games=3, quantity=1, key="b")
    with pytest.raises(ValidationError, match="faltam 2 jogadas"):
        services.online_order_create(player=player, online_room=site.online, games=1, quantity=1, key="c")
    with pytest.raises(IntegrityError), transaction.atomic():
        OnlineOrder.objects.create(
            player=player,
            online_room=site.online,
            quantity=1,
            games_wanted=1,
            key="d",
            price=Decimal("10.00"),
            variant="90",
            created_at=clock.now,
        )

    assert not Sale.objects.filter(buyer=player, game=games[0]).exists()
    assert list(OnlineOrder.objects.filter(player=player)) == [first]
    # Buying only in the game selling needs no order: still taken.
    only_now = services.online_buy_ahead(player=player, online_room=site.online, games=1, quantity=1, key="e")
    assert (only_now.lines[0].purchase is not None, only_now.order) == (True, None)
    services.online_order_cancel(player=player, order_id=first.pk)
    second = services.online_order_create(
        player=player, online_room=site.online, games=1, quantity=1, key="f"
    )
    assert second.is_open
