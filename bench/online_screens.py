"""Online screens benchmark: 1,000 (``--players N``) players following one online game while the
system draws its balls, through the real stack.

Target (issue 12): every player's screen receives each ball within 250 ms of its commit at P95
on this 2-core machine, with no delivery lost.

What runs:

* a throwaway PostgreSQL database (``DATABASE_URL``, default
  ``postgres://postgres@127.0.0.1:5432/bingo_bench_screens``: Django's test database beside it
  is created and dropped) and Redis (``REDIS_URL``, default ``redis://127.0.0.1:6379/14``) with a
  channel-layer prefix (``CHANNEL_LAYER_PREFIX``) and a Celery queue of this run's own, whose
  keys are deleted at the end;
* one uvicorn process (``--workers 2``: two, on two ports, the players split between them, as
  ``make up``'s Procfile runs them), started as the Procfile starts it (debug off, the static
  manifest collected into a temporary folder, ``--ws-per-message-deflate false``; uvicorn's
  defaults otherwise: websockets-sansio on uvloop);
* an online room (continuous mode, R90) with a 90-ball game: N players, each a user with the
  player role, a wallet and one card bought through ``online_buy``, each with a logged-in
  session written to the database (signed with the ``DJANGO_SECRET_KEY`` the servers get);
* N websocket clients (the ``websockets`` package) in ``--procs`` client processes beside it
  (``bench/display.py``'s clients), each connected to ``ws/online/game/<id>/`` with its cookie;
* the balls drawn in this process through the service the Celery task calls,
  ``bingo.autodraw.services.online_ball_draw(game_id=, position=)``, once the ball is due
  (``next_ball_at``, the game's interval after the previous ball: ``--interval``, at least 1 s,
  R88); not the task run eagerly. Its after-commit work is the production one: the state built
  once and handed to ``bingo.live.fanout.publish`` (which sends from this process's sending
  thread to Redis), and the next ball's task sent to the broker (to this run's queue, which no
  worker reads). Ball 1 warms up and is not measured; then ``--balls`` K (default 20).

Latency per delivery = the time a client read the message - the time the ball's transaction
committed (an ``on_commit`` callback registered before the service's own). Both are this
machine's ``time.time()``. Lost = N x K minus the distinct (player, ball) pairs received. A
``game.changed`` message (a screen told to read its state again, a missed message) is counted.
The service's call is timed from its start to its return: the lock, the ball, the prizes and
payments, the commit, the state built and handed over; not the fan-out.

The raw reference, in the same run (issue 23): a plain ``websockets`` server in a process of its
own (uvloop, no compression, no Django, no ASGI, no Redis) gets as many clients (the same client
code, in as many processes), and ``websockets.broadcast``s each ball's message (the real one's
shape and size) half an interval after each real ball, so that both see the same machine
(``--interval 2`` leaves 5,000 screens' deliveries room to end before the next ball); latency =
the broadcast's start -> the client's read. Printed: min/P50/P95/P99 of
both, the ratios (goal: P95 at most 1.3x the reference's), both connect times; recorded in
bench/results.json with the setup (``bench.results.record``). Nothing of production is skipped
in the real run but the proxy in front and the Celery worker (the ball's service is called
here, as the worker's task calls it).

Run: python bench/online_screens.py [--players 1000] [--balls 20] [--workers 1|2] [--procs 2]
     [--deflate] [--no-reference] [--py-spy /path/to/py-spy]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any
from urllib.parse import quote

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # before bench/ (this script's folder): bench/cards.py is no package
if str(ROOT / "bench") not in sys.path:
    sys.path.append(str(ROOT / "bench"))

from display import (  # noqa: E402
    Clients,
    Reference,
    _raise_fd_limit,
    ball_texts,
    calls_report,
    compare_report,
    comparison_figures,
    deliveries_report,
)

TARGET_MS = 250.0


def _environment() -> dict[str, str]:
    """This run's settings, for this process and the servers: one secret, prefix and queue."""
    run = uuid.uuid4().hex[:12]
    values = {
        "DATABASE_URL": os.environ.get(
            "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bingo_bench_screens"
        ),
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14"),
        "CHANNEL_LAYER_PREFIX": f"bench-screens-{run}",
        "CELERY_TASK_DEFAULT_QUEUE": f"bench-screens-{run}",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_DEBUG": "false",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
    }
    os.environ.update(values)
    return values


