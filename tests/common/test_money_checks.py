"""The database's checks on money add up to the cent on either database (bingo/models, migration
0023): SQLite, which ``make run`` uses, keeps decimals as floats, where 33.33 * 3 + 0.02 is not
100.01 and 0.10 + 0.20 is not 0.30; PostgreSQL's numeric arithmetic is exact. A row whose sums
are a cent out is still refused."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from bingo.models import PlaySession, Prize, PrizeKind
from tests.online.helpers import OnlineSetup
from tests.sales.test_services import HallSetup

pytestmark = pytest.mark.django_db


def _prize(game: object, kind: PrizeKind, remainder: str) -> Prize:
    return Prize.objects.create(
        game=game,
        kind=kind,
        balls_drawn=30,
        total=Decimal("100.01"),
        winners=3,
        amount_each=Decimal("33.33"),
        remainder=Decimal(remainder),
        awarded_at=timezone.now(),
    )


def test_a_prize_shared_in_cents_adds_up_and_one_a_cent_out_is_refused() -> None:
    site = HallSetup()
    game = site.game(site.series(1))
    assert _prize(game, PrizeKind.LINE, "0.02").total == Decimal("100.01")
    with pytest.raises(IntegrityError), transaction.atomic():
        _prize(game, PrizeKind.BINGO, "0.03")


def _session(player: object, net: str) -> PlaySession:
    now = timezone.now()
    return PlaySession.objects.create(
        player=player,
        started_at=now,
        last_seen_at=now,
        staked=Decimal("0.00"),
        won=Decimal("0.10"),
        refunded=Decimal("0.20"),
        net=Decimal(net),
    )


def test_a_play_sessions_net_in_cents_adds_up_and_one_a_cent_out_is_refused() -> None:
    player = OnlineSetup(name="Sala Centimos").player("5.00")
    assert _session(player, "0.30").net == Decimal("0.30")
    with pytest.raises(IntegrityError), transaction.atomic():
        _session(player, "0.31")
