"""An online hall for the loop's tests: a room, online series, players with wallets buying online
(``Sale.buyer``), an injected clock and the ball tasks kept in a queue the test runs by hand."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction

from bingo.autodraw import services
from bingo.autodraw.tasks import draw_ball_task
from bingo.common.roles import Role
from bingo.models import Game, OnlineRoom, Player, RoomMode, Sale
from bingo.online import services as online_services
from cards.models import CardSet, Series
from halls.models import Room, StaffMembership
from tests.cards.factories import HallFactory, card_set_make, series_make
from tests.factories import UserFactory, adult_player


class Clock:
    """``timezone.now`` for the tests: it moves only when told."""

    def __init__(self) -> None:
        self.now = datetime.now(tz=UTC).replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now

    def to(self, moment: datetime) -> datetime:
        self.now = max(self.now, moment)
        return self.now


@dataclass
class Queued:
    game_id: int
    position: int
    eta: datetime | None


@dataclass
class Tasks:
    """The ball tasks the loop queued (after commit), run by the test when their time comes."""

    clock: Clock
    queued: list[Queued] = field(default_factory=list)

    def take(self, args: tuple[Any, ...], eta: datetime | None = None) -> None:
        self.queued.append(Queued(args[0], args[1], eta))

    def run_next(self) -> int | None:
        """Move the clock to the earliest task's time and run it; its ball's number or None."""
        self.queued.sort(key=lambda q: q.eta or self.clock.now)
        task = self.queued.pop(0)
        if task.eta is not None:
            self.clock.to(task.eta)
        return committed(lambda: draw_ball_task(task.game_id, task.position))


def committed(step: Callable[[], Any]) -> Any:
    """Run ``step`` as the worker would: in its own transaction, the after-commit work run."""
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True), transaction.atomic():
        return step()


class OnlineHall:
    """A hall with an online room, a K card set of 90 cards and its online series."""

    def __init__(
        self,
        name: str = "Sala Online",
        mode: str = RoomMode.CONTINUOUS,
        interval: str = "1",
        tax_rate: str = "0",
        variant: str = "90",
        **room: Any,
    ) -> None:
        self.hall = HallFactory(name=name, tax_rate=Decimal(tax_rate), tax_threshold=Decimal("0"))
        self.room = Room.objects.create(hall=self.hall, name="Sala online")
        self.online = OnlineRoom.objects.create(
            room=self.room,
            mode=mode,
            ball_interval=Decimal(interval),
            sales_seconds=room.pop("sales_seconds", 60),
            pause_seconds=room.pop("pause_seconds", 10),
            variant=variant,
            **room,
        )
        self.card_set: CardSet = card_set_make(variant=variant, size=90)
        self.cashier = UserFactory(username=f"caixa-{name}")
        StaffMembership.objects.create(hall=self.hall, user=self.cashier, role=Role.CASHIER.value)
        self.manager = UserFactory(username=f"gerente-{name}")
        StaffMembership.objects.create(hall=self.hall, user=self.manager, role=Role.MANAGER.value)

    def series(self, order_number: int, price: str = "100.00") -> Series:
        made = series_make(hall=self.hall, card_set=self.card_set, order_number=order_number, price=price)
        Series.objects.filter(pk=made.pk).update(online=True)
        made.refresh_from_db()
        return made

    def player(self, name: str, deposit: str = "1000.00") -> Player:
        return adult_player(
            UserFactory(username=name), self.hall, deposit=deposit, cashier=self.cashier, reference="CNI 123"
        )


def online_buy(game: Game, player: Player, quantity: int) -> Sale:
    """An online purchase through the real service (``bingo.online.services.online_buy``): the
    next cards in number order (R36), paid from the wallet in the same transaction; the first
    sale row."""
    purchase = online_services.online_buy(
        player=player, game=game, quantity=quantity, key=uuid.uuid4().hex[:32]
    )
    return purchase.sales[0]


def play_to_the_end(tasks: Tasks, game: Game, limit: int = 200) -> Iterator[int | None]:
    """Run the queued ball tasks until ``game`` is over."""
    for _ in range(limit):
        game.refresh_from_db()
        if game.state != Game.State.DRAWING or not tasks.queued:
            return
        yield tasks.run_next()
    raise AssertionError("the game did not end")


def reconcile() -> None:
    committed(services.online_reconcile)


def next_game(lobby: OnlineHall, clock: Clock) -> Game:
    """Let the room's pause pass and the reconciler open its next game (R90): that game, selling."""
    for _ in range(30):
        reconcile()
        selling = Game.objects.filter(session__room=lobby.room, state=Game.State.SELLING).first()
        if selling is not None:
            return selling
        clock.advance(5)
    raise AssertionError("no game opened")


def close_sales(clock: Clock, game: Game) -> Game:
    """Move the clock to ``game``'s announced close of sales and run the reconciler, which closes
    them and starts the draw (R93): the game, refreshed."""
    game.refresh_from_db()
    assert game.sales_close_at is not None
    clock.to(game.sales_close_at)
    reconcile()
    game.refresh_from_db()
    return game


def play_out(clock: Clock, tasks: Tasks, game: Game) -> Game:
    """``close_sales``, then the ball tasks run until ``game`` is over: the game, refreshed."""
    list(play_to_the_end(tasks, close_sales(clock, game)))
    game.refresh_from_db()
    return game
