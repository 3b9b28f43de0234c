"""Issue 20's report, replayed as it happened: players and cashiers buy through two uvicorn worker
processes on PostgreSQL while a manager closes the game's sales through the API 0.4 s in. With
the sale locking the series before the game and the close the game before the series, a few
purchases answered 500 («deadlock detected») and, once, the close itself failed and the game
stayed on sale. Now every request answers 201 or the refusal of a game no longer selling, the
close answers 200, and every sale comes before ``sales_closed_at`` and is counted in it.

Everything is real: two ASGI processes (as two ``bingo-web@`` units behind the proxy), logged-in
sessions, CSRF, the API, each request in its own database connection. Skipped without
PostgreSQL and Redis (other processes cannot share SQLite's in-memory test database)."""

from __future__ import annotations

import http.client
import json
import secrets
import time
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User

from bingo.common.roles import Role, user_roles_set
from bingo.models import Game, GameSeries, Sale, WalletEntry
from bingo.players.selectors import wallet_balance
from halls.models import CashDesk, StaffMembership
from tests.concurrency import run_threads
from tests.factories import UserFactory
from tests.live.test_consumers import _session_cookie
from tests.online.helpers import OnlineSetup
from tests.sales.test_services import HallSetup
from tests.test_topology import asgi_workers, isolated_env, real_services  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

#: As in the report: six buyers, one card at a time (here until refused, at most 14 each).
BUYERS = 6
ROUNDS = 14


class Browser:
    """A logged-in user's cookies and CSRF token, as their browser would send them."""

    def __init__(self, user: User) -> None:
        token = secrets.token_hex(16)  # 32 characters: a CSRF secret, as the cookie holds it
        self.headers = {
            "Cookie": "; ".join(
                [
                    _session_cookie(user).decode(),
                    f"{settings.CSRF_COOKIE_NAME}={token}",
                    f"{settings.LANGUAGE_COOKIE_NAME}=en",
                ]
            ),
            "X-CSRFToken": token,
            "Content-Type": "application/json",
        }

    def post(
        self, address: str, path: str, body: dict[str, Any] | None = None, **headers: str
    ) -> tuple[int, Any]:
        client = http.client.HTTPConnection(address, timeout=60)
        try:
            client.request("POST", path, body=json.dumps(body or {}), headers={**self.headers, **headers})
            response = client.getresponse()
            data = response.read()
            return response.status, json.loads(data) if data.startswith((b"{", b"[")) else data
        finally:
            client.close()


def race(
    addresses: list[str], game: Game, buy: Callable[[int, int], tuple[int, Any]], close: Browser
) -> list[tuple[int, Any]]:
    """``BUYERS`` threads send ``buy(buyer, round)`` until refused while the manager's browser
    closes the sales through the API 0.4 s in (or once 12 cards are sold, if sooner). Returns
    every answer to a purchase; fails unless the close answered 200."""
    answers: list[tuple[int, Any]] = []
    closed: list[tuple[int, Any]] = []

    def buyer(index: int) -> None:
        for n in range(ROUNDS):
            status, body = buy(index, n)
            answers.append((status, body))
            if status != 201:
                return

    def closer() -> None:
        began = time.monotonic()
        while time.monotonic() - began < 0.4 and Sale.objects.filter(game=game).count() < 12:
            time.sleep(0.01)
        closed.append(close.post(addresses[0], f"/api/games/{game.pk}/close-sales/"))

    run_threads([*(partial(buyer, i) for i in range(BUYERS)), closer], timeout=180)
    assert [status for status, _body in closed] == [200], closed
    return answers


def assert_every_answer_a_sale_or_the_refusal(answers: list[tuple[int, Any]], game: Game) -> None:
    refusal = {"non_field_errors": [f"Game {game.number} is not selling cards."]}
    assert {status for status, _body in answers} <= {201, 400}, [a for a in answers if a[0] not in (201, 400)]
    assert all(body == refusal for status, body in answers if status == 400), answers
    assert any(status == 400 for status, _body in answers), "the close came after the buyers: no race"
    assert any(status == 201 for status, _body in answers), "the close came before any sale: no race"


def assert_closed_after_every_sale(game: Game) -> int:
    game.refresh_from_db()
    assert game.state == Game.State.SALES_CLOSED
    assert game.sales_closed_at is not None
    sales = list(Sale.objects.filter(game=game).order_by("first_number"))
    assert all(s.created_at <= game.sales_closed_at for s in sales)
    numbers = [n for s in sales for n in range(s.first_number, s.last_number + 1)]
    assert numbers == list(range(1, len(numbers) + 1))  # R36: in order, none skipped or twice
    assert GameSeries.objects.get(game=game, position=1).last_number == len(numbers)  # R40
    return len(numbers)


def test_online_purchases_on_two_workers_racing_the_close_never_answer_500(asgi_workers: list[str]) -> None:  # noqa: F811
    site = OnlineSetup(name="Sala Fecho HTTP")
    game = site.game(site.series(1))
    players = [site.player("1000.00") for _ in range(BUYERS)]
    browsers = [Browser(p.user) for p in players]
    user_roles_set(user=site.manager, roles=[Role.MANAGER])

    def buy(index: int, n: int) -> tuple[int, Any]:
        address = asgi_workers[index % 2]
        path = f"/api/online/games/{game.pk}/purchases/"
        return browsers[index].post(address, path, {"quantity": 1, "key": f"h{index}-{n}"})

    answers = race(asgi_workers, game, buy, Browser(site.manager))

    assert_every_answer_a_sale_or_the_refusal(answers, game)
    sold = assert_closed_after_every_sale(game)
    assert sold == sum(status == 201 for status, _body in answers)
    for player in players:
        cards = sum(s.quantity for s in Sale.objects.filter(game=game, buyer=player))
        debits = -sum(e.amount for e in WalletEntry.objects.filter(player=player, kind="purchase"))
        assert debits == cards * Decimal("10.00")
        assert wallet_balance(player=player) == Decimal("1000.00") - debits


@pytest.mark.parametrize("limit", [None, 100], ids=["fast-path", "locked-path"])
def test_desk_sales_on_two_workers_racing_the_close_never_answer_500(
    asgi_workers: list[str],  # noqa: F811
    limit: int | None,
) -> None:
    """Both desk paths: the one-statement sale, and the locked one a hall's limit of cards per
    player (R35) takes."""
    site = HallSetup(name="Sala Balcão HTTP", card_limit_per_player=limit)
    user_roles_set(user=site.cashier, roles=[Role.CASHIER])
    game = site.game(site.series(1))
    manager = UserFactory(username="gerente-balcao-http", roles=[Role.MANAGER])
    StaffMembership.objects.create(hall=site.hall, user=manager, role=Role.MANAGER.value)
    desks = [CashDesk.objects.create(hall=site.hall, name=f"Caixa {i + 10}") for i in range(BUYERS)]
    cashier = Browser(site.cashier)

    def buy(index: int, n: int) -> tuple[int, Any]:
        address = asgi_workers[index % 2]
        body = {"quantity": 1, "cash_desk": desks[index].pk, "cash_received": "100.00", "player": f"J{index}"}
        return cashier.post(
            address, f"/api/games/{game.pk}/sales/", body, **{"Idempotency-Key": f"d{index}-{n}"}
        )

    answers = race(asgi_workers, game, buy, Browser(manager))

    assert_every_answer_a_sale_or_the_refusal(answers, game)
    assert assert_closed_after_every_sale(game) == sum(status == 201 for status, _body in answers)
