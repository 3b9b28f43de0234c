"""Sales benchmark: 8 cashiers selling into one game at once, through ``sale_make``.

Target on PostgreSQL (2-core machine): at least 500 sales a second with P95 below 20 ms a sale.
Two ways to load it: back to back (closed loop: the most the system does; with 8 cashiers the
mean latency is necessarily 8 / throughput) and ``--rate 500`` (open loop: 500 sales a second
offered, spread over the cashiers as real cashiers would; the latency a cashier sees at that
load). ``make bench`` prints both.
Each cashier is a process of its own with its own database connection, as each ASGI worker is
(``--threads`` runs them as threads of one process instead); every sale takes the series row
lock, so this measures the numbered-order bottleneck itself. The sales go
into a 100,000-card series so stock never runs out. A throwaway test database is created and
dropped. Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bingo python bench/sales.py
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pathlib
import statistics
import sys
import threading
import time
from datetime import timedelta
from decimal import Decimal

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from bingo.common.roles import Role  # noqa: E402
from bingo.engine import ALGORITHM_CARDS  # noqa: E402
from bingo.games import services  # noqa: E402
from bingo.models import Game, Sale  # noqa: E402
from bingo.sales import services as sales_services  # noqa: E402
from cards import services as card_services  # noqa: E402
from halls.models import CashDesk, Hall, Room, StaffMembership  # noqa: E402


def _cashier(game_id, user_id, desk_id, index, count, gate, results, interval, offset):  # type: ignore[no-untyped-def]
    """One cashier: ``count`` sales, back to back (``interval`` 0) or one every ``interval``
    seconds (open loop: a late sale starts at once); puts its latencies (ms) on ``results``."""
    game = Game.objects.get(pk=game_id)
    user, desk = User.objects.get(pk=user_id), CashDesk.objects.get(pk=desk_id)
    mine = []
    gate.wait()
    due = time.perf_counter() + offset  # cashiers start staggered across one interval
    for n in range(count):
        if interval:
            pause = due - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            due += interval
        start = time.perf_counter()
        sales_services.sale_make(
            game=game, quantity=1 + n % 3, cash_desk=desk, cashier=user,
            cash_received=Decimal("1000"), request_key=f"b-{index}-{n}",
        )  # fmt: skip
        mine.append((time.perf_counter() - start) * 1000)
    connections.close_all()
    results.put(mine)


def run(cashiers: int, sales_each: int, use_threads: bool, rate: float) -> None:
    hall = Hall.objects.create(name="Bench")
    room = Room.objects.create(hall=hall, name="Sala")
    card_services.INLINE_LIMIT = 10**6
    card_set = card_services.card_set_request(
        variant="90", size=100_000, seed=1, algorithm=ALGORITHM_CARDS, user=None
    )
    series = card_services.series_create(
        hall=hall, order_number=1, card_set=card_set, price="100", back_colour="#000000",
        face_colour="#FFFFFF", authorization="bench", user=None,
    )  # fmt: skip
    now = timezone.now()
    session = services.session_open(
        room=room, starts_at=now, scheduled_end=now + timedelta(hours=4), user=None
    )
    game = services.game_open_sales(game=services.game_create(session=session, variant="90"), series=[series])
    staff = []
    for i in range(cashiers):
        user = User.objects.create(username=f"caixa{i}")
        StaffMembership.objects.create(hall=hall, user=user, role=Role.CASHIER.value)
        staff.append((user, CashDesk.objects.create(hall=hall, name=f"Caixa {i}")))

    connections.close_all()  # children open their own connections
    interval = cashiers / rate if rate else 0.0
    context = multiprocessing.get_context("fork")
    start_gate = context.Barrier(cashiers + 1)
    results = context.Queue()
    worker = threading.Thread if use_threads else context.Process
    pool = [
        worker(
            target=_cashier,
            args=(
                game.pk,
                staff[i][0].pk,
                staff[i][1].pk,
                i,
                sales_each,
                start_gate,
                results,
                interval,
                interval * i / cashiers,
            ),
        )
        for i in range(cashiers)
    ]
    for w in pool:
        w.start()
    start_gate.wait()
    began = time.perf_counter()
    latencies: list[float] = []
    for _ in range(cashiers):
        latencies.extend(results.get())
    elapsed = time.perf_counter() - began
    for w in pool:
        w.join()

    count = len(latencies)
    latencies.sort()
    sold = Sale.objects.filter(game=game).count()
    assert sold == count, (sold, count)
    kind = "threads" if use_threads else "processes"
    load = f"offered {rate:,.0f} sales/s" if rate else "back to back"
    print(f"{cashiers} cashiers ({kind}, {load}), {count:,} sales in {elapsed:.2f} s: ", end="")
    print(f"{count / elapsed:,.0f} sales/s")
    print(
        f"latency per sale: median {statistics.median(latencies):.1f} ms, "
        f"P95 {latencies[int(0.95 * count) - 1]:.1f} ms, P99 {latencies[int(0.99 * count) - 1]:.1f} ms, "
        f"max {latencies[-1]:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cashiers", type=int, default=8)
    parser.add_argument("--sales", type=int, default=250, help="sales per cashier")
    parser.add_argument("--threads", action="store_true", help="cashiers as threads of one process")
    parser.add_argument(
        "--rate", type=float, default=0, help="open loop: total sales a second offered (0: back to back)"
    )
    args = parser.parse_args()
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        print(f"database: {connection.vendor}")
        run(args.cashiers, args.sales, args.threads, args.rate)
    finally:
        connections.close_all()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
