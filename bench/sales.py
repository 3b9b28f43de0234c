"""Sales benchmark: cashiers selling into one game at once, through ``sale_make``, against
pgbench running the same SQL.

Target on PostgreSQL (2-core machine): at least 500 sales a second with P95 below 20 ms a sale
(8 cashiers), and with 32 cashiers a P95 within 1.2 times pgbench's in the same run (issue 23).
Two ways to load it: back to back (closed loop: the most the system does; with 8 cashiers the
mean latency is necessarily 8 / throughput) and ``--rate 500`` (open loop: 500 sales a second
offered, spread over the cashiers as real cashiers would; the latency a cashier sees at that
load). ``make bench`` prints both, and the 32 cashiers against pgbench.

Each cashier is a process of its own with its own database connection, as each ASGI worker is
(``--threads`` runs them as threads of one process instead); every sale takes the series row
lock, so this measures the numbered-order bottleneck itself. Each run sells into a game of its
own, from a 100,000-card series, so stock never runs out. Django's debug mode is off, as in
production (it would keep every query).

The reference, on PostgreSQL (``--no-pgbench`` skips it): the statements one desk sale issues
are captured from a real sale (``CaptureQueriesContext``, once the process knows the game), and
pgbench runs them as its transaction, one script for each quantity the cashiers sell (1 to 3
cards), its request key made unique per transaction, with as many clients as there are
cashiers, as many transactions each, the same ``--rate``, against the same database right after
our run. Its per-transaction latencies come from its ``--log`` (the schedule lag taken out, as
our open loop times a late sale from when it starts), and the ratio ours / pgbench of the P95
is printed. pgbench uses the protocol Django's connections use: prepared statements where the
settings prepare them (the default since issue 23, docs/deploy.md), else the simple one. Each side
also prints its clients' processor time a sale (the cashier processes', all their threads
counted; pgbench's) and how many of the machine's cores were busy meanwhile (/proc/stat): with
every core busy the sale is bound by the processors, and what the clients spend on each sale
decides the ratio.

``--runs`` repeats the whole (a new game each time) and prints min, median and P95 over the
runs; the figures go to bench/results.json (bench/results.py). A throwaway test database is
created and dropped. Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bingo python bench/sales.py
"""

from __future__ import annotations

import argparse
import glob
import math
import multiprocessing
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from decimal import Decimal
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.results import record, spread  # noqa: E402
from bingo.common.roles import Role  # noqa: E402
from bingo.engine import ALGORITHM_CARDS  # noqa: E402
from bingo.games import services  # noqa: E402
from bingo.models import Game, Sale, Session  # noqa: E402
from bingo.sales import services as sales_services  # noqa: E402
from cards import services as card_services  # noqa: E402
from cards.models import CardSet  # noqa: E402
from halls.models import CashDesk, Hall, Room, StaffMembership  # noqa: E402

SERIES_SIZE = 100_000
#: The request key of a captured sale (of 1, 2, 3 cards), replaced in pgbench's scripts by one
#: unique per transaction.
CAPTURE_KEY = "bench-capture-key-{game}-{quantity}"
PGBENCH_KEY = "'pgb-' || :client_id || '-' || gen_random_uuid()"


def percentile(ordered: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0-1) of sorted values."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


@dataclass(frozen=True)
class Venue:
    """What every run sells with: the hall's session, card set, cashiers and their desks."""

    hall: Hall
    session: Session
    card_set: CardSet
    staff: list[tuple[User, CashDesk]]


@dataclass(frozen=True)
class Run:
    """One run's figures: ours, and pgbench's when it ran."""

    sales_per_s: float
    median_ms: float
    p95_ms: float
    p99_ms: float
    client_cpu_ms: float
    busy_cores: float
    pgbench_tps: float | None = None
    pgbench_median_ms: float | None = None
    pgbench_p95_ms: float | None = None
    pgbench_client_cpu_ms: float | None = None
    pgbench_busy_cores: float | None = None
    #: How many statements pgbench's transaction runs (those of one desk sale).
    statements: int | None = None


def setup(cashiers: int) -> Venue:
    hall = Hall.objects.create(name="Bench")
    room = Room.objects.create(hall=hall, name="Sala")
    card_services.INLINE_LIMIT = 10**6
    card_set = card_services.card_set_request(
        variant="90", size=SERIES_SIZE, seed=1, algorithm=ALGORITHM_CARDS, user=None
    )
    now = timezone.now()
    session = services.session_open(
        room=room, starts_at=now, scheduled_end=now + timedelta(hours=4), user=None
    )
    staff = []
    for i in range(cashiers):
        user = User.objects.create(username=f"caixa{i}")
        StaffMembership.objects.create(hall=hall, user=user, role=Role.CASHIER.value)
        staff.append((user, CashDesk.objects.create(hall=hall, name=f"Caixa {i}")))
    return Venue(hall, session, card_set, staff)