def _setup(players: int, interval: str) -> tuple[int, list[str]]:
    """An online room whose game is drawing, N players holding a card each; the game's id and
    each player's session cookie."""
    from datetime import date
    from decimal import Decimal

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import Group, User
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone

    from bingo.autodraw import services as autodraw
    from bingo.common.roles import Role
    from bingo.engine import ALGORITHM_CARDS
    from bingo.models import Game, Player
    from bingo.online import services as online_services
    from bingo.players import services as player_services
    from cards import services as card_services
    from halls.models import Hall, StaffMembership

    hall = Hall.objects.create(name="Bench online")
    card_services.INLINE_LIMIT = 10**6
    card_set = card_services.card_set_request(
        variant="90", size=players, seed=1, algorithm=ALGORITHM_CARDS, user=None
    )
    card_services.series_create(
        hall=hall, order_number=1, card_set=card_set, price="1", back_colour="#000000",
        face_colour="#FFFFFF", authorization="bench", online=True, user=None,
    )  # fmt: skip
    online = online_services.online_room_create(
        hall=hall, name="Sala online", mode="continuous", ball_interval=interval, sales_seconds=3600
    )
    cashier = User.objects.create(username="caixa")
    StaffMembership.objects.create(hall=hall, user=cashier, role=Role.CASHIER.value)
    users = User.objects.bulk_create([User(username=f"jogador{n}", password="!") for n in range(players)])
    group, _ = Group.objects.get_or_create(name=Role.PLAYER.value)
    User.groups.through.objects.bulk_create([User.groups.through(user=u, group=group) for u in users])
    now = timezone.now()
    people = Player.objects.bulk_create(
        [Player(user=u, hall=hall, birth_date=date(1990, 1, 1), adult_confirmed_at=now) for u in users]
    )
    game = autodraw.online_room_advance(room_id=online.pk)
    assert game is not None, "the room opened no game"
    cookies = []
    for n, (user, player) in enumerate(zip(users, people, strict=True)):
        player_services.wallet_post(
            player=player, kind="deposit", amount=Decimal("10"), recorded_by=cashier, reference="bench"
        )
        online_services.online_buy(player=player, game=game, quantity=1, key=f"bench-{n}")
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.save()
        cookies.append(f"{settings.SESSION_COOKIE_NAME}={store.session_key}")
    Game.objects.filter(pk=game.pk).update(sales_close_at=timezone.now())
    autodraw.online_game_sales_close(game_id=game.pk)  # R93; starts the draw (its first ball is queued)
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING, game.state
    return game.pk, cookies


def _database_url(configured: str) -> str:
    """``configured`` (a PostgreSQL URL) naming the test database this process created."""
    from urllib.parse import urlsplit, urlunsplit

    from django.db import connection

    parts = urlsplit(configured)
    return urlunsplit(parts._replace(path="/" + quote(connection.settings_dict["NAME"], safe="")))


