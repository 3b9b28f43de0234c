"""Display benchmark: 500 (or ``--screens N``) room displays on websockets while balls are drawn.

Target: every display shows a ball within 150 ms of its commit at P95 (R28: numbers are shown
"as they are announced"), no delivery lost, and the draw's call not waiting for the screens.
What runs: the real ASGI app (``bingo.asgi.application``) under a real uvicorn on loopback, in
a thread of this process (one server process); the websocket clients (the ``websockets``
package, as uvicorn uses) in separate processes, each connected to ``/ws/ecra/<token>/`` and
holding the state sent at connect. Balls are drawn through ``draw_services.game_draw_ball``
the way the console's view runs it: a sync call in the server's event loop
(``sync_to_async``), so its ``on_commit`` broadcast is the production path
(``events.game_changed``: the state built once and published on the room's topic; the server
process hears the topic once and relays it to its displays, ``bingo.live.fanout``).

Latency per delivery = the time a client read the message - the time the ball's transaction
committed (an ``on_commit`` callback registered before the service's own, so it runs first).
Both clocks are this machine's ``time.time()``. Every display must get every ball: a ball a
display never got counts as lost (a display that skipped a ball but got a later one still
counts the skipped one as lost). The draw's call is timed from its start to its return
(locking, the ball, the commit, building the state and handing it over: not the fan-out).

The raw reference, in the same run (issue 23: the fan-out at the raw socket's pace): a plain
``websockets`` server in a process of its own (uvloop, no compression, no Django, no ASGI, no
channel layer) gets as many clients (the same client code, in as many processes), sends each
the state at connect, then ``websockets.broadcast``s each ball's state (the real one's shape and
size) half an interval after each real ball, so that both see the same machine (on a shared
machine the load moves from minute to minute; ``--interval`` should leave each ball's delivery
room to end before the next: 2 s at 5,000 screens); latency = the broadcast's start -> the
client's read. The bench prints min/P50/P95/P99 of both,
the ratios (goal: P95 at most 1.3x the reference's), both connect times, and records them with
its setup in bench/results.json (``bench.results.record``).

What it takes of production and what it skips: the ASGI app, its websocket stack and consumers,
uvicorn as the Procfile runs it (websockets-sansio on uvloop, ``--ws-per-message-deflate
false``; ``--deflate`` for uvicorn's default), the Redis channel layer and PostgreSQL (with
REDIS_URL and DATABASE_URL; ``--only-redis``). It skips the separate server process: uvicorn
runs in a thread of the bench's process, whose main thread only sleeps and hands the draws to
the server's loop (as a caller's request would be served by it). The clients are on the same two
cores as the server.

5,000 sockets take more file descriptors than a default soft limit of 1,024: the bench raises
its soft limit (and its clients') to the hard limit, and says so.

Layers: the in-memory channel layer always; Redis too when REDIS_URL is set (each layer in a
fresh child process, since the layer is chosen by the settings at start). A throwaway test
database is created and dropped (SQLite in a temporary file, or PostgreSQL with DATABASE_URL).

Options: ``--gc-freeze`` freezes the garbage collector's generations once the displays are
connected, as a server would after starting (``gc.freeze()``); ``--redis-as-configured`` uses
the Redis layer exactly as settings.py builds it (by default the bench raises redis-py 8's
pool of 100 connections and its 5 s read timeout; see docs/draw.md, "Screens").

Run: python bench/display.py [--screens 500] [--balls 20] [--interval 0.5] [--gc-freeze]
     [--deflate] [--no-reference]
     DATABASE_URL=postgres://… REDIS_URL=redis://127.0.0.1:6379/7 python bench/display.py \
         --screens 5000 --only-redis
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import os
import pathlib
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]

# --- the display clients (no Django in these processes) -------------------------------------------


async def _displays(
    url: str,
    origin: str,
    count: int,
    balls: int,
    ready: Any,
    timeout: float,
    cookies: list[str] | None = None,
    state_at_connect: bool = True,
) -> list[Any]:
    """``count`` screens: connect (with ``cookies[i]``, a logged-in session, when given), read
    the state at connect (a room display gets one; a player's game screen reads its state over
    HTTP instead: ``state_at_connect=False``), then stamp every later message until the ball
    count reaches ``balls``. A message that carries no state (``game.changed``, a notice to
    read it again) is kept with the ball count -1.

    Tells ``ready`` how many connected once each has connected or failed to.
    """
    from websockets.asyncio.client import connect

    received: list[tuple[int, int, float]] = []  # (display, ball count, time read)
    settled = asyncio.Event()
    outcome = {"open": 0, "failed": 0}
    gate = asyncio.Semaphore(50)  # open in waves: a real hall's TVs do not all start at once

    def tally(key: str) -> None:
        outcome[key] += 1
        if outcome["open"] + outcome["failed"] == count:
            settled.set()

    async def one(index: int) -> None:
        try:
            async with gate:
                headers = {"Cookie": cookies[index]} if cookies else None
                ws = await connect(
                    url,
                    origin=origin,
                    proxy=None,
                    open_timeout=60,
                    max_queue=None,
                    additional_headers=headers,
                )
                first = json.loads(await asyncio.wait_for(ws.recv(), 60)) if state_at_connect else {}
        except Exception:  # refused, or closed before its first state
            tally("failed")
            return
        tally("open")
        last = first["game"]["count"] if first.get("game") else 0
        # The first ball comes once every display has connected: 5,000 take minutes.
        wait = 900.0
        try:
            while last < balls:
                text = await asyncio.wait_for(ws.recv(), wait)
                at = time.time()
                message = json.loads(text)
                if message.get("type") == "live.heartbeat":  # the hub's "still here": no news
                    continue
                wait = timeout
                game = message.get("game")
                if isinstance(game, dict):
                    last = game["count"]
                received.append((index, last if isinstance(game, dict) else -1, at))
        except Exception:  # a display that stops hearing shows as missing deliveries
            pass
        finally:
            await ws.close()

    tasks = [asyncio.create_task(one(i)) for i in range(count)]
    await settled.wait()
    ready.send(outcome["open"])
    await asyncio.gather(*tasks)
    return received


def _raise_fd_limit() -> str:
    """Raise this process's soft limit of open files to the hard one; what was done."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return f"open files: soft limit raised from {soft} to {hard}"
    return f"open files: soft limit {soft} (hard {hard})"