def selling_game(venue: Venue, order_number: int) -> Game:
    """A new game of the session selling a new series of the card set (the last one closed)."""
    for game in Game.objects.filter(session=venue.session, state="selling"):
        services.game_close_sales(game=game)
    series = card_services.series_create(
        hall=venue.hall, order_number=order_number, card_set=venue.card_set, price="100",
        back_colour="#000000", face_colour="#FFFFFF", authorization="bench", user=None,
    )  # fmt: skip
    game = services.game_create(session=venue.session, variant="90")
    return services.game_open_sales(game=game, series=[series])


def _cashier(game_id, user_id, desk_id, index, count, gate, results, interval, offset):  # type: ignore[no-untyped-def]
    """One cashier: ``count`` sales, back to back (``interval`` 0) or one every ``interval``
    seconds (open loop: a late sale starts at once); puts its latencies (ms) and the processor
    time it took (s: its process's, all threads, or its thread's when cashiers are threads) on
    ``results``."""
    game = Game.objects.get(pk=game_id)
    user, desk = User.objects.get(pk=user_id), CashDesk.objects.get(pk=desk_id)
    mine = []
    clock = time.process_time if threading.current_thread() is threading.main_thread() else time.thread_time
    gate.wait()
    cpu = clock()
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
            cash_received=Decimal("1000"), request_key=f"b-{game_id}-{index}-{n}",
        )  # fmt: skip
        mine.append((time.perf_counter() - start) * 1000)
    cpu = clock() - cpu
    connections.close_all()
    results.put((mine, cpu))


def busy_cores() -> Callable[[], float]:
    """A stopwatch of the machine's processors: call the result to get how many cores were busy
    on average since (from /proc/stat; 0 where there is none)."""

    def ticks() -> tuple[int, int]:
        try:
            fields = [int(v) for v in pathlib.Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        except OSError:
            return 0, 0
        idle = fields[3] + fields[4]  # idle, iowait
        return sum(fields) - idle, sum(fields)

    busy0, total0 = ticks()

    def since() -> float:
        busy, total = ticks()
        return (busy - busy0) / (total - total0) * (os.cpu_count() or 1) if total > total0 else 0.0

    return since


@dataclass(frozen=True)
class Side:
    """One side of a run, ours or pgbench's: its rate, every latency (ms, sorted), the client's
    processor time per sale (ms), and the cores the whole machine kept busy meanwhile."""

    per_s: float
    latencies: list[float]
    client_cpu_ms: float
    busy_cores: float


def ours(venue: Venue, game: Game, sales_each: int, use_threads: bool, rate: float) -> Side:
    """The cashiers' run."""
    cashiers = len(venue.staff)
    before = Sale.objects.filter(game=game).count()
    connections.close_all()  # children open their own connections
    for alias in connections:
        # A pool's connections stay open when Django "closes" one: children must not share them.
        connections[alias].close_pool()
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
                user.pk,
                desk.pk,
                i,
                sales_each,
                start_gate,
                results,
                interval,
                interval * i / cashiers,
            ),
        )
        for i, (user, desk) in enumerate(venue.staff)
    ]
    for w in pool:
        w.start()
    start_gate.wait()
    began, machine = time.perf_counter(), busy_cores()
    latencies: list[float] = []
    cpu = 0.0
    for _ in range(cashiers):
        mine, spent = results.get()
        latencies.extend(mine)
        cpu += spent
    elapsed, busy = time.perf_counter() - began, machine()
    for w in pool:
        w.join()
    sold = Sale.objects.filter(game=game).count() - before
    assert sold == len(latencies), (sold, len(latencies))
    return Side(len(latencies) / elapsed, sorted(latencies), cpu * 1000 / len(latencies), busy)


