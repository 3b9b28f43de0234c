"""A hall for the API tests of the sessions, games and sales: a room, a desk, one person in each
staff role, a session; a client for a user, a sale through the API, and who calls."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bingo.games import services
from bingo.models import Game, Sale, Session
from cards.models import Series
from halls.models import CashDesk, Room
from tests.cards.factories import HallFactory, card_set_make, series_make
from tests.common.access import staff_of_each_role

#: The tests log in with force_login: an unusable password skips the slow hashing.
UNUSABLE = "!"


class World:
    """A hall with a room, a desk, one person in each staff role, and a session."""

    def __init__(self, name: str, **hall_fields: object) -> None:
        self.hall = HallFactory(name=name, **hall_fields)
        self.room = Room.objects.create(hall=self.hall, name="Sala 1")
        self.desk = CashDesk.objects.create(hall=self.hall, name="Caixa 1")
        self.staff = staff_of_each_role(self.hall, name)
        start = timezone.now()
        self.session = services.session_open(
            room=self.room, starts_at=start, scheduled_end=start + timedelta(hours=4), user=None
        )
        self.card_set = card_set_make(variant="90", size=90)

    def series(self, order_number: int, price: str = "100.00") -> Series:
        return series_make(hall=self.hall, card_set=self.card_set, order_number=order_number, price=price)

    def game(self) -> Game:
        return services.game_create(session=self.session, variant="90")

    def selling_game(self, *series: Series) -> Game:
        return services.game_open_sales(game=self.game(), series=list(series) or [self.series(1)])


def sell(client: Client, game: Game, desk: CashDesk, key: str | None = None, **body: object):
    data = {"quantity": 3, "cash_desk": desk.pk, "cash_received": "500.00", **body}
    headers = {} if key == "" else {"Idempotency-Key": key or uuid.uuid4().hex}
    return client.post(
        reverse("api:game-sales", args=[game.pk]), data, content_type="application/json", headers=headers
    )


def state(game: Game) -> tuple[object, ...]:
    game.refresh_from_db()
    return (
        game.state,
        Sale.objects.count(),
        Game.objects.count(),
        Session.objects.count(),
        Series.objects.filter(status=Series.Status.ON_SALE).count(),
    )
