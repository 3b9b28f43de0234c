"""Online buying benchmark: players buying cards of one selling online game at once, over HTTP,
beside cashiers selling a hall's game at their desks through the same server.

The path production takes: real uvicorn workers (``bingo.asgi:application``) started as `make
serve` starts them (``python -m bingo.serve --workers 2``: it accepts and hands the connections to
the workers in turn, each running WEB_REQUEST_THREADS requests at once, docs/deploy.md), debug
off, the production settings (static files collected, secure cookies, the TLS proxy's
``X-Forwarded-Proto: https``, each worker's pool of PostgreSQL connections), on PostgreSQL and the
Redis of REDIS_URL. Each player is registered (``player_register``), credited at the desk
(``wallet_deposit``), logs in through the login page (``/entrar/``, CSRF token and session
cookie), then buys back to back (closed loop) with ``POST /api/online/games/{id}/purchases/``
(JSON ``quantity`` 1-3 in turn and a fresh ``key``, the CSRF header): the API view, the online
purchase service (``online_buy``: the buyer's row locked, the debit, then the cards in number
order (R36-R38) with one statement). The game is opened by the autodraw service of a continuous
room (R90) with a long sales window. Each cashier (a hall's cashier with a desk of their own) logs
in the same way and sells back to back with ``POST /api/games/{id}/sales/`` (1-3 cards, cash, an
``Idempotency-Key``): the desk's sale (``sale_make``, one statement), the yardstick the online
purchase is measured against.

Clients: one thread and one keep-alive connection per player or cashier, in this process
(http.client); the clients' own work is small beside the server's but runs on the same cores.
Loads: for each level (8 players, then 32: the first 8 among them) and each of ``--runs`` runs,
the players buy, then as many cashiers sell, one load after the other in the same games.
Latency = the request sent to the response read. Throughput = requests / the wall time from the
start gate to the last response. Printed per level: purchases/s and P95 of each run, their
minimum, median and P95 over the runs, the desk's in the same runs, and the online purchase's
throughput as a share of the desk's; kept in bench/results.json (``bench.results.record``).
Goals (issue 23): at 32 players at least 250 purchases/s with P95 under 150 ms; at 8, P95 under
50 ms. The load average is printed before the first load: measure on a quiet machine.

Then, for reference and not the production path, ``online_buy`` in this process one purchase
at a time, and how long each holds its game's series row (from the allocating statement's start
to the commit's end): purchases of one game queue on that row (R36), so one game sells at most
about 1 / that a second, whatever the workers (docs/deploy.md, «Capacity»).

Checked after each load, on the database: every request answered 201; the game's online sales
cover cards 1..N of the series with no card sold twice and none skipped (R36); each purchase is
one sale and one wallet debit with its key, of the sale's amount; the wallets' balances plus the
sales equal the deposits; the desk's sales cover cards 1..N of theirs. A throwaway database is
created and dropped.

Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bingo_bench_online \
     REDIS_URL=redis://127.0.0.1:6379/12 python bench/online_buy.py [--players 8,32] [--purchases 40] \
     [--runs 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import pathlib
import platform
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import quote, urlencode

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.db.models import Sum  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.results import record, spread  # noqa: E402
from bingo.autodraw import services as autodraw  # noqa: E402
from bingo.common.roles import Role, user_roles_set  # noqa: E402
from bingo.engine import ALGORITHM_CARDS  # noqa: E402
from bingo.games import services as game_services  # noqa: E402
from bingo.models import Game, Player, RoomMode, Sale, WalletEntry  # noqa: E402
from bingo.online import services as online_services  # noqa: E402
from bingo.players import selectors as player_selectors  # noqa: E402
from bingo.players import services as player_services  # noqa: E402
from cards import services as card_services  # noqa: E402
from halls.models import CashDesk, Hall, Room, StaffMembership  # noqa: E402

HOST = "127.0.0.1"
PROXY = {"X-Forwarded-Proto": "https"}  # what the TLS proxy in front adds
PASSWORD = "Bench-online-2024!"
PRICE = Decimal("1.00")


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


# --- the server -------------------------------------------------------------------------------


def _database_url() -> str:
    db = connection.settings_dict
    user, password = quote(db["USER"] or "", safe=""), quote(db["PASSWORD"] or "", safe="")
    credentials = f"{user}:{password}@" if password else f"{user}@" if user else ""
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{credentials}{db['HOST'] or 'localhost'}{port}/{quote(db['NAME'], safe='')}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def serve(tmp: pathlib.Path, workers: int) -> tuple[subprocess.Popen[bytes], str, pathlib.Path]:
    """uvicorn as ``make serve`` starts it (debug off, static collected), on the bench's database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_"))}
    env.update(
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS=HOST,
        DJANGO_STATIC_ROOT=str(tmp / "static"),
        BINGO_VAR_DIR=str(tmp / "var"),
        DATABASE_URL=_database_url(),
        REDIS_URL=settings.REDIS_URL,
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    port = _free_port()
    log = tmp / "uvicorn.log"
    command = [
        *(sys.executable, "-m", "bingo.serve", "--log-level", "warning"),
        *("--host", HOST, "--port", str(port), "--workers", str(workers)),
        *("--no-proxy-headers", "--ws-per-message-deflate", "false"),
    ]
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    address = f"{HOST}:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            client = http.client.HTTPConnection(address, timeout=5)
            client.request("GET", "/entrar/", headers=PROXY)
            client.getresponse().read()
            client.close()
            return process, address, log
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start:\n{log.read_text()}") from None
            time.sleep(0.2)


# --- a player's browser -----------------------------------------------------------------------


class Browser:
    """One player's keep-alive connection and cookies."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.origin = f"https://{address}"
        self.client = http.client.HTTPConnection(address, timeout=60)
        self.cookies: dict[str, str] = {}
        self.reconnects = 0

    def reconnect(self) -> None:
        """A fresh connection (the server closes one idle for 5 s, uvicorn's keep-alive)."""
        self.client.close()
        self.client = http.client.HTTPConnection(self.address, timeout=60)
        self.client.connect()

    def request(self, method: str, path: str, body: bytes | None = None, **headers: str) -> tuple[int, bytes]:
        sent = {**PROXY, "Referer": self.origin + path, **headers}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            self.client.request(method, path, body=body, headers=sent)
            response = self.client.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # Closed by the server while idle: as a browser, once more on a new connection (a
            # purchase's key makes a repeat count once anyway). Counted and reported.
            self.reconnects += 1
            self.reconnect()
            self.client.request(method, path, body=body, headers=sent)
            response = self.client.getresponse()
        data = response.read()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, data

    def login(self, username: str) -> None:
        status, page = self.request("GET", "/entrar/")
        match = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert status == 200, status
        assert match is not None
        form = urlencode(
            {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": match.group(1).decode()}
        )
        status, _ = self.request(
            "POST", "/entrar/", form.encode(), **{"Content-Type": "application/x-www-form-urlencoded"}
        )
        assert status == 302, status
        assert "sessionid" in self.cookies, self.cookies.keys()

    def sell(self, game_id: int, desk_id: int, quantity: int, key: str) -> tuple[int, bytes]:
        body = json.dumps({"quantity": quantity, "cash_desk": desk_id, "cash_received": "100.00"}).encode()
        return self.request(
            "POST",
            f"/api/games/{game_id}/sales/",
            body,
            **{
                "Content-Type": "application/json",
                "X-CSRFToken": self.cookies["csrftoken"],
                "Idempotency-Key": key,
            },
        )

    def buy(self, game_id: int, quantity: int, key: str) -> tuple[int, bytes]:
        body = json.dumps({"quantity": quantity, "key": key}).encode()
        return self.request(
            "POST",
            f"/api/online/games/{game_id}/purchases/",
            body,
            **{"Content-Type": "application/json", "X-CSRFToken": self.cookies["csrftoken"]},
        )


# --- the load ----------------------------------------------------------------------------------


def _card_set(cards: int, seed: int) -> Any:
    card_services.INLINE_LIMIT = max(card_services.INLINE_LIMIT, cards)
    return card_services.card_set_request(
        variant="90", size=cards, seed=seed, algorithm=ALGORITHM_CARDS, user=None
    )


def setup(players: int, cards: int, deposit: Decimal) -> tuple[Game, list[str]]:
    """The hall, its online room with the game it opens (R90), and ``players`` players with
    ``deposit`` in their wallets."""
    hall = Hall.objects.create(name="Bench online")
    cashier = User.objects.create(username="caixa")
    StaffMembership.objects.create(hall=hall, user=cashier, role=Role.CASHIER.value)
    card_services.series_create(
        hall=hall, order_number=1, card_set=_card_set(cards, 1), price=str(PRICE), back_colour="#000000",
        face_colour="#FFFFFF", authorization="bench", online=True, user=None,
    )  # fmt: skip
    online = online_services.online_room_create(
        hall=hall, name="Online", mode=RoomMode.CONTINUOUS, ball_interval="1", sales_seconds=3600
    )
    game = autodraw.online_room_advance(room_id=online.pk)  # the room opens its game (R90)
    assert game is not None
    assert game.state == "selling"
    names = []
    for i in range(players):
        player = player_services.player_register(
            username=f"jogador{i}", email=f"jogador{i}@example.com", first_name="Jogador",
            last_name=str(i), password=PASSWORD, birth_date=date(1990, 1, 1), adult_confirmed=True,
            hall=hall,
        )  # fmt: skip
        # The player opens the link mailed to them: no deposit before the e-mail is verified.
        uid, token = player_services.player_email_verification_link(player=player).rstrip("/").split("/")[-2:]
        player_services.player_email_verify(uidb64=uid, token=token)
        player_services.wallet_deposit(player=player, amount=deposit, staff=cashier, reference="CC", key="d")
        names.append(player.user.username)
    return game, names


def desk_setup(cashiers: int, cards: int) -> tuple[Game, list[tuple[str, int]]]:
    """A hall's room selling a game at its desks, and ``cashiers`` cashiers, a desk each."""
    hall = Hall.objects.get(name="Bench online")
    room = Room.objects.create(hall=hall, name="Salão")
    series = card_services.series_create(
        hall=hall, order_number=2, card_set=_card_set(cards, 2), price=str(PRICE), back_colour="#000000",
        face_colour="#FFFFFF", authorization="bench", user=None,
    )  # fmt: skip
    now = timezone.now()
    session = game_services.session_open(
        room=room, starts_at=now, scheduled_end=now + timedelta(hours=4), user=None
    )
    game = game_services.game_open_sales(
        game=game_services.game_create(session=session, variant="90"), series=[series]
    )
    staff = []
    for i in range(cashiers):
        user = User.objects.create_user(username=f"caixa{i}", password=PASSWORD)
        user_roles_set(user=user, roles=[Role.CASHIER])
        StaffMembership.objects.create(hall=hall, user=user, role=Role.CASHIER.value)
        staff.append((user.username, CashDesk.objects.create(hall=hall, name=f"Caixa {i}").pk))
    return game, staff


Act = Callable[[int, "Browser", int], tuple[int, bytes]]

#: bingo.serve's process id, once it serves (its workers are its children, or itself).
SERVER: dict[str, int] = {}


def _cpu_seconds(pids: list[int]) -> dict[int, float]:
    """Each process's CPU time so far (user and system, /proc), by pid; gone ones left out."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for pid in pids:
        try:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return found


def _children(parent: int) -> list[int]:
    pids = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == parent:
                pids.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return pids


def cpu_snapshot() -> dict[str, dict[int, float]]:
    """CPU so far of the web workers, the database's backends for this database, and this process."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        backends = [pid for (pid,) in cursor.fetchall()]
    own = os.times()
    return {
        # With --workers 1 uvicorn serves in bingo.serve's process; with more, in its children.
        "web": _cpu_seconds([SERVER["pid"], *_children(SERVER["pid"])]) if SERVER else {},
        "db": _cpu_seconds(backends),
        "clients": {os.getpid(): own.user + own.system},
    }


def cpu_per_request(
    before: dict[str, dict[int, float]], after: dict[str, dict[int, float]], count: int
) -> dict[str, float]:
    """Milliseconds of CPU per request spent by each side between two snapshots."""
    return {
        side: sum(after[side].get(pid, 0.0) - before[side].get(pid, 0.0) for pid in after[side])
        * 1000
        / count
        for side in after
    }


def load(browsers: list[Browser], act: Act, requests_each: int) -> tuple[list[float], list[str], float]:
    """Every browser sends ``act`` ``requests_each`` times back to back; latencies (ms), errors,
    wall time."""
    gate = threading.Barrier(len(browsers) + 1)
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def client(index: int, browser: Browser) -> None:
        mine, bad = [], []
        gate.wait()
        for n in range(requests_each):
            start = time.perf_counter()
            try:
                status, body = act(index, browser, n)
            except OSError as exc:
                status, body = 0, repr(exc).encode()
            mine.append((time.perf_counter() - start) * 1000)
            if status != 201:
                bad.append(f"{status} {body[:200]!r}")
        with lock:
            latencies.extend(mine)
            errors.extend(bad)

    for browser in browsers:
        browser.reconnect()
        browser.reconnects = 0
    threads = [threading.Thread(target=client, args=(i, b)) for i, b in enumerate(browsers)]
    for t in threads:
        t.start()
    before = cpu_snapshot()
    gate.wait()
    began = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    LAST_CPU.update(cpu_per_request(before, cpu_snapshot(), len(latencies)))
    return latencies, errors, elapsed


#: What the last load cost in CPU per request (ms): web workers, database, clients.
LAST_CPU: dict[str, float] = {}


def check(game: Game, deposits: Decimal, expected_purchases: int) -> str:
    """R36 and the money: what the database holds after the load."""
    sales = list(Sale.objects.filter(game=game).order_by("series_id", "first_number"))
    following = 1
    for sale in sales:  # one series: cards 1..N, each once, in order
        assert sale.first_number == following, f"R36: card {following} skipped or sold twice ({sale.pk})"
        assert sale.last_number - sale.first_number + 1 == sale.quantity
        following = sale.last_number + 1
    keys = {s.request_key for s in sales}
    assert len(keys) == len(sales) == expected_purchases, (len(keys), len(sales), expected_purchases)
    debits = list(WalletEntry.objects.filter(kind="purchase", sale__game=game))
    assert len(debits) == len(sales), ("debits", len(debits), len(sales))
    by_sale = {d.sale_id: d for d in debits}
    for sale in sales:
        debit = by_sale[sale.pk]
        assert debit.key == sale.request_key, (debit.key, sale.request_key)
        assert -debit.amount == sale.amount, (debit.amount, sale.amount)
    sold = Sale.objects.filter(game=game).aggregate(s=Sum("amount"))["s"] or Decimal(0)
    balances = sum((player_selectors.wallet_balance(player=p) for p in Player.objects.all()), Decimal(0))
    assert balances + sold == deposits, (balances, sold, deposits)
    return (
        f"checked: {len(sales)} purchases, cards 1..{following - 1} each sold once (R36), "
        f"{len(debits)} debits matching their sales, wallets {balances} + sales {sold} = deposits {deposits}"
    )


def check_desk(game: Game, expected: int) -> str:
    """R36 at the desks: cards 1..N of the hall's series, each once, one sale per request."""
    following = 1
    sales = list(Sale.objects.filter(game=game).order_by("first_number"))
    for sale in sales:
        assert sale.first_number == following, f"R36: card {following} skipped or sold twice ({sale.pk})"
        following = sale.last_number + 1
    assert len(sales) == expected, (len(sales), expected)
    return f"checked: {len(sales)} desk sales, cards 1..{following - 1} each sold once (R36)"


def reference(game: Game, username: str, count: int, figures: dict[str, Any]) -> None:
    """For reference only (not the production path): ``online_buy`` called in this process,
    one purchase at a time, no HTTP, no server: what the service costs without the web layer."""
    player = Player.objects.get(user__username=username)
    times, held = [], []
    locked: list[float] = []

    def series_lock(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        if "UPDATE cards_series" in sql:
            locked.append(time.perf_counter())  # the statement that locks the series row starts
        return execute(sql, params, many, context)

    with connection.execute_wrapper(series_lock):
        for n in range(count):
            locked.clear()
            start = time.perf_counter()
            online_services.online_buy(player=player, game=game, quantity=1 + n % 3, key=f"ref-{n}")
            end = time.perf_counter()
            times.append((end - start) * 1000)
            assert len(locked) == 1, "one statement locks the series"
            held.append((end - locked[0]) * 1000)
    print(
        f"reference, NOT the production path: online_buy in-process, 1 player, {count} purchases one "
        f"at a time: min {min(times):.1f} ms, median {statistics.median(times):.1f} ms, "
        f"P95 {percentile(times, 95):.1f} ms"
    )
    # Every purchase of a game queues on its series row (R36: the next cards, in number order),
    # from the allocating statement to the commit: one game sells at most 1 / that a second.
    ceiling = 1000 / statistics.median(held)
    print(
        f"series row held per purchase (the allocating statement's start to the commit's end): "
        f"min {min(held):.2f} ms, median {statistics.median(held):.2f} ms, "
        f"P95 {percentile(held, 95):.2f} ms; "
        f"one game's ceiling about {ceiling:.0f} purchases/s"
    )
    figures["series_lock_ms"] = round(statistics.median(held), 3)
    figures["game_ceiling_per_s"] = round(ceiling)


def measured(latencies: list[float], errors: list[str], elapsed: float, what: str) -> tuple[float, float]:
    """Print one load's figures; its requests a second and P95 latency (ms)."""
    latencies.sort()
    rate, p95 = len(latencies) / elapsed, percentile(latencies, 95)
    print(
        f"    {what}: {len(latencies)} in {elapsed:.2f} s, {rate:.0f}/s; latency ms: min {latencies[0]:.1f}, "
        f"median {statistics.median(latencies):.1f}, P95 {p95:.1f}, P99 {percentile(latencies, 99):.1f}, "
        f"max {latencies[-1]:.1f}"
    )
    print(
        f"      CPU per request: web workers {LAST_CPU['web']:.1f} ms, PostgreSQL {LAST_CPU['db']:.1f} ms, "
        f"the clients {LAST_CPU['clients']:.1f} ms ({os.cpu_count()} cores)"
    )
    if errors:
        raise SystemExit(f"{len(errors)} requests refused, e.g. {errors[0]}")
    return rate, p95


def _spread_line(name: str, values: list[float], unit: str) -> str:
    s = spread(values)
    return (
        f"{name}: min {s['min']:.1f}, median {s['median']:.1f}, P95 {s['p95']:.1f} {unit} ({s['runs']} runs)"
    )


def level_runs(
    level: int,
    requests_each: int,
    runs: int,
    figures: dict[str, Any],
    players: list[Browser],
    cashiers: list[Browser],
    game: Game,
    desk_game: Game,
    staff: list[tuple[str, int]],
) -> tuple[int, int]:
    """``runs`` runs at one level, each ``level`` players buying then ``level`` cashiers
    selling; their figures printed and put in ``figures``. Returns the purchases and sales made."""
    rates: dict[str, list[float]] = {"online": [], "desk": []}
    p95s: dict[str, list[float]] = {"online": [], "desk": []}
    bought = sold = 0
    print(f"{level} players, then {level} cashiers, {requests_each} requests each (1-3 cards), {runs} runs:")
    for run in range(runs):
        tag = f"p{level}-r{run}"

        def buy(i: int, b: Browser, n: int, tag: str = tag) -> tuple[int, bytes]:
            return b.buy(game.pk, 1 + n % 3, f"{tag}-{i}-{n}")

        def sell(i: int, b: Browser, n: int, tag: str = tag) -> tuple[int, bytes]:
            return b.sell(desk_game.pk, staff[i][1], 1 + n % 3, f"{tag}-{i}-{n}")

        latencies, errors, elapsed = load(players[:level], buy, requests_each)
        rate, p95 = measured(latencies, errors, elapsed, f"run {run + 1}, online purchases")
        rates["online"].append(rate)
        p95s["online"].append(p95)
        bought += len(latencies)
        latencies, errors, elapsed = load(cashiers[:level], sell, requests_each)
        rate, p95 = measured(latencies, errors, elapsed, f"run {run + 1}, desk sales      ")
        rates["desk"].append(rate)
        p95s["desk"].append(p95)
        sold += len(latencies)
    for kind in ("online", "desk"):
        print("  " + _spread_line(f"{kind} per second", rates[kind], "/s"))
        print("  " + _spread_line(f"{kind} P95 latency", p95s[kind], "ms"))
        figures[f"{kind}_{level}_per_s"] = spread(rates[kind])
        figures[f"{kind}_{level}_p95_ms"] = spread(p95s[kind])
    ratios = [o / d for o, d in zip(rates["online"], rates["desk"], strict=True)]
    figures[f"online_to_desk_{level}"] = spread(ratios)
    print(
        f"  online purchases/s as a share of the desk's in the same run: "
        f"median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f})"
    )
    return bought, sold


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--players", default="8,32", help="concurrent players (and cashiers), one level each, in order"
    )
    parser.add_argument("--purchases", type=int, default=40, help="requests per player (and cashier) and run")
    parser.add_argument("--runs", type=int, default=3, help="runs of each load at each level")
    parser.add_argument("--workers", type=int, default=2, help="uvicorn workers")
    parser.add_argument("--reference", type=int, default=50, help="in-process purchases for reference")
    args = parser.parse_args()
    levels = [int(n) for n in args.players.split(",")]
    most = max(levels)
    per_player = args.purchases * args.runs * len(levels)
    cards_needed = (sum(levels) * args.purchases * args.runs + args.reference) * 3
    deposit = PRICE * 3 * (per_player + args.reference)
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        print(
            f"{pathlib.Path(__file__).name}: skipped, it measures the production path: set DATABASE_URL "
            "(PostgreSQL) and REDIS_URL (a server subprocess cannot share SQLite's in-memory test database)."
        )
        return
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    print(f"database: {connection.vendor}; Redis: {settings.REDIS_URL or 'none'}")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"bingo.serve --workers {args.workers}, clients: threads of this process"
    )
    process = None
    figures: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            game, names = setup(most, cards_needed, deposit)
            desk_game, staff = desk_setup(most, cards_needed)
            connections.close_all()
            process, address, _log = serve(pathlib.Path(tmp), args.workers)
            SERVER["pid"] = process.pid
            players, cashiers = [], []
            for name in names:
                players.append(Browser(address))
                players[-1].login(name)
            for name, _desk in staff:
                cashiers.append(Browser(address))
                cashiers[-1].login(name)
            loadavg = os.getloadavg()[0]
            print(f"load average (1 min) before the first load: {loadavg:.2f}")
            bought = sold = 0
            for level in levels:
                done = level_runs(
                    level, args.purchases, args.runs, figures, players, cashiers, game, desk_game, staff
                )
                bought, sold = bought + done[0], sold + done[1]
                print("  " + check(game, deposit * most, bought))
                print("  " + check_desk(desk_game, sold))
            for browser in players + cashiers:
                browser.client.close()
            reference(game, names[0], args.reference, figures)
            print("  " + check(game, deposit * most, bought + args.reference))
            record(
                "online_buy",
                figures,
                setup={
                    "levels": levels,
                    "requests_each": args.purchases,
                    "runs": args.runs,
                    "workers": args.workers,
                    "server": "uvicorn, debug off, PostgreSQL pool, Redis",
                },
                note=f"load average (1 min) before the first load: {loadavg:.2f}",
            )
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        connections.close_all()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
