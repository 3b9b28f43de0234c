"""Standing orders (issue 25 point 2): a player's order for a room's next N games, filled as each
game's sales open for every player at once (R93) through the one purchase path (``online_buy``:
R35, R101, the funds, R36's numbered order), nothing held before; a refusal of the player's own
ends it with its reason, the game's side (its sales closed before the fill came, the cards not to
be had) skips the game and the order goes on, the Nth game completes it, the player cancels it, a
room closed to players ends it. R101's bars: test_orders_barred.py; the terms an order pins
(price, variant, pattern) and a session's games filled lowest first: test_orders_terms.py.

The continuous room is driven by the real online loop (``online_reconcile``: the room's advance
opens each next game, the sales close, the balls drawn by their tasks); the fill tasks it queues
after each opening are kept (``fills``) and run as a worker would."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse
from django.utils import translation

from bingo.autodraw import services as autodraw_services
from bingo.common.roles import Role, user_roles_set
from bingo.models import (
    FillSkip,
    Game,
    OnlineOrder,
    OnlineOrderFill,
    OrderEnd,
    Player,
    RoomMode,
    Sale,
    WalletEntry,
)
from bingo.online import selectors, services
from bingo.online.tasks import orders_fill_task
from bingo.players import services as player_services
from bingo.players.selectors import wallet_balance
from tests.autodraw.helpers import (
    Clock,
    OnlineHall,
    Tasks,
    close_sales,
    committed,
    next_game,
    online_buy,
    play_out,
)
from tests.clients import api, logged_in
from tests.factories import UserFactory, adult_player
from tests.online.helpers import Fills, OnlineSetup


@pytest.fixture
def hall(db: None, clock: Clock) -> OnlineHall:
    """A continuous room (R90) selling 90-card online series at 100 CVE a card."""
    hall = OnlineHall(name="Sala das Encomendas")
    hall.series(1, price="100.00")
    return hall


def _player(hall: OnlineHall, name: str, deposit: str = "1000.00") -> Player:
    """A player of ``hall`` who logs in as one (the role), with ``deposit`` in the wallet."""
    user = UserFactory(username=name, roles=[Role.PLAYER])
    return adult_player(user, hall.hall, deposit=deposit, cashier=hall.cashier, reference="CNI 123")


def _leave_in_wallet(hall: OnlineHall, player: Player, amount: str) -> None:
    """Pay the player out at the desk down to ``amount`` (a prize the game paid them included)."""
    excess = wallet_balance(player=player) - Decimal(amount)
    if excess > 0:
        player_services.wallet_withdraw(
            player=player, amount=excess, staff=hall.cashier, reference="CNI 123", key=f"out-{player.pk}"
        )


def _order(hall: OnlineHall, player: Any, *, games: int, quantity: int, key: str = "ordem") -> OnlineOrder:
    return services.online_order_create(
        player=player, online_room=hall.online, games=games, quantity=quantity, key=key
    )


def _mine(game: Game, player: Any) -> list[tuple[int, int]]:
    return [
        (s.first_number, s.last_number)
        for s in Sale.objects.filter(game=game, buyer=player).order_by("series__order_number", "first_number")
    ]


def _fill_opened(hall: OnlineHall, clock: Clock, fills: Fills) -> Game:
    """The loop opens the room's next game (R90); the fill task it queued after the opening runs."""
    game = next_game(hall, clock)
    assert fills.queued == [game.pk]  # queued by the opening itself, after its commit
    fills.run()
    return game


# --- an order for 3 games in a continuous room ----------------------------------------------------