def sale_statements(venue: Venue, game: Game, quantity: int) -> list[str]:
    """The SQL one desk sale of ``quantity`` cards issues, as sent, once the process knows the
    game (its context is cached: ``sales_services._sale_context``), its request key
    ``CAPTURE_KEY``."""
    user, desk = venue.staff[0]
    key = CAPTURE_KEY.format(game=game.pk, quantity=quantity)
    sales_services.sale_make(
        game=game, quantity=1, cash_desk=desk, cashier=user, cash_received=Decimal("1000"),
        request_key=f"bench-warm-{game.pk}-{quantity}",
    )  # fmt: skip
    with CaptureQueriesContext(connection) as captured:
        sales_services.sale_make(
            game=game, quantity=quantity, cash_desk=desk, cashier=user, cash_received=Decimal("1000"),
            request_key=key,
        )  # fmt: skip
    statements = [q["sql"].strip().rstrip(";") for q in captured.captured_queries]
    assert sum(f"'{key}'" in s for s in statements) == 1, statements
    return [s.replace(f"'{key}'", PGBENCH_KEY) for s in statements]


def pgbench_binary() -> str | None:
    found = shutil.which("pgbench")
    if found:
        return found
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pgbench"))
    return candidates[-1] if candidates else None


def pgbench_protocol() -> str:
    """The protocol Django's connections use, for pgbench to use the same: prepared statements
    where the settings prepare them (server-side binding with a prepare threshold), else the
    simple protocol."""
    options = connection.settings_dict.get("OPTIONS", {})
    prepared = options.get("server_side_binding") and options.get("prepare_threshold")
    return "prepared" if prepared else "simple"


