"""Issue 23: the online purchase on PostgreSQL — its series row locked last, R36-R38 and the
money under 32 buyers at once, and the statements one purchase costs from request to response.

The purchase locks the buyer's row (the wallet's lock), writes its debit, then takes its cards
with one statement that locks the game's series row until the commit (docs/architecture.md,
"Lock order"): every purchase of a game queues on that row, so it is held for that statement and
the commit only. Real threads and connections; skipped on SQLite."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, connections, transaction
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bingo.games import services as game_services
from bingo.models import Player, Sale, WalletEntry
from bingo.online import services
from bingo.players.selectors import wallet_balance
from tests.clients import logged_in
from tests.concurrency import postgresql_only, run_threads
from tests.db_roles import as_table_owner
from tests.online.helpers import OnlineSetup

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    postgresql_only("the one-statement debit and sale, and their row locks, are PostgreSQL's")


def _poll(read: Callable[[], Any], *, what: str, timeout: float = 15) -> Any:
    """``read()`` until it answers something, from this thread's own connection."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (found := read()) is not None:
            return found
        time.sleep(0.02)
    raise AssertionError(f"never saw {what}")


def _one(sql: str, params: list[Any]) -> Any:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return row


def _in_thread(work: Callable[[], Any], out: dict[str, Any], name: str) -> threading.Thread:
    """Run ``work`` in a thread with its own connection; its answer or exception in ``out``."""

    def run() -> None:
        try:
            out[name] = work()
        except BaseException as exc:  # reported by the test
            out[name] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_the_series_row_is_locked_last_the_debit_is_written_while_the_purchase_waits_for_it() -> None:
    """Another connection holds the series row (SELECT ... FOR UPDATE). A purchase started then
    blocks on it (its backend waits on a lock, blocked by that connection) — and it has written
    its wallet entry already: a third connection that inserts an entry with the purchase's key
    into the wallet's ledger waits for the purchase's transaction (the unique index holds the
    purchase's uncommitted entry). Let go, the purchase takes its cards and commits; the probe's
    entry is refused as a duplicate."""
    site = OnlineSetup(name="Sala Ordem")
    series = site.series(1)
    game = site.game(series)
    buyer = site.player("100.00")
    key = "ordem-1"
    request_key = f"online:{buyer.pk}:{key}"
    held, release = threading.Event(), threading.Event()
    out: dict[str, Any] = {}

    def hold_series() -> int:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
            cursor.execute("SELECT id FROM cards_series WHERE id = %s FOR UPDATE", [series.pk])
            out["holder_pid"] = pid
            held.set()
            assert release.wait(30)
        return pid

    def buy() -> services.OnlinePurchase:
        assert held.wait(10)
        return services.online_buy(player=buyer, game=game, quantity=2, key=key)

    def probe() -> None:
        """An entry of the buyer's wallet with the purchase's key and next number."""
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            out["probe_pid"] = cursor.fetchone()[0]
            last = WalletEntry.objects.filter(player=buyer).order_by("-seq").first()
            assert last is not None
            cursor.execute(
                "INSERT INTO bingo_walletentry (player_id, seq, kind, amount, balance_after, recorded_by_id,"
                " reference, key, created_at) VALUES (%s, %s, 'deposit', 1, %s, %s, 'probe', %s, now())",
                [buyer.pk, last.seq + 1, last.balance_after + 1, site.cashier.pk, request_key],
            )

    threads = [_in_thread(hold_series, out, "holder"), _in_thread(buy, out, "purchase")]
    # Other backends' activity shows to their own login or a superuser: the test's connection
    # looks as the session's login, not the app's role (tests/db_roles.py).
    observing = as_table_owner()
    observing.__enter__()
    try:
        assert held.wait(10)
        # The purchase's backend, waiting on a lock that the holder's connection holds.
        buyer_pid, buyer_xid = _poll(
            lambda: _one(
                "SELECT pid, backend_xid::text::bigint FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND %s = ANY(pg_blocking_pids(pid))",
                [out["holder_pid"]],
            ),
            what="the purchase waiting for the series row",
        )
        assert buyer_xid is not None  # it has written already: a transaction id is given at the first write
        # Its transaction has written to the wallet's ledger (and locked the buyer's row)...
        assert _one(
            "SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE l.pid = %s AND l.granted"
            " AND c.relname = 'bingo_walletentry' AND l.mode = 'RowExclusiveLock'",
            [buyer_pid],
        )
        # ... its entry with its key: the probe's entry with the same key waits for that transaction.
        threads.append(_in_thread(probe, out, "probe"))
        _poll(
            lambda: _one(
                "SELECT 1 FROM pg_locks WHERE pid = %s AND NOT granted AND locktype = 'transactionid'"
                " AND transactionid::text::bigint = %s",
                [out.get("probe_pid", 0), buyer_xid],
            ),
            what="the probe waiting for the purchase's transaction",
        )
        assert not Sale.objects.filter(request_key=request_key).exists()  # nothing committed yet
    finally:
        observing.__exit__(None, None, None)
        release.set()
        for thread in threads:
            thread.join(30)
    assert not any(thread.is_alive() for thread in threads)
    purchase = out["purchase"]
    assert isinstance(purchase, services.OnlinePurchase), purchase
    assert [(s.first_number, s.last_number) for s in purchase.sales] == [(1, 2)]
    assert isinstance(out["probe"], IntegrityError), out["probe"]  # the purchase's entry stands
    entry = WalletEntry.objects.get(player=buyer, key=request_key)
    assert (entry.kind, entry.amount, entry.sale_id) == ("purchase", Decimal("-20.00"), purchase.sales[0].pk)
    assert wallet_balance(player=buyer) == Decimal("80.00")