def test_an_order_for_three_games_buys_in_each_next_game_as_its_sales_open(
    hall: OnlineHall, clock: Clock, tasks: Tasks, fills: Fills
) -> None:
    """Each of the next three games gets the order's cards once its sales have opened for
    everyone (R93), numbered after the last card sold of the series (R36-R37), the wallet debited
    each time and never before; the fourth game buys nothing and queues nothing."""
    ana = _player(hall, "ana", deposit="1000.00")
    bia = _player(hall, "bia", deposit="1000.00")
    order = _order(hall, ana, games=3, quantity=2)
    assert wallet_balance(player=ana) == Decimal("1000.00")  # nothing held (R93)

    bought = []
    for round_ in range(3):
        clock.advance(1)
        game = _fill_opened(hall, clock, fills)
        bought.append(_mine(game, ana))
        # The wallet debited for this game's cards, once, as its sales opened (prizes won in
        # the games before are credited apart, R97).
        debits = WalletEntry.objects.filter(player=ana, kind=WalletEntry.Kind.PURCHASE)
        assert [(e.sale.game_id, abs(e.amount)) for e in debits.order_by("seq")][-1] == (game.pk, 200)
        assert debits.count() == round_ + 1
        online_buy(game, bia, 1)  # another player after the order, in the same numbered order
        play_out(clock, tasks, game)

    # R36-R37: each game's sale starts after the last card sold of the series, even in an
    # earlier game: the order's 2 cards, then bia's 1, game after game.
    assert bought == [[(1, 2)], [(4, 5)], [(7, 8)]]
    order.refresh_from_db()
    assert (order.games_filled, order.end_reason, order.is_open) == (3, OrderEnd.COMPLETED, False)
    assert [fill.game.number for fill in order.fills.order_by("pk")] == [1, 2, 3]
    assert all(fill.sale is not None and not fill.refusal for fill in order.fills.all())

    fourth = next_game(hall, clock)

    assert fills.queued == []  # no open order in the room: nothing queued
    assert orders_fill_task(fourth.pk) == 0
    assert not Sale.objects.filter(game=fourth, buyer=ana).exists()
    assert WalletEntry.objects.filter(player=ana, kind=WalletEntry.Kind.PURCHASE).count() == 3


def test_the_fill_task_run_twice_buys_once(hall: OnlineHall, clock: Clock, fills: Fills) -> None:
    ana = _player(hall, "ana")
    order = _order(hall, ana, games=2, quantity=3)
    clock.advance(1)
    game = next_game(hall, clock)

    first = committed(lambda: orders_fill_task(game.pk))
    again = committed(lambda: orders_fill_task(game.pk))
    fills.run()  # the one the opening queued, late: a third run

    assert (first, again) == (1, 0)
    assert _mine(game, ana) == [(1, 3)]
    assert wallet_balance(player=ana) == Decimal("700.00")
    assert OnlineOrderFill.objects.filter(order=order, game=game).count() == 1
    order.refresh_from_db()
    assert order.games_filled == 1


def test_an_order_never_fills_a_game_selling_when_it_was_placed(
    hall: OnlineHall, clock: Clock, tasks: Tasks, fills: Fills
) -> None:
    """An order fills only games whose sales open after it (R93): the game selling when it was
    placed is not one of them (buying ahead buys in that one itself), even if its fill runs."""
    ana = _player(hall, "ana")
    selling = next_game(hall, clock)
    clock.advance(1)
    order = _order(hall, ana, games=1, quantity=1)

    assert orders_fill_task(selling.pk) == 0

    assert not Sale.objects.filter(buyer=ana).exists()
    online_buy(selling, _player(hall, "bia"), 1)
    play_out(clock, tasks, selling)
    following = _fill_opened(hall, clock, fills)
    assert _mine(following, ana) == [(2, 2)]
    order.refresh_from_db()
    assert order.end_reason == OrderEnd.COMPLETED