def _client_process(
    url: str,
    origin: str,
    count: int,
    balls: int,
    ready: Any,
    results: Any,
    timeout: float,
    cookies: list[str] | None = None,
    state_at_connect: bool = True,
) -> None:
    _raise_fd_limit()
    received = asyncio.run(_displays(url, origin, count, balls, ready, timeout, cookies, state_at_connect))
    results.send(received)


# --- the raw reference: websockets.broadcast, no Django, no ASGI -------------------------------------


def _reference_process(control: Any, first: str | None, texts: dict[int, str]) -> None:
    """A plain ``websockets`` server (uvloop, as uvicorn runs; no compression; no Django, no
    ASGI, no channel layer): each client is sent ``first`` at connect when given, then, each
    time ``control`` names a ball, ``websockets.broadcast`` of its text to every client, stamped
    (``time.time()``) just before the broadcast; the stamp goes back through ``control``."""
    import uvloop
    from websockets.asyncio.server import broadcast, serve

    _raise_fd_limit()

    async def main() -> None:
        clients: set[Any] = set()

        async def handler(ws: Any) -> None:
            clients.add(ws)
            try:
                if first is not None:
                    await ws.send(first)
                await ws.wait_closed()
            finally:
                clients.discard(ws)

        async with serve(handler, "127.0.0.1", 0, compression=None, backlog=8192) as server:
            control.send(server.sockets[0].getsockname()[1])
            loop = asyncio.get_running_loop()
            while True:
                ball = await loop.run_in_executor(None, control.recv)
                if ball is None:
                    break
                at = time.time()
                broadcast(clients, texts[ball])
                control.send(at)

    uvloop.run(main())


