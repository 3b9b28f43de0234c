"""The one lock order (docs/architecture.md, "Lock order") on PostgreSQL, with real threads, each
with its own connection: sales racing the close of their game never deadlock.

A sale used to lock the series, then (its row's foreign key checked at commit) wait for a key
share of the game, while the close locked the game FOR UPDATE, then waited for the series:
«deadlock detected», a sale answered with a 500, or the close itself failed and the game stayed
on sale (issue 20). Now every path takes the game before its series, and every lock of the order
is FOR NO KEY UPDATE, which a key share never waits for: each purchase either went through
before the close (and the close counted it) or was refused as the game no longer sells.
A fault on a game still selling closes its sales in a transaction of its own before its
annulment takes the buyers' wallets (an online purchase holds its wallet while it waits for the
series, issue 23). Skipped on SQLite."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from functools import partial
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone, translation

from bingo.autodraw import services as autodraw_services
from bingo.complaints import services as complaint_services
from bingo.draw import services as draw_services
from bingo.faults import services as fault_services
from bingo.games import services as game_services
from bingo.models import Game, GameSeries, PlayerComplaint, Refund, Sale, WalletEntry
from bingo.online import services as online_services
from bingo.players.selectors import wallet_balance
from bingo.sales import services as sales_services
from halls.models import CashDesk
from tests.concurrency import postgresql_only, run_threads
from tests.online.helpers import OnlineSetup
from tests.sales.test_services import HallSetup

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

#: Six buyers, as in the report (issue 20): each buys one card at a time until refused.
BUYERS = 6
#: At most this many purchases each: 6 x 14 = 84 of the series' 90 cards, never sold out.
ROUNDS = 14


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    postgresql_only("row locks and deadlock detection are PostgreSQL's")


def _not_selling(game: Game) -> str:
    """The refusal of a sale once the game's sales have closed."""
    with translation.override("en"):
        return translation.gettext("Game %(n)d is not selling cards.") % {"n": game.number}


def race(game: Game, buy: Callable[[int, int], object], close: Callable[[], object]) -> list[int]:
    """``BUYERS`` threads call ``buy(buyer, round)`` one card at a time until refused, while
    another calls ``close()`` 0.4 s in (or once 12 cards are sold, if sooner). Returns how many
    purchases each buyer had refused; fails on any other error, in a buyer or in the close."""
    refusal = _not_selling(game)
    refused = [0] * BUYERS

    def buyer(index: int) -> None:
        with translation.override("en"):
            for n in range(ROUNDS):
                try:
                    buy(index, n)
                except ValidationError as exc:
                    if exc.messages != [refusal]:
                        raise
                    refused[index] += 1
                    return

    def closer() -> None:
        began = time.monotonic()
        while time.monotonic() - began < 0.4 and Sale.objects.filter(game=game).count() < 12:
            time.sleep(0.01)
        close()

    run_threads([*(partial(buyer, i) for i in range(BUYERS)), closer])
    return refused


def assert_closed_after_every_sale(game: Game, refused: list[int]) -> int:
    """The close succeeded and came mid-stream; every sale is before it and counted in it, in
    number order with no gap. Returns the cards sold."""
    game.refresh_from_db()
    assert game.state != Game.State.SELLING
    assert game.sales_closed_at is not None
    assert sum(refused) > 0, "the close came after the buyers had finished: no race"
    sales = list(Sale.objects.filter(game=game).order_by("first_number"))
    assert sales, "the close came before any sale: no race"
    assert all(s.created_at <= game.sales_closed_at for s in sales)
    numbers = [n for s in sales for n in range(s.first_number, s.last_number + 1)]
    assert numbers == list(range(1, len(numbers) + 1))
    entry = GameSeries.objects.get(game=game, position=1)
    assert entry.last_number == len(numbers)  # R40: the close counted every card sold
    return len(numbers)


def test_online_purchases_racing_the_close_all_succeed_or_are_refused_never_deadlock() -> None:
    site = OnlineSetup(name="Sala Corrida do Fecho")
    game = site.game(site.series(1))
    players = [site.player("1000.00") for _ in range(BUYERS)]

    def buy(index: int, n: int) -> None:
        online_services.online_buy(player=players[index], game=game, quantity=1, key=f"p{index}-{n}")

    refused = race(game, buy, lambda: game_services.game_close_sales(game=game, user=site.manager))

    sold = assert_closed_after_every_sale(game, refused)
    paid = Decimal(0)
    for player in players:
        cards = sum(s.quantity for s in Sale.objects.filter(game=game, buyer=player))
        debits = -sum(e.amount for e in WalletEntry.objects.filter(player=player, kind="purchase"))
        assert debits == cards * Decimal("10.00")
        assert wallet_balance(player=player) == Decimal("1000.00") - debits
        paid += debits
    assert paid == sold * Decimal("10.00")