def test_an_order_never_buys_in_a_game_whose_sales_are_not_open(db: None, clock: Clock, fills: Fills) -> None:
    """A session's game still planned (its sales open at the session's start for everyone, R93):
    its fill buys nothing, the order waits, nothing is debited; once its sales open, it buys."""
    site = OnlineSetup(name="Salão Planeado", mode=RoomMode.SESSION)
    site.series(1, price="10.00")
    start = clock.now + timedelta(minutes=10)
    session = services.online_session_schedule(
        online_room=site.online,
        starts_at=start,
        sales_close_at=start + timedelta(minutes=15),
        scheduled_end=start + timedelta(hours=1),
        games=[services.SessionGame("90", "10.00")],
        user=site.manager,
    )
    planned = session.games.get()
    player = site.player("100.00")
    order = services.online_order_create(
        player=player, online_room=site.online, games=1, quantity=2, key="espera"
    )

    assert committed(lambda: orders_fill_task(planned.pk)) == 0

    assert not Sale.objects.filter(buyer=player).exists()
    assert wallet_balance(player=player) == Decimal("100.00")
    order.refresh_from_db()
    assert order.is_open
    assert not order.fills.exists()

    clock.to(start)
    committed(lambda: autodraw_services.online_room_advance(room_id=site.online.pk))
    assert fills.queued == [planned.pk]
    fills.run()
    assert Sale.objects.get(game=planned, buyer=player).quantity == 2
    assert wallet_balance(player=player) == Decimal("80.00")


# --- what ends an order ---------------------------------------------------------------------------


def test_a_wallet_short_of_the_cost_ends_the_order_with_the_reason_shown_in_the_lobby(
    hall: OnlineHall, clock: Clock, tasks: Tasks, fills: Fills
) -> None:
    ana = _player(hall, "ana", deposit="150.00")
    order = _order(hall, ana, games=3, quantity=1)
    clock.advance(1)
    first = _fill_opened(hall, clock, fills)
    assert _mine(first, ana) == [(1, 1)]
    play_out(clock, tasks, first)
    _leave_in_wallet(hall, ana, "50.00")  # whatever the first game paid her

    second = _fill_opened(hall, clock, fills)

    assert not Sale.objects.filter(game=second, buyer=ana).exists()
    assert wallet_balance(player=ana) == Decimal("50.00")
    order.refresh_from_db()
    assert (order.end_reason, order.games_filled) == (OrderEnd.REFUSED, 1)
    assert "nada foi comprado" in order.end_text
    fill = order.fills.get(game=second)
    assert fill.sale is None
    assert (fill.refusal, fill.skip) == (order.end_text, "")
    lobby = logged_in(ana.user, "pt").get(reverse("online:lobby")).content.decode()
    assert f'data-order="{order.pk}" data-order-state="ended"' in lobby
    assert "Encomenda terminada" in lobby
    assert f'<p class="help" data-refusal>{order.end_text}</p>' in lobby
    # Ended: the next game queues nothing for it.
    online_buy(second, _player(hall, "bia"), 1)
    play_out(clock, tasks, second)
    third = next_game(hall, clock)
    assert fills.queued == []
    assert not Sale.objects.filter(game=third, buyer=ana).exists()


def test_a_fill_that_comes_after_the_game_s_sales_closed_skips_it_and_the_order_goes_on(
    hall: OnlineHall, clock: Clock, tasks: Tasks, fills: Fills
) -> None:
    """R93: at the announced close, sales end for everyone, an order's too: its task run late (a
    worker busy or down through the sales window, the operator's side) buys nothing in that game,
    records the skip with its reason, never tries it again, and the order goes on to the next
    game (review of issue 25, point 3: it used to end the order)."""
    ana = _player(hall, "ana")
    order = _order(hall, ana, games=2, quantity=1)
    clock.advance(1)
    late = next_game(hall, clock)
    online_buy(late, _player(hall, "bia"), 1)
    close_sales(clock, late)

    fills.run()
    assert orders_fill_task(late.pk) == 0  # the skip is recorded: not tried again

    assert not Sale.objects.filter(game=late, buyer=ana).exists()
    order.refresh_from_db()
    assert (order.is_open, order.end_reason, order.games_filled) == (True, "", 0)
    skip = order.fills.get()
    assert (skip.game_id, skip.skip, skip.sale_id, skip.refusal) == (late.pk, FillSkip.NOT_SELLING, None, "")
    lobby = logged_in(ana.user, "pt").get(reverse("online:lobby")).content.decode()
    assert f'data-order="{order.pk}" data-order-state="open"' in lobby
    assert (
        f"Jogada {late.number}: as vendas tinham fechado quando a encomenda veio comprar (R93). "
        "Saltada; a encomenda continua."
    ) in lobby
    history = logged_in(ana.user, "pt").get(reverse("players:history")).content.decode()
    assert f'data-fill-game="{late.pk}" data-fill-result="skipped"' in history

    play_out(clock, tasks, late)
    following = _fill_opened(hall, clock, fills)

    assert _mine(following, ana) == [(2, 2)]
    order.refresh_from_db()
    assert (order.is_open, order.games_filled) == (True, 1)  # one game left of two


