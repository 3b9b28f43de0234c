"""Online draw benchmark: one online game with 100,000 cards sold to 2,000 players, played ball by
ball through the real autodraw service ``bingo.autodraw.services.online_ball_draw``.

What a ball costs in production is the Celery task ``autodraw.draw_ball``, which is one call of
``online_ball_draw(game_id=, position=)``: the game's row lock, the ball inserted, detection over
every card sold, every prize held awarded (R44, R46), the winners paid into their wallets (R97),
then after commit the room's displays told (``events.game_changed`` over the Redis channel
layer when REDIS_URL is set) and the next ball's task queued on the Celery broker. This bench
calls that function itself, in this process, ball after ball; it does not go through a Celery
worker (the task is that one call), so the broker's delivery and the worker's scheduling are
not in the figures. The queued next-ball tasks go to a queue of the bench's own
(``CELERY_TASK_DEFAULT_QUEUE=bench-online-draw``) that no worker reads, and are deleted at the end.

The clock: a ball is drawn only when due, at least ``ball_interval`` (≥ 1 s, R88) after the one
before. Rather than wait a second between balls, the bench gives the autodraw service a clock
(``bingo.autodraw.services.timezone``) that runs ``--ahead`` seconds (default 3600) ahead of the
real one, so every ball is due when asked for; the balls, prizes and payments keep real times.

Figures per ball (milliseconds, wall time): the whole service call; the detection step alone,
``Detector.draw`` (the engine following the new ball over every card, the figure docs/draw.md's
budget is about: 100,000 cards < 1 ms median per ball); and every ``detection.detector_use``
of the call (reading the balls and prizes, bringing the process's detector up to date, the
readers: winners, and the displays' one-to-go counts). The first ball builds the game's
detector (reading the 100,000 cards from the card set): reported apart and left out of the
per-ball figures. The balls that paid prizes are listed with the winners paid and their cost.
The figures (min, median, P95 over the balls of the game, nearest rank) go to
bench/results.json (bench/results.py).

Setup (not measured): a 100,000-card online series (generated), 2,000 players registered with a
deposit at the desk (``wallet_deposit``), each buying 50 cards with ``online_buy`` (the online
purchase service; the HTTP path is bench/online_buy.py's), the room's sales closed and the draw
started by the autodraw services (``online_game_sales_close``). A throwaway database is created
and dropped (PostgreSQL with DATABASE_URL).

Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bingo_bench_online \
     REDIS_URL=redis://127.0.0.1:6379/12 python bench/online_draw.py [--players 2000] [--cards 50]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import statistics
import sys
import time
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")
os.environ["CELERY_TASK_DEFAULT_QUEUE"] = QUEUE = "bench-online-draw"

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import Group, User  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.db.models import Sum  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.results import record, spread  # noqa: E402
from bingo.autodraw import services as autodraw  # noqa: E402
from bingo.common.roles import Role  # noqa: E402
from bingo.draw import detection  # noqa: E402
from bingo.draw import services as draw_services  # noqa: E402
from bingo.engine import ALGORITHM_CARDS  # noqa: E402
from bingo.engine.detection import Detector  # noqa: E402
from bingo.live import events  # noqa: E402
from bingo.models import (  # noqa: E402
    Ball,
    Game,
    Player,
    PrizePayment,
    PrizeWinner,
    RoomMode,
    Sale,
    WalletEntry,
)
from bingo.online import services as online_services  # noqa: E402
from bingo.players import services as player_services  # noqa: E402
from cards import services as card_services  # noqa: E402
from halls.models import Hall, StaffMembership  # noqa: E402


class Timed:
    """Wall time spent in a function, per ball: wraps ``owner.name`` until ``undo``."""

    def __init__(self, owner: Any, name: str) -> None:
        self.owner, self.name = owner, name
        self.original = getattr(owner, name)
        self.spent = 0.0
        self.calls = 0
        original = self.original

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.spent += time.perf_counter() - start
                self.calls += 1

        setattr(owner, name, timed)

    def take(self) -> tuple[float, int]:
        """Milliseconds and calls since the last take."""
        spent, calls = self.spent * 1000, self.calls
        self.spent, self.calls = 0.0, 0
        return spent, calls

    def undo(self) -> None:
        setattr(self.owner, self.name, self.original)


class AheadClock:
    """The autodraw service's ``timezone``: the real one, its ``now`` ``seconds`` ahead, so every
    ball is due at once (R88's interval is checked against this clock)."""

    def __init__(self, seconds: float) -> None:
        self.ahead = timedelta(seconds=seconds)

    def now(self) -> Any:
        return timezone.now() + self.ahead

    def __getattr__(self, name: str) -> Any:
        return getattr(timezone, name)


def setup(players: int, cards_each: int) -> tuple[Game, Decimal]:
    """An online room whose game sold ``players * cards_each`` cards; its game drawing."""
    total = players * cards_each
    hall = Hall.objects.create(name="Bench online")
    cashier = User.objects.create(username="caixa")
    StaffMembership.objects.create(hall=hall, user=cashier, role=Role.CASHIER.value)
    started = time.perf_counter()
    card_services.INLINE_LIMIT = max(card_services.INLINE_LIMIT, total)
    card_set = card_services.card_set_request(
        variant="90", size=total, seed=1, algorithm=ALGORITHM_CARDS, user=None
    )
    card_services.series_create(
        hall=hall, order_number=1, card_set=card_set, price="1.00", back_colour="#000000",
        face_colour="#FFFFFF", authorization="bench", online=True, user=None,
    )  # fmt: skip
    online = online_services.online_room_create(
        hall=hall, name="Online", mode=RoomMode.CONTINUOUS, ball_interval="1", sales_seconds=3600
    )
    print(f"setup: {total:,} cards generated in {time.perf_counter() - started:.1f} s")
    game = autodraw.online_room_advance(room_id=online.pk)  # the room opens its game (R90)
    assert game is not None
    started = time.perf_counter()
    group, _ = Group.objects.get_or_create(name=Role.PLAYER.value)
    users = User.objects.bulk_create([User(username=f"jogador{i}") for i in range(players)])
    group.user_set.add(*users)
    now = timezone.now()
    made = Player.objects.bulk_create(
        [
            Player(
                user=u, hall=hall, birth_date=date(1990, 1, 1), adult_confirmed_at=now, email_verified_at=now
            )
            for u in users
        ]
    )
    deposit = Decimal(cards_each) * 2
    for player in made:
        player_services.wallet_deposit(
            player=player, amount=deposit, staff=cashier, reference="CC", key=f"d{player.pk}"
        )
        online_services.online_buy(player=player, game=game, quantity=cards_each, key="k1")
    print(
        f"setup: {players:,} players, deposit and purchase of {cards_each} cards each, "
        f"in {time.perf_counter() - started:.1f} s"
    )
    assert Sale.objects.filter(game=game).aggregate(n=Sum("quantity"))["n"] == total
    Game.objects.filter(pk=game.pk).update(sales_close_at=timezone.now() - timedelta(seconds=1))
    autodraw.online_game_sales_close(game_id=game.pk)  # closes the sales, starts the draw
    game.refresh_from_db()
    assert game.state == "drawing", game.state
    return game, deposit * players


def play(game: Game, ahead: float) -> dict[str, Any]:
    """Draw ``game`` to its end ball by ball; print and return the figures."""
    detection.forget()
    timers = {
        "call": None,
        "draw": Timed(Detector, "draw"),
        "build": Timed(Detector, "__init__"),
        "use": Timed(detection, "detector_use"),
        "announce": Timed(events, "game_changed"),
        # R97: the bingo's award pays the wallets from the draw's services (one module global).
        "pay": Timed(draw_services, "prize_pay_to_wallets"),
    }
    real_timezone = autodraw.timezone
    autodraw.timezone = AheadClock(ahead)  # type: ignore[assignment]
    rows: list[dict[str, float]] = []
    position = 0
    try:
        while True:
            position += 1
            for timer in timers.values():
                if timer is not None:
                    timer.take()
            start = time.perf_counter()
            ball = autodraw.online_ball_draw(game_id=game.pk, position=position)
            call = (time.perf_counter() - start) * 1000
            if ball is None:
                break
            row = {"position": position, "number": ball.number, "call": call}
            for name, timer in timers.items():
                if timer is not None:
                    row[name], row[f"{name}_calls"] = timer.take()
            row["winners"] = PrizeWinner.objects.filter(prize__game=game, prize__balls_drawn=position).count()
            rows.append(row)
    finally:
        autodraw.timezone = real_timezone  # type: ignore[assignment]
        for timer in timers.values():
            if timer is not None:
                timer.undo()
    game.refresh_from_db()
    if not rows:
        raise SystemExit("no ball was drawn")
    first, rest = rows[0], rows[1:]
    print(f"game ended: {game.state}, {len(rows)} balls")
    print(
        f"first ball (builds the detector over every card sold): call {first['call']:.1f} ms, "
        f"of which the build {first['build']:.1f} ms"
    )
    print(f"balls 2-{len(rows)} ({len(rest)} balls), milliseconds per ball:")
    print(f"  {'':36}{'min':>8}{'median':>8}{'P95':>8}{'max':>8}")
    figures: dict[str, Any] = {"first_ball_ms": first["call"], "detector_build_ms": first["build"]}
    for label, key in (
        ("online_ball_draw (whole call)", "call"),
        ("  Detector.draw (detection)", "draw"),
        ("  detection.detector_use (all uses)", "use"),
        ("  events.game_changed (after commit)", "announce"),
    ):
        values = [r[key] for r in rest]
        ms = figures[f"ball_{key}_ms"] = spread(values)
        print(f"  {label:36}{ms['min']:8.2f}{ms['median']:8.2f}{ms['p95']:8.2f}{max(values):8.2f}")
    uses = sorted({int(r["use_calls"]) for r in rest})
    draws = sorted({int(r["draw_calls"]) for r in rest})
    print(f"  (calls per ball: detector_use {uses}, Detector.draw {draws})")
    draws = [r["draw"] for r in rest]
    median = statistics.median(draws)
    sold = Sale.objects.filter(game=game).aggregate(n=Sum("quantity"))["n"]
    verdict = "met" if median < 1.0 else "MISSED"
    if sold != 100_000:
        verdict = f"not applicable: {sold:,} cards, not 100,000"
    print(
        "detection target (100,000 cards < 1 ms median per ball): "
        f"Detector.draw median {median:.3f} ms, {verdict}"
    )
    print("balls that paid prizes:")
    for row in rows:
        if row["pay_calls"]:
            print(
                f"  ball {int(row['position'])} ({int(row['number'])}): "
                f"{int(row['winners'])} winning card(s), "
                f"whole call {row['call']:.1f} ms, of which paying into wallets {row['pay']:.1f} ms"
            )
    check(game)
    return figures


def check(game: Game) -> None:
    """The balls 1..n with no gap; every winning card paid once into its buyer's wallet."""
    positions = list(Ball.objects.filter(game=game).order_by("position").values_list("position", flat=True))
    assert positions == list(range(1, len(positions) + 1)), positions
    winners = PrizeWinner.objects.filter(prize__game=game).count()
    payments = PrizePayment.objects.filter(winner__prize__game=game).count()
    credited = WalletEntry.objects.filter(kind="prize", prize_payment__winner__prize__game=game).count()
    assert winners == payments, (winners, payments)
    # Every card was bought online, so every payment with a net amount is credited once.
    nets = PrizePayment.objects.filter(winner__prize__game=game, net__gt=0).count()
    assert credited == nets, (credited, nets)
    print(f"checked: balls 1..{len(positions)}, {winners} winners, {payments} payments, {credited} credits")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--cards", type=int, default=50, help="cards each player buys")
    parser.add_argument("--ahead", type=float, default=3600, help="seconds the service's clock runs ahead")
    args = parser.parse_args()
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        print(
            f"{pathlib.Path(__file__).name}: skipped, it measures the production path: set DATABASE_URL "
            "(PostgreSQL) and REDIS_URL (the next-ball tasks would go to the local filesystem broker)."
        )
        return
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    print(f"database: {connection.vendor}; channel layer: {layer}; broker: {settings.CELERY_BROKER_URL}")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}"
    )
    try:
        game, _deposits = setup(args.players, args.cards)
        figures = play(game, args.ahead)
        record("online_draw", figures, setup={"players": args.players, "cards_each": args.cards})
    finally:
        connections.close_all()
        connection.creation.destroy_test_db(old_name, verbosity=0)
        _drop_queue()


def _drop_queue() -> None:
    """Delete the bench's own Celery queue (the next-ball tasks nobody runs)."""
    url = settings.CELERY_BROKER_URL
    if url.startswith("redis"):
        import redis

        redis.Redis.from_url(url).delete(QUEUE)


if __name__ == "__main__":
    main()