def test_a_fault_on_a_selling_game_racing_its_buyers_never_deadlocks_and_refunds_every_card() -> None:
    """R98 while players buy again: a purchase holds its buyer's wallet while it waits for the
    series, and the fault refunds the buyers' wallets, so the fault closes the sales in a
    transaction of its own before its annulment takes the wallets (docs/architecture.md, "Lock
    order"). Every purchase went through before the close or was refused; the game is null and
    every card sold refunded: each wallet holds its deposit again."""
    site = OnlineSetup(name="Sala Avaria em Venda")
    game = site.game(site.series(1))
    players = [site.player("1000.00") for _ in range(BUYERS)]

    def buy(index: int, n: int) -> None:
        online_services.online_buy(player=players[index], game=game, quantity=1, key=f"f{index}-{n}")

    refused = race(
        game, buy, lambda: fault_services.online_game_fault(game=game, user=site.manager, reason="Servidor")
    )

    sold = assert_closed_after_every_sale(game, refused)
    assert game.state == Game.State.ANNULLED
    sales = Sale.objects.filter(game=game)
    assert Refund.objects.filter(game=game).count() == sales.count()
    assert sum(s.quantity for s in sales) == sold
    for player in players:
        assert wallet_balance(player=player) == Decimal("1000.00")


@pytest.mark.parametrize("limit", [None, 100], ids=["fast-path", "locked-path"])
def test_desk_sales_racing_the_close_all_succeed_or_are_refused_never_deadlock(limit: int | None) -> None:
    """Both desk paths: the one-statement sale, and the locked one a hall's limit of cards per
    player (R35) takes."""
    site = HallSetup(name="Sala Balcão do Fecho", card_limit_per_player=limit)
    game = site.game(site.series(1))
    desks = [CashDesk.objects.create(hall=site.hall, name=f"Caixa {i + 10}") for i in range(BUYERS)]

    def buy(index: int, n: int) -> None:
        sales_services.sale_make(
            game=game, quantity=1, cash_desk=desks[index], cashier=site.cashier,
            cash_received=Decimal("100"), request_key=f"d{index}-{n}", player=f"Jogador {index}",
        )  # fmt: skip

    refused = race(game, buy, lambda: game_services.game_close_sales(game=game))

    sold = assert_closed_after_every_sale(game, refused)
    assert sum(s.amount for s in Sale.objects.filter(game=game)) == sold * Decimal("100.00")


def test_the_reconcilers_close_racing_purchases_never_deadlocks() -> None:
    """R93: the reconciler closes the sales at the announced moment (``online_game_sales_close``,
    the session's lock first) while players are still buying."""
    site = OnlineSetup(name="Sala Corrida do Reconciliador")
    game = site.game(site.series(1))
    autodraw_services.system_user(hall=site.hall)
    players = [site.player("1000.00") for _ in range(BUYERS)]

    def buy(index: int, n: int) -> None:
        online_services.online_buy(player=players[index], game=game, quantity=1, key=f"r{index}-{n}")

    def reconcile() -> None:
        Game.objects.filter(pk=game.pk).update(sales_close_at=timezone.now() - timedelta(microseconds=1))
        assert [g.pk for g in autodraw_services.online_game_sales_close(game_id=game.pk)] == [game.pk]

    refused = race(game, buy, reconcile)

    assert_closed_after_every_sale(game, refused)
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING  # and the draw started (online_session_draw_next)
    for player in players:
        cards = sum(s.quantity for s in Sale.objects.filter(game=game, buyer=player))
        debits = -sum(e.amount for e in WalletEntry.objects.filter(player=player, kind="purchase"))
        assert debits == cards * Decimal("10.00")


def test_a_complaint_written_in_the_acta_while_its_game_is_annulled_never_deadlocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Why every lock of the order is FOR NO KEY UPDATE: a complaint (R61 j)) takes the acta's
    lock, and its rows name the game, whose key share is taken at commit (Django's foreign keys
    are checked then). An annulment holding the game waits for the acta; with the game locked
    FOR UPDATE the complaint's commit would wait for the annulment: each for the other."""
    site = OnlineSetup(name="Sala Reclamação")
    game = site.game(site.series(1))
    player = site.player("100.00")
    online_services.online_buy(player=player, game=game, quantity=1, key="k")
    game_services.game_close_sales(game=game, user=site.manager)
    system = autodraw_services.system_user(hall=site.hall)
    # R57 annuls for a wrong announcement of the numbers: a ball is out (R55: before the first
    # ball, a failure only suspends the game).
    game = draw_services.game_start_draw(game=game, user=system)
    draw_services.game_draw_ball(game=game, user=system, position=1)
    held = threading.Event()
    real_note = complaint_services.acta_note_record

    def slow_note(**kwargs: Any) -> Any:
        note = real_note(**kwargs)  # the acta is locked until the complaint commits
        held.set()
        time.sleep(1.5)  # the annulment is under way: it holds the game and waits for the acta
        return note

    monkeypatch.setattr(complaint_services, "acta_note_record", slow_note)

    def complain() -> None:
        complaint_services.complaint_file(player=player, game=game, text="A bola 7 saiu duas vezes.")

    def annul() -> None:
        held.wait(10)
        draw_services.game_annul(game=game, user=site.manager, reason="Erro no anúncio dos números (R57)")

    run_threads([complain, annul], timeout=30, together=False)
    game.refresh_from_db()
    assert game.state == Game.State.ANNULLED
    assert PlayerComplaint.objects.filter(player=player, game=game).count() == 1
    assert wallet_balance(player=player) == Decimal("100.00")  # the card refunded
