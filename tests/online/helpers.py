"""An operator with an online room, online series and players with money in their wallets."""

from __future__ import annotations

import itertools
from datetime import timedelta
from decimal import Decimal

from django.contrib.auth.models import User
from django.utils import timezone

from bingo.ballsets import services as ballset_services
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.games import services as game_services
from bingo.models import DrawMode, Game, OnlineRoom, Player, RoomMode, Session
from bingo.online import services
from bingo.online.tasks import orders_fill_task
from cards.models import Series
from cards.selectors import card_get
from halls.models import BallSet, Room, StaffMembership
from tests.autodraw.helpers import committed
from tests.cards.factories import HallFactory, card_set_make, series_make
from tests.factories import UserFactory, adult_player

_names = itertools.count(1)


class OnlineSetup:
    """A hall with an online room (continuous unless told), a card set of 90 cards of ``variant``
    (90-ball unless told), a manager and a cashier; ``series``, ``game`` and ``player`` make the
    rest on demand."""

    def __init__(
        self,
        name: str = "Sala Online",
        mode: str = RoomMode.CONTINUOUS,
        variant: str = "90",
        **hall_fields: object,
    ) -> None:
        self.hall = HallFactory(name=name, **hall_fields)
        self.manager = UserFactory(username=f"gerente-{name}", roles=[Role.MANAGER])
        StaffMembership.objects.create(hall=self.hall, user=self.manager, role=Role.MANAGER.value)
        self.cashier = UserFactory(username=f"caixa-{name}", roles=[Role.CASHIER])
        StaffMembership.objects.create(hall=self.hall, user=self.cashier, role=Role.CASHIER.value)
        # Created closed, then opened with no series yet (as a room whose series have since run
        # out): the tests make the series they sell (``series``), after the room.
        self.online = services.online_room_create(
            hall=self.hall, name="Online 1", mode=mode, ball_interval="2", active=False
        )
        OnlineRoom.objects.filter(pk=self.online.pk).update(active=True)
        self.online.refresh_from_db()
        self.room: Room = self.online.room
        self.caller = UserFactory(username=f"locutor-{name}", roles=[Role.CALLER])
        StaffMembership.objects.create(hall=self.hall, user=self.caller, role=Role.CALLER.value)
        self.variant = variant
        self.card_set = card_set_make(variant=variant, size=90)
        self._session: Session | None = None
        self._ball_set: BallSet | None = None

    def series(self, order_number: int, price: str = "10.00", *, online: bool = True) -> Series:
        return series_make(
            hall=self.hall, card_set=self.card_set, order_number=order_number, price=price, online=online
        )

    def session(self) -> Session:
        if self._session is None:
            start = timezone.now()
            self._session = game_services.session_open(
                room=self.room,
                starts_at=start,
                scheduled_end=start + timedelta(hours=4),
                user=None,
                online=self.is_online(),
            )
        return self._session

    def is_online(self) -> bool:
        """Whether the room is still online (a test may take its online side away)."""
        return OnlineRoom.objects.filter(pk=self.room.pk).exists()

    def game(self, *series: Series) -> Game:
        game = game_services.game_create(
            session=self.session(), variant=self.variant, online=self.is_online()
        )
        if series:
            game = game_services.game_open_sales(game=game, series=list(series))
        return game

    def drawing(self, game: Game) -> Game:
        """Close ``game``'s sales and start its draw with the hall's blower (balls keyed in)."""
        if self._ball_set is None:
            size = int(self.variant)
            self._ball_set = ballset_services.ball_set_create(hall=self.hall, serial_number="JB-1", size=size)
            ballset_services.ball_set_check_record(
                ball_set=self._ball_set, session=self.session(), phase="start"
            )
        game_services.game_close_sales(game=game)
        return draw_services.game_start_draw(
            game=game, user=self.caller, mode=DrawMode.PHYSICAL, ball_set=self._ball_set
        )

    def key(self, game: Game, *numbers: int) -> None:
        start = game.balls.count()
        for i, n in enumerate(numbers, start=1):
            draw_services.game_draw_ball(game=game, user=self.caller, position=start + i, number=n)

    def one_from_the_line(self, *, cards: int, number: int) -> tuple[Game, Player, list[int]]:
        """A game drawing in which a new player bought ``cards`` cards and four of the five
        numbers of card ``number``'s first row are drawn (R95): the game, the player, that row."""
        game = self.game(self.series(1))
        player = self.player()
        services.online_buy(player=player, game=game, quantity=cards, key=f"line-{player.pk}")
        row = [n for n in card_get(card_set=self.card_set, number=number)[0] if n is not None]
        game = self.drawing(game)
        self.key(game, *row[:4])
        return game, player, row

    def player(self, credit: str = "100.00", *, username: str | None = None, hall: object = None) -> Player:
        user: User = UserFactory(username=username or f"jogador-{next(_names)}", roles=[Role.PLAYER])
        deposit = credit if Decimal(credit) > 0 else None
        return adult_player(user, hall or self.hall, deposit=deposit, cashier=self.cashier)


def online_room_of(setup: OnlineSetup) -> OnlineRoom:
    return OnlineRoom.objects.get(pk=setup.online.pk)


class Fills:
    """The standing orders' fill tasks the online loop queued after a game's sales opened
    (``online.orders_fill``), kept for the test to run as a worker would."""

    def __init__(self) -> None:
        self.queued: list[int] = []

    def take(self, game_id: int) -> None:
        self.queued.append(game_id)

    def run(self) -> list[int]:
        """Run every queued task, each in its own transaction; how many orders each filled."""
        games, self.queued = self.queued, []
        return [committed(lambda game_id=game_id: orders_fill_task(game_id)) for game_id in games]