def test_r36_r38_thirty_two_buyers_at_once_every_card_once_in_order_and_the_money_agrees() -> None:
    """32 players buy 1-3 cards three times each, all at once, some sending a purchase twice
    (a retry), in a game whose first series starts at card 61 (R37: 40 sold before) and rolls
    into a second series (R38 b)), which stops below 61 (R38 c)): more is asked than the game
    holds. Every card sold once, in number order with no gap, the first series to its end
    before the second; each purchase one debit of its sales' amount and each refusal nothing;
    every wallet's ledger chained and its balance the deposit less its purchases."""
    site = OnlineSetup(name="Sala Trinta e Dois")
    first, second = site.series(1), site.series(2)
    warm_up = site.game(first)
    early = site.player("1000.00")
    for n in range(20):  # 60 cards of the first series sold in an earlier game (R37)
        services.online_buy(player=early, game=warm_up, quantity=3, key=f"warm-{n}")
    game_services.game_close_sales(game=warm_up)
    game = site.game(first, second)
    players = [site.player("100.00") for _ in range(32)]
    refused: list[str] = []

    def buyer(index: int) -> None:
        for n in range(3):
            key = f"p{index}-{n}"
            for _attempt in range(2 if (index + n) % 4 == 0 else 1):  # the same purchase sent twice
                try:
                    services.online_buy(
                        player=players[index], game=game, quantity=1 + (index + n) % 3, key=key
                    )
                except ValidationError as exc:
                    refused.extend(exc.messages)

    run_threads([partial(buyer, i) for i in range(32)], timeout=180)

    sales = list(
        Sale.objects.filter(game=game)
        .select_related("series")
        .order_by("series__order_number", "first_number")
    )
    by_series: dict[int, list[Sale]] = {first.pk: [], second.pk: []}
    for sale in sales:
        by_series[sale.series_id].append(sale)
    # R36-R37: the first series from card 61 to its end, every card once, in order, no gap.
    assert [n for s in by_series[first.pk] for n in range(s.first_number, s.last_number + 1)] == list(
        range(61, 91)
    )
    # R38 b)-c): the second from card 1, with no gap, never reaching 61.
    sold_second = [n for s in by_series[second.pk] for n in range(s.first_number, s.last_number + 1)]
    assert sold_second == list(range(1, len(sold_second) + 1))
    assert 0 < len(sold_second) <= 60
    # The one purchase that rolled over holds the first series' last card and the second's first.
    rolled = [k for k in {s.request_key for s in sales} if Sale.objects.filter(request_key=k).count() == 2]
    if rolled:
        parts = list(Sale.objects.filter(request_key=rolled[0]).order_by("part"))
        assert (parts[0].series_id, parts[0].last_number, parts[1].series_id, parts[1].first_number) == (
            first.pk,
            90,
            second.pk,
            1,
        )
    assert len(rolled) <= 1
    assert refused
    assert all("R38" in message for message in refused), set(refused)
    # The money: one debit per purchase, of its sales' amount; the refused left nothing.
    for player in [*players, early]:
        entries = list(WalletEntry.objects.filter(player=player).order_by("seq"))
        assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
        running = Decimal("0")
        for entry in entries:  # the ledger's chain
            running += entry.amount
            assert entry.balance_after == running
        purchases = [e for e in entries if e.kind == "purchase"]
        keys = {s.request_key for s in Sale.objects.filter(buyer=player)}
        assert len(purchases) == len(keys)
        for entry in purchases:
            assert entry.key in keys
            paid = Sale.objects.filter(request_key=entry.key).aggregate(s=Sum("amount"))["s"]
            assert -entry.amount == paid
        assert wallet_balance(player=Player.objects.get(pk=player.pk)) == running
    deposits = WalletEntry.objects.filter(kind="deposit").aggregate(s=Sum("amount"))["s"]
    spent = Sale.objects.filter(buyer__isnull=False).aggregate(s=Sum("amount"))["s"]
    balances = sum((wallet_balance(player=p) for p in [*players, early]), Decimal("0"))
    assert balances + spent == deposits


