"""Demo credits under concurrent demo games (PostgreSQL, real threads and row locks): the demo
ledger is chained, every key counts once, the balance never goes below zero, and the stakes
that do not fit are refused whole (R102: the demo ledger holds as the wallet's does)."""

from __future__ import annotations

from functools import partial

import pytest
from django.core.exceptions import ValidationError

from bingo.demo import selectors, services
from bingo.models import DemoCreditEntry, DemoGame
from tests.concurrency import postgresql_only, run_threads
from tests.factories import UserFactory, adult_player
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.postgres


@pytest.mark.django_db(transaction=True)
def test_concurrent_demo_games_never_overdraw_or_double_stake() -> None:
    postgresql_only("row locks and the demo ledger's triggers are PostgreSQL's")
    site = OnlineSetup(name="Sala Corrida Demo")
    player = adult_player(UserFactory(username="corrida-demo"), site.hall)
    services.demo_credit_grant(player=player)
    cost = 6 * selectors.DEMO_CARD_PRICE  # 60: 16 games fit in 1,000 credits, 20 are tried
    refused: list[str] = []

    def tab(index: int) -> None:
        for n in range(5):
            for _try in range(2):  # the form sent twice
                try:
                    services.demo_game_start(
                        player=player, online_room=site.online, cards=6, key=f"{index}-{n}"
                    )
                except ValidationError:
                    refused.append(f"{index}-{n}")

    run_threads([partial(tab, i) for i in range(4)], timeout=300)
    entries = list(DemoCreditEntry.objects.filter(player=player).order_by("seq"))
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    assert all(e.balance_after >= 0 for e in entries)
    assert sum(e.credits for e in entries) == selectors.demo_balance(player=player)
    games = DemoGame.objects.filter(player=player).count()
    stakes = [e for e in entries if e.kind == "stake"]
    assert len(stakes) == games == 1000 // cost
    assert len({e.game_id for e in stakes}) == games  # one stake per game, never two
    assert selectors.demo_balance(player=player) == 1000 - games * cost
    assert len(set(refused)) == 20 - games