def _servers(count: int, values: dict[str, str], scratch: pathlib.Path, deflate: bool) -> list[Any]:
    """``count`` uvicorn processes, one worker each, on ports of their own: as the Procfile's
    ``web`` runs (its options, ``--ws-per-message-deflate false`` among them; ``--deflate``
    leaves uvicorn's default compression on)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL", "CELERY_", "CHANNEL_LAYER_"))
    }
    env.update(values, DATABASE_URL=_database_url(values["DATABASE_URL"]), BINGO_VAR_DIR=str(scratch / "var"))
    env["DJANGO_STATIC_ROOT"] = str(scratch / "static")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    servers = []
    for n in range(count):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        command = [
            *(sys.executable, "-m", "uvicorn", "bingo.asgi:application"),
            *("--host", "127.0.0.1", "--port", str(port), "--workers", "1"),
            *("--no-proxy-headers", "--log-level", "warning"),
            *([] if deflate else ["--ws-per-message-deflate", "false"]),  # the Procfile's
        ]
        log = (scratch / f"uvicorn-{n}.log").open("w")
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        process.port = port  # type: ignore[attr-defined]
        servers.append(process)
    for n, process in enumerate(servers):
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", process.port), timeout=1).close()
                break
            except OSError as error:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"uvicorn did not start:\n{(scratch / f'uvicorn-{n}.log').read_text()}"
                    ) from error
                time.sleep(0.2)
    return servers


def _profile(py_spy: str, server: Any) -> Any:
    """py-spy sampling ``server`` while the balls are drawn: collapsed stacks (``--format raw``,
    a line per stack and its count) in ``online-screens-<port>.txt`` in the current folder."""
    output = pathlib.Path.cwd() / f"online-screens-{server.port}.txt"
    print(f"profiling pid {server.pid} with py-spy into {output}")
    command = [
        py_spy,
        "record",
        "--pid",
        str(server.pid),
        "--format",
        "raw",
        "--rate",
        "200",
        "-o",
        str(output),
    ]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def measure(args: argparse.Namespace, values: dict[str, str], scratch: pathlib.Path) -> None:
    from django.db import connections, transaction
    from django.utils import timezone

    from bingo.autodraw.services import online_ball_draw
    from bingo.models import Game

    load_before = os.getloadavg()
    began = time.perf_counter()
    game_id, cookies = _setup(args.players, str(args.interval))
    print(
        f"{args.players} players set up (users, wallets, one card each, sessions) "
        f"in {time.perf_counter() - began:.0f} s"
    )
    servers = _servers(args.workers, values, scratch, args.deflate)
    print(
        "server processes (uvicorn, one worker each): "
        + ", ".join(f"pid {s.pid} on :{s.port}" for s in servers)
    )
    try:
        jobs = []
        for n in range(args.procs):
            mine = cookies[n :: args.procs]
            port = servers[n % len(servers)].port
            jobs.append(
                (
                    f"ws://127.0.0.1:{port}/ws/online/game/{game_id}/",
                    f"http://127.0.0.1:{port}",
                    len(mine),
                    mine,
                )
            )
        began = time.perf_counter()
        clients = Clients(jobs, args.balls + 1, state_at_connect=False)
        connected = clients.connected()
        profilers = [_profile(args.py_spy, server) for server in servers] if args.py_spy else []
        connect_seconds = time.perf_counter() - began
        raw: Reference | None = None
        if not args.no_reference:
            from bingo.draw.selectors import display_state
            from bingo.live.events import online_game_message

            room_id = Game.objects.values_list("session__room_id", flat=True).get(pk=game_id)
            texts = ball_texts(
                display_state(room_id=room_id), args.balls, lambda shown: online_game_message(game_id, shown)
            )
            raw = Reference(args.players, args.balls, args.procs, texts, first=None)

        commits: dict[int, float] = {}
        returned: dict[int, float] = {}
        calls: dict[int, float] = {}
        for position in range(1, args.balls + 2):
            due = Game.objects.values_list("next_ball_at", flat=True).get(pk=game_id)
            time.sleep(max(0.0, (due - timezone.now()).total_seconds()) + 0.01)
            start = time.perf_counter()
            with transaction.atomic():
                # Runs first after the commit, before the service's own (the publish): the commit time.
                transaction.on_commit(lambda p=position: commits.__setitem__(p, time.time()))  # type: ignore[misc]
                ball = online_ball_draw(game_id=game_id, position=position)
            returned[position] = time.time()
            calls[position] = (time.perf_counter() - start) * 1000
            if ball is None:
                raise RuntimeError(f"ball {position} was not drawn (the game ended, or it was early)")
            if raw is not None:  # half an interval after the real ball: the same machine for both
                time.sleep(args.interval / 2)
                raw.ball(position)
        received = clients.received()
        for profiler in profilers:
            profiler.send_signal(signal.SIGINT)  # py-spy writes its samples and ends
            profiler.wait(30)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(15)
        connections.close_all()
    load_after = os.getloadavg()

    database = connections["default"].settings_dict["NAME"]
    print(
        f"Redis {values['REDIS_URL']} (prefix {values['CHANNEL_LAYER_PREFIX']}); "
        f"PostgreSQL database {database}"
    )
    failed = "" if connected == args.players else f" ({args.players - connected} FAILED to connect)"
    print(f"{connected} of {args.players} players connected in {connect_seconds:.1f} s{failed}")
    print(f"server processes: {args.workers}; client processes: {args.procs}; cores: {os.cpu_count()}")
    print(f"{args.balls} balls measured after a warm-up ball, one every {args.interval:g} s (next_ball_at)")
    print(
        "websocket compression (permessage-deflate): "
        + ("on, uvicorn's default (--deflate)" if args.deflate else "off, as the Procfile serves")
    )
    print(
        "load average (1, 5, 15 min): before "
        + " ".join(f"{v:.1f}" for v in load_before)
        + ", after "
        + " ".join(f"{v:.1f}" for v in load_after)
    )
    real = deliveries_report(received, commits, connected, TARGET_MS)
    calls_report(commits, returned, calls, "online_ball_draw")
    if raw is None:
        return
    raw_figures = raw.finish()
    ratios = compare_report(real, raw_figures)
    from bench.results import record

    record(
        "online_screens",
        {
            **comparison_figures(real, connect_seconds, raw_figures, raw.connect_seconds, ratios),
            "load_before": round(load_before[0], 2),
            "load_after": round(load_after[0], 2),
        },
        setup={
            "screens": args.players,
            "balls": args.balls,
            "interval_s": args.interval,
            "reference": "websockets.broadcast, interleaved (half an interval after each ball)",
            "servers": args.workers,
            "server": "uvicorn processes as the Procfile starts them",
            "deflate": args.deflate,
            "client_processes": args.procs,
            "layer": "RedisChannelLayer",
            "database": "postgresql",
        },
    )


def _redis_clean(values: dict[str, str]) -> None:
    """Delete this run's keys: the channel layer's (its prefix) and the Celery queue's."""
    import redis

    client = redis.Redis.from_url(values["REDIS_URL"])
    queue = values["CELERY_TASK_DEFAULT_QUEUE"]
    keys = list(client.scan_iter(f"{values['CHANNEL_LAYER_PREFIX']}*")) + list(client.scan_iter(f"*{queue}*"))
    if keys:
        client.delete(*keys)
    client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--balls", type=int, default=20, help="balls measured (after one warm-up ball)")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between balls (R88: at least 1)")
    parser.add_argument("--workers", type=int, default=1, choices=[1, 2], help="uvicorn processes")
    parser.add_argument("--procs", type=int, default=2, help="client processes sharing the players")
    parser.add_argument("--py-spy", metavar="PATH", help="profile the servers with this py-spy executable")
    parser.add_argument(
        "--deflate",
        action="store_true",
        help="uvicorn's default permessage-deflate (the Procfile turns it off)",
    )
    parser.add_argument(
        "--no-reference", action="store_true", help="skip the raw websockets.broadcast reference"
    )
    args = parser.parse_args()
    if args.procs % args.workers:
        parser.error("--procs must be a multiple of --workers (each client process talks to one server)")
    values = _environment()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")
    import django

    django.setup()
    from django.db import connection, connections
    from django.test.utils import setup_test_environment

    from bingo.live import fanout

    setup_test_environment()
    print(_raise_fd_limit())
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            measure(args, values, pathlib.Path(scratch))
    finally:
        fanout.flush()
        connections.close_all()
        connection.creation.destroy_test_db(old_name, verbosity=0)
        _redis_clean(values)


if __name__ == "__main__":
    main()