def test_one_purchase_costs_at_most_6_statements_from_the_request_to_the_response() -> None:
    """A player who opened the game's page (the room their inactivity counts in) buys through the
    API: the session, the user with their roles and player (bingo/players/backends.py), their
    play session with its limit and inactivity, the wallet's lock, the debit and the cards — 6
    statements (the commit is not one; the issue asks for 8 at most). Counted in steady state:
    the process has read the game, its sale context and room before (a first purchase of a game
    in a process reads them once)."""
    site = OnlineSetup(name="Sala Contada")
    game = site.game(site.series(1))
    player = site.player("300.00")
    client = logged_in(player.user, "en")
    assert client.get(reverse("online:game", args=[game.pk])).status_code == 200
    url = f"/api/online/games/{game.pk}/purchases/"
    warm = client.post(url, json.dumps({"quantity": 1, "key": "warm"}), content_type="application/json")
    assert warm.status_code == 201, warm.content
    with CaptureQueriesContext(connection) as queries:
        answer = client.post(
            url, json.dumps({"quantity": 2, "key": "counted"}), content_type="application/json"
        )
    assert answer.status_code == 201, answer.content
    assert answer.json()["blocks"] == [{"series": "A-1", "first": 2, "last": 3}]
    sent = [q["sql"] for q in queries.captured_queries]
    # One transaction, no savepoint; Django logs its BEGIN (which psycopg sends with the first
    # statement) and COMMIT, which are not statements of the purchase.
    assert sent.count("BEGIN") == sent.count("COMMIT") == 1, sent
    statements = [sql for sql in sent if sql not in ("BEGIN", "COMMIT")]
    assert not [sql for sql in statements if "SAVEPOINT" in sql]
    assert len(statements) <= 6, "\n\n".join(statements)
    assert wallet_balance(player=player) == Decimal("270.00")


def test_the_desks_sale_over_http_costs_at_most_6_statements() -> None:
    """The cashier's sale through the API (issue 23 point 2): the session, the user with their
    roles, their memberships (once), the game, the desk and the sale's one statement."""
    from datetime import timedelta

    from django.utils import timezone

    from halls.models import CashDesk, Room

    site = OnlineSetup(name="Sala Balcao")
    room = Room.objects.create(hall=site.hall, name="Salão")
    start = timezone.now()
    session = game_services.session_open(
        room=room, starts_at=start, scheduled_end=start + timedelta(hours=1), user=None
    )
    game = game_services.game_open_sales(
        game=game_services.game_create(session=session, variant="90"), series=[site.series(1, online=False)]
    )
    desk = CashDesk.objects.create(hall=site.hall, name="Caixa 1")
    client = logged_in(site.cashier, "en")
    url = f"/api/games/{game.pk}/sales/"
    body = json.dumps({"quantity": 2, "cash_desk": desk.pk, "cash_received": "50.00"})
    first = client.post(url, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="k0")
    assert first.status_code == 201, first.content
    with CaptureQueriesContext(connection) as queries:
        answer = client.post(url, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="k1")
    assert answer.status_code == 201, answer.content
    assert [(r["label"], r["first_number"], r["last_number"]) for r in answer.json()["ranges"]] == [
        ("A-1", 3, 4)
    ]
    statements = [q["sql"] for q in queries.captured_queries if q["sql"] not in ("BEGIN", "COMMIT")]
    assert len(statements) <= 6, "\n\n".join(statements)