class Reference:
    """The raw reference, interleaved with the real run: a ``websockets.broadcast`` server in a
    process of its own and ``screens`` clients of it (the same client code, in ``procs``
    processes), connected at once; ``ball(n)`` broadcasts ball n's text, stamped just before;
    ``finish()`` gathers what the clients read. Its balls fall between the real run's, so both
    see the same machine (the other processes' load moves from minute to minute)."""

    def __init__(
        self, screens: int, balls: int, procs: int, texts: dict[int, str], first: str | None
    ) -> None:
        context = multiprocessing.get_context("spawn")
        self.screens = screens
        self.control, there = context.Pipe()
        self.server = context.Process(target=_reference_process, args=(there, first, texts), daemon=True)
        self.server.start()
        if not self.control.poll(60):
            raise RuntimeError("the reference server did not start")
        port = self.control.recv()
        url, origin = f"ws://127.0.0.1:{port}/", f"http://127.0.0.1:{port}"
        share = [screens // procs + (1 if i < screens % procs else 0) for i in range(procs)]
        began = time.perf_counter()
        self.clients = Clients(
            [(url, origin, count, None) for count in share], balls + 1, state_at_connect=first is not None
        )
        self.connected = self.clients.connected()
        self.connect_seconds = time.perf_counter() - began
        self.stamps: dict[int, float] = {}

    def ball(self, ball: int) -> None:
        self.control.send(ball)
        self.stamps[ball] = self.control.recv()

    def finish(self) -> dict[str, float]:
        """Its figures (``deliveries_report``'s, broadcast -> screen); prints them."""
        try:
            received = self.clients.received()
            self.control.send(None)
        finally:
            self.server.join(10)
            if self.server.is_alive():
                self.server.kill()
        print(
            "raw reference (websockets.broadcast, uvloop, no compression): "
            f"{self.connected} of {self.screens} connected in {self.connect_seconds:.1f} s"
        )
        return deliveries_report(received, self.stamps, self.connected, 0, label="broadcast -> screen")


def ball_texts(
    state: dict[str, Any], balls: int, wrap: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[int, str]:
    """For the reference: ball n's message in the real one's shape and size (``wrap`` of
    ``state``, the state before the measured balls, with n balls: its own, then 1, 2, …; a real
    state later holds prizes and winners too, so the reference's texts are, if anything,
    smaller), as JSON."""
    texts = {}
    game = state["game"]
    drawn = list(game["balls"])
    balls_of = drawn + [n for n in range(1, 91) if n not in drawn]
    for n in range(1, balls + 2):
        shown = dict(state, game=dict(game, balls=balls_of[:n], count=n, last=balls_of[n - 1]))
        texts[n] = json.dumps(wrap(shown))
    return texts


def comparison_figures(
    real: dict[str, float],
    connect_seconds: float,
    raw: dict[str, float],
    raw_connect_seconds: float,
    ratios: dict[str, float],
) -> dict[str, Any]:
    """What a run against the raw reference records (bench/results.json): ours, the raw
    server's, and their ratios (``compare_report``)."""
    return {
        **real,
        "connect_s": round(connect_seconds, 1),
        **{f"raw_{key}": raw.get(key) for key in ("min_ms", "p50_ms", "p95_ms", "p99_ms", "lost")},
        "raw_connect_s": round(raw_connect_seconds, 1),
        **{f"ratio_{key.removesuffix('_ms')}": round(value, 2) for key, value in ratios.items()},
    }


def compare_report(real: dict[str, float], raw: dict[str, float]) -> dict[str, float]:
    """Print the real run's latencies against the raw reference's; the ratios."""
    ratios = {key: real[key] / raw[key] for key in ("p50_ms", "p95_ms", "p99_ms") if raw.get(key)}
    print(
        "against the raw reference: "
        + ", ".join(
            f"{key.removesuffix('_ms').upper()} {real[key]:.1f} / {raw[key]:.1f} ms = {ratio:.2f}x"
            for key, ratio in ratios.items()
        )
        + (
            f" (goal P95 <= 1.3x: {'met' if ratios.get('p95_ms', 99) <= 1.3 else 'MISSED'})"
            if "p95_ms" in ratios
            else ""
        )
    )
    return ratios


# --- one layer: server, game, draw ------------------------------------------------------------------


def _setup(displays: int) -> tuple[Any, Any, str]:
    """A hall with a room, a game of 600 sold cards, drawing electronically; its display token."""
    from datetime import timedelta
    from decimal import Decimal

    from django.contrib.auth.models import User
    from django.utils import timezone

    from bingo.common.roles import Role
    from bingo.draw import selectors as draw_selectors
    from bingo.draw import services as draw_services
    from bingo.engine import ALGORITHM_CARDS
    from bingo.games import services
    from bingo.sales import services as sales_services
    from cards import services as card_services
    from halls.models import CashDesk, Hall, Room, StaffMembership

    hall = Hall.objects.create(name="Bench")
    room = Room.objects.create(hall=hall, name="Sala")
    card_services.INLINE_LIMIT = 10**6
    card_set = card_services.card_set_request(
        variant="90", size=1_000, seed=1, algorithm=ALGORITHM_CARDS, user=None
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
    cashier = User.objects.create(username="caixa")
    caller = User.objects.create(username="locutor")
    StaffMembership.objects.create(hall=hall, user=cashier, role=Role.CASHIER.value)
    StaffMembership.objects.create(hall=hall, user=caller, role=Role.CALLER.value)
    desk = CashDesk.objects.create(hall=hall, name="Caixa 1")
    sales_services.sale_make(
        game=game,
        quantity=600,
        cash_desk=desk,
        cashier=cashier,
        cash_received=Decimal("60000"),
        request_key="b",
    )
    services.game_close_sales(game=game)
    game = draw_services.game_start_draw(game=game, user=caller, mode="electronic")
    return game, caller, draw_selectors.display_token(room=room)


def _serve(deflate: bool = False) -> tuple[Any, asyncio.AbstractEventLoop, int, threading.Thread]:
    """uvicorn serving the ASGI app in a thread of its own, with its event loop exposed: uvloop
    and websockets-sansio, as ``uvicorn`` picks them in production, and permessage-deflate off
    as the Procfile runs it (``deflate``: uvicorn's default, on)."""
    import uvicorn
    import uvloop

    from bingo.asgi import application

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            application,
            lifespan="off",
            log_level="warning",
            backlog=8192,
            ws="websockets-sansio",
            ws_per_message_deflate=deflate,
        )
    )
    loop = uvloop.new_event_loop()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.serve(sockets=[sock]))

    thread = threading.Thread(target=run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    return server, loop, port, thread


def _percentile(ordered: list[float], q: float) -> float:
    return ordered[max(0, min(len(ordered) - 1, round(q * len(ordered)) - 1))]


class Clients:
    """Client processes (spawned, no Django in them), each holding its share of the screens.

    ``jobs``: one ``(url, origin, count, cookies)`` per process; ``cookies`` a session cookie
    per screen, or None. Each screen stops once it has heard ball ``balls``.
    """

    def __init__(
        self, jobs: list[tuple[str, str, int, list[str] | None]], balls: int, state_at_connect: bool
    ) -> None:
        context = multiprocessing.get_context("spawn")
        self.share = [count for _, _, count, _ in jobs]
        self.pipes: list[tuple[Any, Any]] = []
        self.workers: list[Any] = []
        for url, origin, count, cookies in jobs:
            ready_out, ready_in = context.Pipe(duplex=False)
            results_out, results_in = context.Pipe(duplex=False)
            worker = context.Process(
                target=_client_process,
                args=(url, origin, count, balls, ready_in, results_in, 30.0, cookies, state_at_connect),
                daemon=True,
            )
            worker.start()
            self.pipes.append((ready_out, results_out))
            self.workers.append(worker)

    def connected(self) -> int:
        """Once every screen has connected or failed to: how many connected."""
        connected = 0
        for ready_out, _ in self.pipes:
            if not ready_out.poll(600):
                raise RuntimeError("the screens neither connected nor failed within 10 minutes")
            connected += ready_out.recv()
        return connected

    def received(self) -> list[tuple[int, int, float]]:
        """Every message the screens read: (screen, ball count or -1, time read); waits for them."""
        received: list[tuple[int, int, float]] = []
        for offset, (_, results_out) in enumerate(self.pipes):
            for screen, count, at in results_out.recv():
                received.append((screen + sum(self.share[:offset]), count, at))
        for worker in self.workers:
            worker.join(30)
        return received


def deliveries_report(
    received: list[tuple[int, int, float]],
    commits: dict[int, float],
    connected: int,
    target_ms: float,
    label: str = "commit -> screen",
) -> dict[str, float]:
    """Print what the screens got of the balls in ``commits`` (position -> commit time; the
    warm-up ball 1 left out): lost, the latencies from commit to read, the spread of a ball.
    Returns the figures (``min_ms``, ``p50_ms``, ``p95_ms``, ``p99_ms``, ``max_ms``, ``lost``,
    ``spread_ms``: first to last screen of a ball, median).

    The first time each screen read each ball counts; a repeat (a later state with the same
    balls, after a prize) is no delivery; a screen that skipped a ball but got a later one still
    counts the skipped one as lost.
    """
    first: dict[tuple[int, int], float] = {}
    for screen, count, at in received:
        if count in commits and count > 1:
            first[(screen, count)] = min(at, first.get((screen, count), at))
    resyncs = sum(1 for _, count, _ in received if count == -1)
    repeats = len(received) - len(first) - resyncs
    latencies = sorted((at - commits[count]) * 1000 for (_, count), at in first.items())
    expected = connected * len([p for p in commits if p > 1])
    lost = expected - len(latencies)
    print(
        f"deliveries: {len(latencies):,} of {expected:,} expected, {lost:,} lost"
        + ("" if lost == 0 else " (LOST SOME)")
        + (f"; {repeats:,} repeated states besides" if repeats else "")
        + f"; {resyncs:,} notices to read the state again (a missed message)"
    )
    if not latencies:
        return {"lost": float(lost)}
    p95 = _percentile(latencies, 0.95)
    target = (
        f" (target P95 < {target_ms:g} ms: {'met' if p95 < target_ms else 'MISSED'})" if target_ms else ""
    )
    print(
        f"{label}: min {latencies[0]:.1f} ms, P50 {statistics.median(latencies):.1f} ms, "
        f"P95 {p95:.1f} ms, P99 {_percentile(latencies, 0.99):.1f} ms, max {latencies[-1]:.1f} ms" + target
    )
    per_ball: dict[int, list[float]] = {}
    for (_, count), at in first.items():
        per_ball.setdefault(count, []).append(at)
    spread = [(max(v) - min(v)) * 1000 for v in per_ball.values()]
    print(
        f"first to last screen of one ball: median {statistics.median(spread):.1f} ms, "
        f"max {max(spread):.1f} ms"
    )
    per_ball_p95 = {
        count: _percentile(sorted((at - commits[count]) * 1000 for at in ats), 0.95)
        for count, ats in per_ball.items()
    }
    slowest = sorted(per_ball_p95, key=per_ball_p95.__getitem__, reverse=True)[:3]
    print(
        "slowest balls (P95 of each): "
        + ", ".join(f"ball {count} {per_ball_p95[count]:.0f} ms" for count in slowest)
        + f"; the median ball's P95 {statistics.median(per_ball_p95.values()):.0f} ms"
    )
    return {
        "min_ms": round(latencies[0], 1),
        "p50_ms": round(statistics.median(latencies), 1),
        "p95_ms": round(p95, 1),
        "p99_ms": round(_percentile(latencies, 0.99), 1),
        "max_ms": round(latencies[-1], 1),
        "spread_ms": round(statistics.median(spread), 1),
        "lost": float(lost),
        "resyncs": float(resyncs),
    }


def calls_report(
    commits: dict[int, float], returned: dict[int, float], calls: dict[int, float], what: str
) -> None:
    """Print how long the draw's call took (start to return, ms in ``calls``) and how long after
    its commit it returned (the hand-over to the fan-out ran in it, not the fan-out)."""
    handed = sorted((returned[p] - commits[p]) * 1000 for p in commits if p in returned and p > 1)
    print(f"commit -> {what} returns: median {statistics.median(handed):.1f} ms, max {handed[-1]:.1f} ms")
    took = sorted(calls[p] for p in calls if p > 1)
    print(
        f"{what}, start to return: min {took[0]:.1f} ms, median {statistics.median(took):.1f} ms, "
        f"P95 {_percentile(took, 0.95):.1f} ms, max {took[-1]:.1f} ms"
    )


def measure(
    displays: int,
    balls: int,
    interval: float,
    procs: int,
    gc_freeze: bool = False,
    deflate: bool = False,
    reference: bool = True,
) -> None:
    from asgiref.sync import sync_to_async
    from django.conf import settings
    from django.db import connections, transaction

    from bingo.draw import selectors as draw_selectors
    from bingo.draw import services as draw_services

    load_before = os.getloadavg()
    game, caller, token = _setup(displays)
    server, loop, port, thread = _serve(deflate)
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    commits: dict[int, float] = {}
    announced: dict[int, float] = {}
    calls: dict[int, float] = {}

    def draw(position: int) -> None:
        began = time.perf_counter()
        with transaction.atomic():
            # Runs first after the commit, before the service's broadcast: the commit time.
            transaction.on_commit(lambda: commits.__setitem__(position, time.time()))
            draw_services.game_draw_ball(game=game, user=caller, position=position)
        # The service's on_commit has run: the state built and handed over to be published on
        # the room's topic, the consoles' and the price board's (bingo.live.fanout.publish).
        announced[position] = time.time()
        calls[position] = (time.perf_counter() - began) * 1000
        connections.close_all()

    def draw_in_server(position: int) -> None:
        asyncio.run_coroutine_threadsafe(sync_to_async(draw)(position), loop).result(30)

    draw_in_server(1)  # warm-up, not measured: imports, first queries, first group send
    url = f"ws://127.0.0.1:{port}/ws/ecra/{token}/"
    origin = f"http://127.0.0.1:{port}"
    share = [displays // procs + (1 if i < displays % procs else 0) for i in range(procs)]
    began = time.perf_counter()
    clients = Clients([(url, origin, count, None) for count in share], balls + 1, state_at_connect=True)
    connected = clients.connected()
    connect_seconds = time.perf_counter() - began
    raw: Reference | None = None
    if reference:
        # Each display got the state at connect (ball 1's); the reference's clients get its
        # first text so, then balls 2 to balls + 1, each half an interval after the real one.
        texts = ball_texts(draw_selectors.display_state(room_id=game.session.room_id), balls, lambda s: s)
        raw = Reference(displays, balls, procs, texts, first=texts[1])
    if gc_freeze:
        # What a server would do once started: a full collection then walks only new objects.
        gc.collect()
        gc.freeze()

    for position in range(2, balls + 2):
        time.sleep(interval / 2 if raw else interval)
        draw_in_server(position)
        if raw is not None:
            time.sleep(interval / 2)
            raw.ball(position)

    received = clients.received()
    server.should_exit = True
    thread.join(15)

    print(f"layer: {layer}; database: {connections['default'].vendor}")
    failed = "" if connected == displays else f" ({displays - connected} FAILED to connect)"
    print(f"{connected} of {displays} displays connected in {connect_seconds:.1f} s{failed}")
    print(f"{balls} balls, one every {interval:g} s")
    print("garbage collector: " + ("frozen after start (gc.freeze)" if gc_freeze else "as Python defaults"))
    print(
        "websocket compression (permessage-deflate): "
        + ("on, uvicorn's default (--deflate)" if deflate else "off, as the Procfile serves")
    )
    real = deliveries_report(received, commits, connected, 150)
    if commits:
        calls_report(commits, announced, calls, "the draw's call (events.game_changed ran in it)")
    if raw is None:
        return
    raw_figures = raw.finish()
    ratios = compare_report(real, raw_figures)
    load_after = os.getloadavg()
    print(f"load average (1 min): before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    from bench.results import record

    record(
        "display",
        {
            **comparison_figures(real, connect_seconds, raw_figures, raw.connect_seconds, ratios),
            "load_before": round(load_before[0], 2),
        },
        setup={
            "screens": displays,
            "balls": balls,
            "interval_s": interval,
            "reference": "websockets.broadcast, interleaved (half an interval after each ball)",
            "layer": layer,
            "database": connections["default"].vendor,
            "server": "uvicorn in the bench's process (uvloop, websockets-sansio)",
            "deflate": deflate,
            "client_processes": procs,
        },
    )


def child(args: argparse.Namespace) -> None:
    """One layer in this process: a throwaway database, the server, the clients, the figures."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")
    import django

    django.setup()
    from django.db import connection, connections
    from django.test.utils import setup_test_environment

    setup_test_environment()
    print(_raise_fd_limit())
    if args.layer == "redis" and not args.redis_as_configured:
        from django.conf import settings

        # Two defaults of redis-py 8 that channels_redis 4.3 trips over (docs/draw.md, Screens):
        # a pool of 100 connections, which 500 displays joining or leaving their group at once
        # exhaust (MaxConnectionsError), and a 5 s read timeout, the very time channels_redis
        # blocks waiting for a message (BZPOPMIN 5): an idle consumer may fail with "Timeout
        # reading" and close its display's websocket.
        hosts = [{"address": os.environ["REDIS_URL"], "max_connections": 1000, "socket_timeout": 10}]
        settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"] = hosts
        print(
            "Redis layer: pool of 1000 connections, 10 s read timeout (--redis-as-configured: as in settings)"
        )
    old_name = connection.settings_dict["NAME"]
    with tempfile.TemporaryDirectory() as scratch:
        if connection.vendor == "sqlite":  # a file, so the server's threads share it
            connection.settings_dict["TEST"]["NAME"] = str(pathlib.Path(scratch) / "bench.sqlite3")
        connection.creation.create_test_db(verbosity=0, autoclobber=True)
        try:
            measure(
                args.displays,
                args.balls,
                args.interval,
                args.procs,
                args.gc_freeze,
                args.deflate,
                not args.no_reference,
            )
        finally:
            connections.close_all()
            connection.creation.destroy_test_db(old_name, verbosity=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screens", "--displays", dest="displays", type=int, default=500)
    parser.add_argument("--balls", type=int, default=20, help="balls measured (after one warm-up ball)")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between balls")
    parser.add_argument("--procs", type=int, default=2, help="client processes sharing the displays")
    parser.add_argument(
        "--redis-as-configured", action="store_true", help="the Redis layer as settings.py sets it up"
    )
    parser.add_argument(
        "--gc-freeze", action="store_true", help="gc.freeze() once the displays are connected"
    )
    parser.add_argument(
        "--deflate",
        action="store_true",
        help="uvicorn with its default permessage-deflate (the Procfile turns it off)",
    )
    parser.add_argument(
        "--no-reference", action="store_true", help="skip the raw websockets.broadcast reference"
    )
    parser.add_argument("--only-redis", action="store_true", help="skip the in-memory layer")
    parser.add_argument("--layer", choices=["memory", "redis"], help="run one layer in this process")
    args = parser.parse_args()
    if args.layer:
        child(args)
        return
    layers = [] if args.only_redis else ["memory"]
    layers += ["redis"] if os.environ.get("REDIS_URL") else []
    for name in layers:
        env = dict(os.environ)
        if name == "memory":
            env.pop("REDIS_URL", None)
        argv = [sys.executable, __file__, "--layer", name]
        argv += ["--displays", str(args.displays), "--balls", str(args.balls)]
        argv += ["--interval", str(args.interval), "--procs", str(args.procs)]
        argv += ["--gc-freeze"] if args.gc_freeze else []
        argv += ["--redis-as-configured"] if args.redis_as_configured else []
        argv += ["--deflate"] if args.deflate else []
        argv += ["--no-reference"] if args.no_reference else []
        subprocess.run(argv, env=env, check=True)
        print()
    if "redis" not in layers:
        print("REDIS_URL not set: the Redis channel layer was not measured.")


if __name__ == "__main__":
    main()