def pgbench(binary: str, scripts: list[list[str]], clients: int, transactions: int, rate: float) -> Side:
    """pgbench running ``scripts`` (one picked at random per transaction) with ``clients``
    clients of ``transactions`` each."""
    settings = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": str(settings.get("PASSWORD") or "")}
    with tempfile.TemporaryDirectory(prefix="bench-sales-") as folder:
        files = []
        for n, statements in enumerate(scripts, start=1):
            path = pathlib.Path(folder, f"sale{n}.sql")
            path.write_text("".join(s + ";\n" for s in statements), encoding="utf-8")
            files += ["-f", str(path)]
        command = [
            binary, "-n", "-M", pgbench_protocol(),
            "-c", str(clients), "-j", str(min(clients, os.cpu_count() or 1)),
            "-t", str(transactions), "-l", "--log-prefix", str(pathlib.Path(folder, "log")),
            "-h", str(settings.get("HOST") or "localhost"), "-p", str(settings.get("PORT") or 5432),
            "-U", str(settings.get("USER") or "postgres"), *files,
        ]  # fmt: skip
        if rate:
            command += ["--rate", str(rate)]
        command.append(str(settings["NAME"]))
        began, machine = time.perf_counter(), busy_cores()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        elapsed, busy = time.perf_counter() - began, machine()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime
        if done.returncode != 0:
            raise RuntimeError(f"pgbench failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        latencies = []
        for log in glob.glob(str(pathlib.Path(folder, "log.*"))):
            for line in pathlib.Path(log).read_text(encoding="utf-8").splitlines():
                fields = line.split()
                lag = int(fields[6]) if rate and len(fields) > 6 else 0
                latencies.append((int(fields[2]) - lag) / 1000)
    if len(latencies) != clients * transactions:
        raise RuntimeError(f"pgbench logged {len(latencies)} transactions of {clients * transactions}")
    return Side(len(latencies) / elapsed, sorted(latencies), cpu * 1000 / len(latencies), busy)


def one_run(venue: Venue, game: Game, args: argparse.Namespace, binary: str | None) -> Run:
    scripts = [sale_statements(venue, game, q) for q in (1, 2, 3)] if binary else []
    side = ours(venue, game, args.sales, args.threads, args.rate)
    lat = side.latencies
    run = Run(
        side.per_s,
        statistics.median(lat),
        percentile(lat, 0.95),
        percentile(lat, 0.99),
        side.client_cpu_ms,
        side.busy_cores,
    )
    print(
        f"  ours:    {side.per_s:7,.0f} sales/s; latency median {run.median_ms:6.1f} ms, "
        f"P95 {run.p95_ms:6.1f} ms, P99 {run.p99_ms:6.1f} ms, max {lat[-1]:6.1f} ms; "
        f"client CPU {side.client_cpu_ms:.3f} ms a sale, machine {side.busy_cores:.2f} cores busy"
    )
    if not binary:
        return run
    before = Sale.objects.filter(game=game).count()
    ref = pgbench(binary, scripts, len(venue.staff), args.sales, args.rate)
    assert Sale.objects.filter(game=game).count() - before == len(ref.latencies)
    run = replace(
        run,
        pgbench_tps=ref.per_s,
        pgbench_median_ms=statistics.median(ref.latencies),
        pgbench_p95_ms=percentile(ref.latencies, 0.95),
        pgbench_client_cpu_ms=ref.client_cpu_ms,
        pgbench_busy_cores=ref.busy_cores,
        statements=len(scripts[0]),
    )
    print(
        f"  pgbench: {ref.per_s:7,.0f} tps;     latency median {run.pgbench_median_ms:6.1f} ms, "
        f"P95 {run.pgbench_p95_ms:6.1f} ms, P99 {percentile(ref.latencies, 0.99):6.1f} ms, "
        f"max {ref.latencies[-1]:6.1f} ms; client CPU {ref.client_cpu_ms:.3f} ms a sale, "
        f"machine {ref.busy_cores:.2f} cores busy"
    )
    print(f"  P95 ours / pgbench {run.p95_ms / (run.pgbench_p95_ms or 1):.2f}")
    return run


def report(runs: list[Run], args: argparse.Namespace) -> None:
    def line(label: str, values: list[float], unit: str = "") -> dict[str, float | int]:
        s = spread(values)
        print(f"{label:<30} min {s['min']:8.2f}  median {s['median']:8.2f}  P95 {s['p95']:8.2f} {unit}")
        return s

    print(f"over {len(runs)} runs:")
    figures: dict[str, Any] = {
        "sales_per_s": line("sales/s", [r.sales_per_s for r in runs]),
        "p95_ms": line("P95 latency", [r.p95_ms for r in runs], "ms"),
        "median_ms": line("median latency", [r.median_ms for r in runs], "ms"),
        "client_cpu_ms": line("client CPU a sale", [r.client_cpu_ms for r in runs], "ms"),
        "busy_cores": line("machine cores busy", [r.busy_cores for r in runs]),
    }
    if runs[0].pgbench_p95_ms is not None:
        figures["pgbench_tps"] = line("pgbench tps", [r.pgbench_tps or 0 for r in runs])
        figures["pgbench_p95_ms"] = line("pgbench P95 latency", [r.pgbench_p95_ms or 0 for r in runs], "ms")
        figures["pgbench_median_ms"] = line(
            "pgbench median latency", [r.pgbench_median_ms or 0 for r in runs], "ms"
        )
        figures["pgbench_client_cpu_ms"] = line(
            "pgbench client CPU a sale", [r.pgbench_client_cpu_ms or 0 for r in runs], "ms"
        )
        figures["pgbench_busy_cores"] = line(
            "machine cores busy (pgbench)", [r.pgbench_busy_cores or 0 for r in runs]
        )
        figures["p95_ratio"] = line(
            "P95 ours / pgbench", [r.p95_ms / (r.pgbench_p95_ms or 1) for r in runs], "(goal <= 1.2)"
        )
        figures["pgbench_statements"] = runs[0].statements
    record(
        "sales",
        figures,
        setup={
            "cashiers": args.cashiers,
            "sales_each": args.sales,
            "workers": "threads" if args.threads else "processes",
            "rate": args.rate,
            "database": connection.vendor,
            "protocol": pgbench_protocol(),
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cashiers", type=int, default=8)
    parser.add_argument("--sales", type=int, default=250, help="sales per cashier")
    parser.add_argument("--threads", action="store_true", help="cashiers as threads of one process")
    parser.add_argument(
        "--rate", type=float, default=0, help="open loop: total sales a second offered (0: back to back)"
    )
    parser.add_argument("--runs", type=int, default=3, help="runs, each into a game of its own")
    parser.add_argument("--no-pgbench", action="store_true", help="skip the pgbench reference")
    args = parser.parse_args()
    setup_test_environment(debug=False)
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        binary = None if args.no_pgbench or connection.vendor != "postgresql" else pgbench_binary()
        kind = "threads" if args.threads else "processes"
        load = f"offered {args.rate:,.0f} sales/s" if args.rate else "back to back"
        print(f"database: {connection.vendor}; {args.cashiers} cashiers ({kind}, {load}), {args.sales} each")
        if binary is None and not args.no_pgbench and connection.vendor == "postgresql":
            print("pgbench not found: no reference")
        venue = setup(args.cashiers)
        runs = []
        for n in range(1, args.runs + 1):
            game = selling_game(venue, n)
            print(f"run {n} (game {game.pk}):")
            runs.append(one_run(venue, game, args, binary))
        if binary:
            print(
                f"pgbench's transaction: the {runs[0].statements} statement(s) of one desk sale, as captured"
            )
        report(runs, args)
    finally:
        connections.close_all()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