def test_an_order_skipped_in_too_many_games_ends_saying_why(
    hall: OnlineHall, clock: Clock, tasks: Tasks, fills: Fills, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Skips never run on for ever: ``ORDER_SKIPS_MAX`` of them end the order, saying why."""
    monkeypatch.setattr(services, "ORDER_SKIPS_MAX", 2)
    ana = _player(hall, "ana")
    order = _order(hall, ana, games=3, quantity=1)
    for _ in range(2):
        clock.advance(1)
        game = next_game(hall, clock)
        online_buy(game, _player(hall, f"bia-{game.pk}"), 1)
        close_sales(clock, game)
        fills.run()
        play_out(clock, tasks, game)

    order.refresh_from_db()
    assert (order.end_reason, order.end_text, order.games_filled) == (OrderEnd.SKIPPED, "", 0)
    assert order.fills.filter(skip=FillSkip.NOT_SELLING).count() == 2
    with translation.override("pt"):
        assert selectors.order_end_text(order).startswith(
            "Nenhuma jogada correspondeu ao preço, variante e padrão da encomenda"
        )
    assert not Sale.objects.filter(buyer=ana).exists()


def test_a_refusal_of_the_game_s_side_skips_it_and_one_of_the_player_s_ends_the_order(
    hall: OnlineHall, clock: Clock, fills: Fills
) -> None:
    """Point 3: only the player's own refusals end an order (here R35, the hall's card limit);
    the cards not to be had (the game's series sold out) skip the game, with what it said."""
    ana, bia = _player(hall, "ana"), _player(hall, "bia", deposit="100000.00")
    short = _order(hall, ana, games=2, quantity=2)
    capped = _order(hall, bia, games=2, quantity=5, key="cap")
    clock.advance(1)
    game = next_game(hall, clock)
    # Every card of the game's series but one sold (90 cards, R36): ana's 2 are not to be had.
    online_buy(game, _player(hall, "carla", deposit="100000.00"), 89)
    # R35: the hall's limit of cards a player holds in a game, set since bia ordered 5.
    hall.hall.__class__.objects.filter(pk=hall.hall.pk).update(card_limit_per_player=4)

    fills.run()

    short.refresh_from_db()
    capped.refresh_from_db()
    assert (short.is_open, short.fills.get().skip) == (True, FillSkip.UNAVAILABLE)
    assert short.fills.get().refusal  # what the sale said, kept with the skip
    assert (capped.is_open, capped.end_reason) == (False, OrderEnd.REFUSED)
    assert "R35" in capped.end_text
    assert not Sale.objects.filter(game=game, buyer__in=[ana, bia]).exists()


def test_a_database_error_on_one_order_leaves_the_next_orders_to_fill(
    hall: OnlineHall, clock: Clock, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Point 3: each order fills in a transaction of its own; a database error on one is logged
    and the orders after it still fill; the task is told which failed, to run again for them,
    and the run again fills it once."""
    ana, bia = _player(hall, "ana"), _player(hall, "bia")
    first = _order(hall, ana, games=1, quantity=1)
    second = _order(hall, bia, games=1, quantity=2, key="depois")
    clock.advance(1)
    game = next_game(hall, clock)
    real_buy = services.online_buy

    def broken(**kwargs: Any) -> services.OnlinePurchase:
        if kwargs["player"] == ana:
            with connection.cursor() as cursor:
                cursor.execute("SELECT * FROM no_such_table")  # the database refuses
        return real_buy(**kwargs)

    monkeypatch.setattr(services, "online_buy", broken)
    with pytest.raises(services.OrdersFillIncompleteError) as failed:
        services.online_orders_fill(game_id=game.pk)

    assert failed.value.order_ids == [first.pk]
    assert f"standing order {first.pk}: the fill in game {game.pk} failed" in caplog.text
    assert Sale.objects.get(game=game, buyer=bia).quantity == 2
    assert not first.fills.exists()
    monkeypatch.setattr(services, "online_buy", real_buy)

    assert len(services.online_orders_fill(game_id=game.pk)) == 1  # the retry: ana alone

    assert Sale.objects.get(game=game, buyer=ana).quantity == 1
    assert Sale.objects.filter(game=game, buyer=bia).count() == 1
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.end_reason, second.end_reason) == (OrderEnd.COMPLETED, OrderEnd.COMPLETED)
    assert orders_fill_task.autoretry_for == (services.OrdersFillIncompleteError,)


def test_the_player_cancels_an_order_and_it_buys_nothing_more(
    hall: OnlineHall, clock: Clock, fills: Fills
) -> None:
    ana = _player(hall, "ana")
    order = _order(hall, ana, games=3, quantity=1)
    client = logged_in(ana.user, "pt")

    page = client.post(reverse("online:order_cancel", args=[order.pk]), follow=True)

    assert "Encomenda cancelada: não compra mais nada." in page.content.decode()
    order.refresh_from_db()
    assert order.end_reason == OrderEnd.CANCELLED
    assert order.cancelled_at is not None
    assert order.ended_at == order.cancelled_at
    clock.advance(1)
    game = next_game(hall, clock)
    assert fills.queued == []
    assert orders_fill_task(game.pk) == 0
    assert not Sale.objects.filter(buyer=ana).exists()
    assert wallet_balance(player=ana) == Decimal("1000.00")  # nothing held, nothing to refund


def test_another_player_s_order_cannot_be_cancelled(hall: OnlineHall, clock: Clock) -> None:
    ana, bia = _player(hall, "ana"), _player(hall, "bia")
    order = _order(hall, ana, games=2, quantity=1)

    page = logged_in(bia.user, "pt").post(reverse("online:order_cancel", args=[order.pk]))
    with pytest.raises(OnlineOrder.DoesNotExist):
        services.online_order_cancel(player=bia, order_id=order.pk)

    assert page.status_code == 404
    order.refresh_from_db()
    assert order.is_open


def test_cancel_takes_a_post_with_its_csrf_token(hall: OnlineHall) -> None:
    ana = _player(hall, "ana")
    order = _order(hall, ana, games=2, quantity=1)
    client = Client(enforce_csrf_checks=True)
    client.force_login(ana.user)

    assert client.get(reverse("online:order_cancel", args=[order.pk])).status_code == 405
    assert client.post(reverse("online:order_cancel", args=[order.pk])).status_code == 403
    order.refresh_from_db()
    assert order.is_open


def test_a_room_closed_to_players_ends_its_orders(hall: OnlineHall, clock: Clock) -> None:
    ana = _player(hall, "ana")
    order = _order(hall, ana, games=2, quantity=1)

    services.online_room_update(online_room=hall.online, active=False)

    order.refresh_from_db()
    assert order.end_reason == OrderEnd.ROOM_CLOSED
    assert order.end_text == ""  # said from the code, in the reader's language (point 6)
    with translation.override("pt"):
        assert selectors.order_end_text(order) == (
            "A sala foi fechada aos jogadores: a encomenda não compra mais nada."
        )


def test_a_manager_closing_the_room_in_english_leaves_the_players_the_reason_in_portuguese(
    hall: OnlineHall, clock: Clock
) -> None:
    """Point 6: the room's closing is stored as its code, not in the words of the manager's
    request (English here, over the API): the player reads it in their own language."""
    ana = _player(hall, "ana")
    order = _order(hall, ana, games=2, quantity=1)
    user_roles_set(user=hall.manager, roles=[Role.MANAGER])

    closed = api(hall.manager, "en").patch(
        f"/api/online/rooms/{hall.online.pk}/", {"active": False}, content_type="application/json"
    )

    assert closed.status_code == 200, closed.content
    order.refresh_from_db()
    assert (order.end_reason, order.end_text) == (OrderEnd.ROOM_CLOSED, "")
    lobby = logged_in(ana.user, "pt").get(reverse("online:lobby")).content.decode()
    assert (
        '<p class="help" data-refusal>A sala foi fechada aos jogadores: a encomenda não compra mais nada.</p>'
        in lobby
    )
    assert "The room was closed" not in lobby
    (listed,) = api(ana.user, "pt").get("/api/online/orders/").json()
    assert listed["end_text"] == "A sala foi fechada aos jogadores: a encomenda não compra mais nada."
    (listed,) = api(ana.user, "en").get("/api/online/orders/").json()
    assert listed["end_text"] == "The room was closed to players: the order buys nothing more."


def test_a_fill_in_a_room_closed_since_ends_the_orders_and_buys_nothing(
    hall: OnlineHall, clock: Clock, fills: Fills
) -> None:
    ana = _player(hall, "ana")
    order = _order(hall, ana, games=2, quantity=1)
    clock.advance(1)
    game = next_game(hall, clock)
    hall.online.__class__.objects.filter(pk=hall.online.pk).update(active=False)  # behind the service

    fills.run()

    assert not Sale.objects.filter(buyer=ana).exists()
    order.refresh_from_db()
    assert order.end_reason == OrderEnd.ROOM_CLOSED
    assert not order.fills.filter(game=game).exists()


# --- placing an order -----------------------------------------------------------------------------


def test_an_order_is_bounded_and_its_key_counts_once(hall: OnlineHall) -> None:
    ana = _player(hall, "ana")
    first = _order(hall, ana, games=3, quantity=2, key="uma")

    assert _order(hall, ana, games=3, quantity=2, key="uma") == first
    with pytest.raises(services.OrderKeyReusedError):
        _order(hall, ana, games=4, quantity=2, key="uma")
    with pytest.raises(ValidationError, match="1 a 10 jogadas"):
        _order(hall, ana, games=11, quantity=1, key="muitas")
    with pytest.raises(ValidationError, match="1000"):
        _order(hall, ana, games=1, quantity=1001, key="cartoes")
    assert OnlineOrder.objects.filter(player=ana).count() == 1


def test_the_database_holds_one_fill_per_order_and_game(hall: OnlineHall, clock: Clock) -> None:
    ana = _player(hall, "ana")
    order = _order(hall, ana, games=2, quantity=1)
    game = next_game(hall, clock)
    OnlineOrderFill.objects.create(order=order, game=game, refusal="x", created_at=clock.now)
    with pytest.raises(IntegrityError), transaction.atomic():
        OnlineOrderFill.objects.create(order=order, game=game, refusal="y", created_at=clock.now)
    with pytest.raises(IntegrityError), transaction.atomic():
        OnlineOrder.objects.filter(pk=order.pk).update(games_filled=3)  # more than wanted


def test_the_history_lists_what_the_orders_bought_and_why_one_ended(
    hall: OnlineHall, clock: Clock, tasks: Tasks, fills: Fills
) -> None:
    ana = _player(hall, "ana", deposit="150.00")
    _order(hall, ana, games=2, quantity=1)
    clock.advance(1)
    first = _fill_opened(hall, clock, fills)
    play_out(clock, tasks, first)
    _leave_in_wallet(hall, ana, "50.00")
    second = _fill_opened(hall, clock, fills)

    html = logged_in(ana.user, "pt").get(reverse("players:history")).content.decode()

    assert "Encomendas" in html
    assert f'data-fill-game="{first.pk}" data-fill-result="bought"' in html
    assert f'data-fill-game="{second.pk}" data-fill-result="refused"' in html
    assert "nada foi comprado" in html


# --- the API --------------------------------------------------------------------------------------


def test_the_api_places_lists_and_cancels_the_player_s_orders(
    hall: OnlineHall, clock: Clock, fills: Fills
) -> None:
    ana = _player(hall, "ana")
    client = api(ana.user)

    made = client.post(
        "/api/online/orders/",
        {"room": hall.online.pk, "games": 2, "quantity": 3, "key": "api-1"},
        content_type="application/json",
    )
    again = client.post(
        "/api/online/orders/",
        {"room": hall.online.pk, "games": 2, "quantity": 3, "key": "api-1"},
        content_type="application/json",
    )
    reused = client.post(
        "/api/online/orders/",
        {"room": hall.online.pk, "games": 5, "quantity": 3, "key": "api-1"},
        content_type="application/json",
    )

    assert made.status_code == 201, made.content
    body = made.json()
    assert (body["room"], body["games_wanted"], body["quantity"], body["games_left"], body["open"]) == (
        hall.online.pk,
        2,
        3,
        2,
        True,
    )
    assert again.json()["id"] == body["id"]
    assert reused.status_code == 409
    assert OnlineOrder.objects.filter(player=ana).count() == 1
    clock.advance(1)
    game = next_game(hall, clock)
    fills.run()
    listed = client.get("/api/online/orders/").json()
    assert [(o["id"], o["games_filled"]) for o in listed] == [(body["id"], 1)]
    assert listed[0]["fills"] == [
        {
            "game": game.pk,
            "game_number": game.number,
            "sale": Sale.objects.get(game=game, buyer=ana, part=1).pk,
            "cards": 3,
            "refusal": "",
            "skip": "",
            "note": "",
            "created_at": listed[0]["fills"][0]["created_at"],
        }
    ]

    cancelled = client.post(f"/api/online/orders/{body['id']}/cancel/")

    assert cancelled.status_code == 200
    assert (cancelled.json()["end_reason"], cancelled.json()["open"]) == ("cancelled", False)
    assert client.post(f"/api/online/orders/{body['id']}/cancel/").status_code == 200  # once is enough


def test_the_api_refuses_bad_orders_with_a_reason_and_orders_nothing(hall: OnlineHall) -> None:
    ana = _player(hall, "ana")
    client = api(ana.user)
    other = OnlineHall(name="Outra Sala")

    too_many = client.post(
        "/api/online/orders/",
        {"room": hall.online.pk, "games": 11, "quantity": 1, "key": "k1"},
        content_type="application/json",
    )
    elsewhere = client.post(
        "/api/online/orders/",
        {"room": other.online.pk, "games": 1, "quantity": 1, "key": "k2"},
        content_type="application/json",
    )

    assert too_many.status_code == 400
    assert "games" in too_many.json()
    assert elsewhere.status_code == 400
    assert "room" in elsewhere.json()
    assert not OnlineOrder.objects.exists()


def test_the_order_api_is_the_player_s_own(hall: OnlineHall) -> None:
    """Role-checked as the other player endpoints: anyone else 403 (a manager included), no login
    401/403; another player's order is a 404 and stays open."""
    ana, bia = _player(hall, "ana"), _player(hall, "bia")
    order = _order(hall, ana, games=2, quantity=1)

    anonymous = api(None)
    manager = api(hall.manager)
    assert anonymous.get("/api/online/orders/").status_code in (401, 403)
    assert manager.get("/api/online/orders/").status_code == 403
    assert manager.post(f"/api/online/orders/{order.pk}/cancel/").status_code == 403
    assert api(bia.user).get("/api/online/orders/").json() == []
    assert api(bia.user).post(f"/api/online/orders/{order.pk}/cancel/").status_code == 404
    order.refresh_from_db()
    assert order.is_open
