"""R101 under concurrent purchases on PostgreSQL (real threads, real row locks): the purchase
locks the player's row before judging the loss limit or the exclusion, so purchases at the same
moment are judged one after another and a limit or an exclusion holds for all of them."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import partial

import pytest
from django.core.exceptions import ValidationError

from bingo.models import Sale, WalletEntry
from bingo.online import services as online_services
from bingo.players.selectors import wallet_balance
from bingo.protection import services
from tests.concurrency import postgresql_only, run_threads
from tests.online.helpers import OnlineSetup

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_r101_eight_purchases_at_once_pass_a_loss_limit_only_as_often_as_it_allows() -> None:
    """The daily loss limit of 30 allows three cards of 10: eight threads each buy one at once,
    in four games selling at once (so the series' locks do not queue them: only the player's row
    does); exactly three pass, the other five are refused by the limit, and the wallet paid 30."""
    postgresql_only()
    site = OnlineSetup(name="Sala Corrida Limite")
    games = [site.game(site.series(n)) for n in range(1, 5)]
    player = site.player("1000.00")
    services.player_limit_set(player=player, kind="loss", period="day", amount="30")
    passed: list[int] = []
    refused: list[str] = []

    def buyer(index: int) -> None:
        try:
            online_services.online_buy(player=player, game=games[index % 4], quantity=1, key=f"t{index}")
            passed.append(index)
        except ValidationError as exc:
            refused.extend(exc.messages)

    run_threads([partial(buyer, i) for i in range(8)])
    assert len(passed) == 3
    assert len(refused) == 5
    assert all("limite diário de perdas de 30 CVE" in m for m in refused)
    assert Sale.objects.filter(buyer=player).count() == 3
    assert WalletEntry.objects.filter(player=player, kind="purchase").count() == 3
    assert wallet_balance(player=player) == Decimal("970.00")


def test_r101_a_self_exclusion_landing_among_purchases_stops_every_later_one() -> None:
    """Eight threads buy one card each while the player excludes themself: every purchase that
    passed was written before the exclusion (its wallet entry is older), every other one was
    refused by it, and none is written after it."""
    postgresql_only()
    site = OnlineSetup(name="Sala Corrida Exclusao")
    games = [site.game(site.series(n)) for n in range(1, 5)]
    player = site.player("1000.00")
    refused: list[str] = []

    def buyer(index: int) -> None:
        try:
            online_services.online_buy(player=player, game=games[index % 4], quantity=1, key=f"x{index}")
        except ValidationError as exc:
            refused.extend(exc.messages)

    def excluder() -> None:
        services.player_self_exclude(player=player, length="1m", confirmed=True)

    workers: list[Callable[[], object]] = [partial(buyer, i) for i in range(8)]
    workers.insert(4, excluder)
    run_threads(workers)
    exclusion = player.exclusions.get()
    bought = list(WalletEntry.objects.filter(player=player, kind="purchase"))
    assert len(bought) + len(refused) == 8
    assert all("Excluiu-se do jogo" in m for m in refused)
    assert all(entry.created_at <= exclusion.created_at for entry in bought)
    with pytest.raises(ValidationError, match=r"Excluiu-se do jogo|You excluded yourself"):
        online_services.online_buy(player=player, game=games[0], quantity=1, key="after")
    assert wallet_balance(player=player) == Decimal("1000.00") - 10 * len(bought)
