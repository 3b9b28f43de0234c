"""An online hall selling one game's cards at 10.00 each, players with money, and the clock."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.utils import translation

from bingo.models import Game, Player
from bingo.online import services as online_services
from bingo.online.services import OnlinePurchase
from bingo.players import services as player_services
from tests.autodraw.helpers import Clock
from tests.online.helpers import OnlineSetup

#: Wednesday 11 March 2026, 12:00 on the hall's clock (Atlantic/Cape_Verde, UTC-1).
WEDNESDAY_NOON = datetime(2026, 3, 11, 13, 0, tzinfo=UTC)

_keys = itertools.count(1)


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


class Site(OnlineSetup):
    """``OnlineSetup`` with one game on sale (two series of 90 cards at 10.00, no announced close:
    it sells whatever the clock says) and the desk's deposits."""

    def __init__(self) -> None:
        super().__init__(name="Sala Protegida")
        self.selling: Game = self.game(self.series(1), self.series(2))

    def buy(self, player: Player, quantity: int = 1, **kwargs: object) -> OnlinePurchase:
        return online_services.online_buy(
            player=player, game=self.selling, quantity=quantity, key=f"k{next(_keys)}", **kwargs
        )

    def deposit(self, player: Player, amount: str, **kwargs: object):  # type: ignore[no-untyped-def]
        return player_services.wallet_deposit(
            player=player,
            amount=Decimal(amount),
            staff=self.cashier,
            reference="CNI 1",
            key=uuid.uuid4().hex[:20],
            **kwargs,
        )


@pytest.fixture
def site(db: None, clock: Clock) -> Site:
    clock.now = WEDNESDAY_NOON
    return Site()
