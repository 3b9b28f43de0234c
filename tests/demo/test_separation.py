"""Demo and real money never mix (R102, PT-803/44: demo prizes are only more free play, never
converted to money, vouchers or goods). These tests try to move value across and fail: demo
credits cannot buy a real game's cards, a demo credit cannot be posted into the wallet nor a
wallet amount into the demo ledger (services, API with forged parameters, raw SQL on
PostgreSQL), the demo ledger cannot be rewritten, and demo games leave the hall's sales, series,
draw records, actas, jackpot and wallets exactly as they were."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Sum

from actas.models import ActaEntry
from bingo.common.roles import Role, user_roles_set
from bingo.demo import selectors, services
from bingo.engine import generate_card_set
from bingo.engine.demo import demo_draw, demo_outcome
from bingo.games.services import game_plan_check
from bingo.models import (
    Ball,
    DemoCreditEntry,
    DemoGame,
    Game,
    Player,
    Prize,
    PrizePayment,
    Refund,
    Sale,
    WalletEntry,
)
from bingo.online import services as online_services
from bingo.players import services as player_services
from bingo.players.selectors import wallet_balance
from cards.models import Series
from halls.models import Jackpot, JackpotMovement
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, committed, next_game, online_buy, play_out
from tests.clients import logged_in
from tests.db_roles import as_table_owner
from tests.factories import UserFactory, adult_player


@pytest.fixture
def lobby(db: None) -> OnlineHall:
    lobby = OnlineHall()
    lobby.series(1, price="100.00")
    return lobby


def _demo_player(lobby: OnlineHall, name: str, wallet: str) -> Player:
    if Decimal(wallet) > 0:
        player = lobby.player(name, deposit=wallet)
    else:
        player = adult_player(UserFactory(username=name), lobby.hall)
    user_roles_set(user=player.user, roles=[Role.PLAYER])
    services.demo_credit_grant(player=player)
    return player


def test_r102_demo_credits_cannot_buy_a_real_games_cards(lobby: OnlineHall, clock: Clock) -> None:
    """A player with 0 in the wallet and 1,000 demo credits is refused by the real purchase,
    through the service and through the API with forged parameters; nothing is sold."""
    game = next_game(lobby, clock)
    player = _demo_player(lobby, "demo-only", "0")
    assert selectors.demo_balance(player=player) == 1000
    assert wallet_balance(player=player) == 0
    last_sold = Series.objects.get(hall=lobby.hall).last_sold
    with pytest.raises(ValidationError):
        online_services.online_buy(player=player, game=game, quantity=1, key="real-1")
    forged = {"quantity": 1, "key": "real-2", "pay_with": "demo", "demo_credits": 1000, "credits": 1000}
    answer = logged_in(player.user, "en").post(
        f"/api/online/games/{game.pk}/purchases/", forged, content_type="application/json"
    )
    assert answer.status_code == 400
    assert not Sale.objects.exists()
    assert Series.objects.get(hall=lobby.hall).last_sold == last_sold  # R36: no real card consumed
    assert selectors.demo_balance(player=player) == 1000
    assert wallet_balance(player=player) == 0


def test_r102_a_demo_credit_cannot_be_posted_into_the_wallet_nor_money_into_demo(lobby: OnlineHall) -> None:
    player = _demo_player(lobby, "ana", "100.00")
    before = list(WalletEntry.objects.values_list("pk", "balance_after"))
    # The wallet's one writer knows no demo kinds...
    for kind in ("grant", "win", "stake", "demo"):
        with pytest.raises(ValidationError), transaction.atomic():
            player_services.wallet_post(
                player=player, kind=kind, amount=Decimal("1000.00"), key=f"demo-{kind}"
            )
    # ...and its credits need a real prize payment, refund or a cashier's deposit (database checks).
    for kind in ("prize", "refund", "deposit"):
        with pytest.raises(IntegrityError), transaction.atomic():
            player_services.wallet_post(player=player, kind=kind, amount=Decimal("1000.00"), key=f"x-{kind}")
    assert list(WalletEntry.objects.values_list("pk", "balance_after")) == before
    # The demo ledger's one writer knows no money kinds, nor amounts of money.
    for kind in ("deposit", "withdrawal", "prize", "refund", "purchase", "transfer"):
        with pytest.raises(ValidationError):
            services.demo_credit_post(player=player, kind=kind, credits=100, key=f"m-{kind}")
    for credits in (Decimal("100.00"), 100.5, "100", True, 0, -5):
        with pytest.raises(ValidationError):
            services.demo_credit_post(player=player, kind="grant", credits=credits, key="m-amount")
    assert selectors.demo_balance(player=player) == 1000
    assert DemoCreditEntry.objects.filter(player=player).count() == 1


def test_r102_the_api_moves_nothing_across_whatever_the_parameters(lobby: OnlineHall) -> None:
    player = _demo_player(lobby, "rui", "100.00")
    client = logged_in(player.user, "en")
    wallet_before = wallet_balance(player=player)
    # A grant with forged money parameters gives nothing (the balance can still pay a card).
    assert (
        client.post(
            "/api/demo/grants/",
            {"amount": "1000.00", "to": "wallet", "credits": 99999},
            content_type="application/json",
        ).status_code
        == 400
    )
    # A demo game with forged wallet parameters stakes demo credits only.
    forged = {"room": lobby.online.pk, "cards": 2, "key": "f1", "pay_with": "wallet", "amount": "50.00"}
    assert client.post("/api/demo/games/", forged, content_type="application/json").status_code == 201
    assert selectors.demo_balance(player=player) == 1000 - 2 * selectors.DEMO_CARD_PRICE
    assert wallet_balance(player=player) == wallet_before
    # No endpoint converts or moves demo credits: withdrawals, transfers and deposits are not there
    # for demo, and the wallet's deposits are a cashier's, never the player's.
    for path in (
        "/api/demo/withdrawals/",
        "/api/demo/transfers/",
        "/api/demo/deposits/",
        "/api/demo/cashout/",
    ):
        assert client.post(path, {"credits": 100}).status_code == 404
    deposit = client.post(
        f"/api/players/{player.pk}/deposits/",
        {"amount": "1000.00", "key": "d", "reference": "x"},
        content_type="application/json",
    )
    assert deposit.status_code == 403
    assert wallet_balance(player=player) == wallet_before


def _pg_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the ledgers' triggers and raw SQL checks exist on PostgreSQL only")


@pytest.mark.postgres
def test_r102_raw_sql_cannot_mix_the_ledgers_nor_rewrite_demo_credits(lobby: OnlineHall) -> None:
    _pg_only()
    player = _demo_player(lobby, "eva", "100.00")
    game = services.demo_game_start(player=player, online_room=lobby.online, cards=1, key="g")
    with connection.cursor() as cursor:
        cursor.execute("SELECT seq, balance_after FROM bingo_walletentry WHERE player_id = %s", [player.pk])
        wallet_rows = cursor.fetchall()
    # A wallet entry carrying demo value: no demo kind exists in the wallet, and a credit needs a
    # real prize payment, refund or cashier.
    for kind in ("win", "grant", "prize", "refund", "deposit"):
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO bingo_walletentry (player_id, seq, kind, amount, balance_after, reference, key,"
                " created_at) VALUES (%s, 2, %s, 1000, 1100, '', %s, now())",
                [player.pk, kind, f"demo-win-{game.pk}"],
            )
    # The demo ledger is insert-only and chained: no UPDATE, no DELETE (refused to its owner by
    # trigger, to the app's role by privilege before: tests/common/test_db_roles.py), no forged
    # balance.
    for sql in (
        "UPDATE bingo_democreditentry SET credits = 100000, balance_after = 100000 WHERE player_id = %s",
        "DELETE FROM bingo_democreditentry WHERE player_id = %s AND kind = 'stake'",
    ):
        with (
            as_table_owner(),
            pytest.raises(IntegrityError),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, [player.pk])
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO bingo_democreditentry"
            " (player_id, seq, kind, credits, balance_after, key, created_at)"
            " VALUES (%s, 3, 'grant', 1000, 99999, 'forged', now())",
            [player.pk],
        )
    with connection.cursor() as cursor:
        cursor.execute("SELECT seq, balance_after FROM bingo_walletentry WHERE player_id = %s", [player.pk])
        assert cursor.fetchall() == wallet_rows
    assert list(DemoCreditEntry.objects.filter(player=player).values_list("seq", "balance_after")) == [
        (1, 1000),
        (2, 1000 - selectors.DEMO_CARD_PRICE),
    ]


def _winning_seed(lobby: OnlineHall) -> int:
    """A seed for the cards and the balls with which the player's 6 demo cards win a prize
    (found with the engine, so the test credits a win whatever the run)."""
    variant, plan, rules = game_plan_check(
        variant=lobby.online.variant, prize_plan=None, jackpot_active=False
    )
    for seed in range(100):
        cells = generate_card_set(variant, 6 + selectors.DEMO_OTHER_CARDS, seed).cells
        balls = demo_draw(variant, random.Random(seed))
        if demo_outcome(rules, plan, list(cells), balls, selectors.DEMO_CARD_PRICE).won_by(range(6)):
            return seed
    raise AssertionError("no winning seed")


def _books(lobby: OnlineHall) -> dict[str, object]:
    return {
        "sales": list(
            Sale.objects.order_by("pk").values_list(
                "pk", "series_id", "first_number", "last_number", "amount"
            )
        ),
        "series": list(Series.objects.order_by("pk").values_list("pk", "last_sold", "status")),
        "games": list(Game.objects.order_by("pk").values_list("pk", "state")),
        "balls": Ball.objects.count(),
        "prizes": Prize.objects.count(),
        "payments": PrizePayment.objects.count(),
        "refunds": Refund.objects.count(),
        "actas": list(ActaEntry.objects.order_by("pk").values_list("pk", flat=True)),
        "jackpot": list(Jackpot.objects.order_by("pk").values_list("pk", "balance")),
        "jackpot_movements": JackpotMovement.objects.count(),
        "wallet": list(WalletEntry.objects.order_by("pk").values_list("pk", "balance_after")),
        "wallet_total": WalletEntry.objects.aggregate(s=Sum("amount"))["s"],
    }


def test_r102_demo_games_leave_the_real_books_unchanged(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    """A real game is played to the end (sales, balls, prize paid to a wallet, acta); then demo
    games are played through the services and the API, won and credited: the hall's books are
    exactly as they were."""
    real = next_game(lobby, clock)
    buyer = lobby.player("real-buyer")
    online_buy(real, buyer, 2)
    real = play_out(clock, tasks, real)
    assert real.state == "finished"
    assert ActaEntry.objects.exists()
    assert PrizePayment.objects.exists()
    following = next_game(lobby, clock)
    player = _demo_player(lobby, "practice", "100.00")  # a wallet of 100 and 1,000 demo credits
    before = _books(lobby)

    client = logged_in(player.user, "en")
    seed = _winning_seed(lobby)
    games = [
        committed(
            lambda i=i: services.demo_game_start(
                player=player,
                online_room=lobby.online,
                cards=6,
                key=f"s{i}",
                seed=seed if i == 0 else None,
                rng=random.Random(seed) if i == 0 else None,
            )
        )
        for i in range(4)
    ]
    assert games[0].winnings > 0
    made = client.post(
        "/api/demo/games/",
        {"room": lobby.online.pk, "cards": 6, "key": "api"},
        content_type="application/json",
    )
    assert made.status_code == 201
    games.append(DemoGame.objects.get(pk=made.json()["game"]["id"]))
    clock.advance(600)
    for game in games:
        assert client.get(f"/api/demo/games/{game.pk}/").json()["game"]["state"] == "finished"
    won = sum(g.winnings for g in games)
    assert selectors.demo_balance(player=player) == 1000 - 5 * 6 * selectors.DEMO_CARD_PRICE + won

    after = _books(lobby)
    assert after == before
    assert following.sales.count() == 0
