"""The real thing again (tests/autodraw/test_worker_kill.py): a Celery worker with beat on Redis
and PostgreSQL, killed with SIGKILL mid-game. No player is connected at all (R99): a short kill
and the game still finishes and pays every winner once; a kill longer than ONLINE_FAULT_AFTER
and the reconciler, on restart, declares the system fault (R98): the game is null and every
card refunded to the wallets once. Skipped without PostgreSQL and Redis."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from bingo.autodraw import services
from bingo.models import Game, GameFault, PrizePayment, Refund, Sale, WalletEntry
from bingo.online.selectors import game_outcome
from bingo.players.selectors import wallet_balance
from tests.autodraw.helpers import OnlineHall, online_buy
from tests.autodraw.test_worker_kill import Worker, _balls, _wait, close_sales_now, real_services, worker

__all__ = ["real_services", "worker"]  # the fixtures, shared

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


def _game(name: str) -> tuple[OnlineHall, Game, list]:
    lobby = OnlineHall(name, variant="30", tax_rate="10", sales_seconds=300, pause_seconds=3600)
    lobby.series(1)
    game = services.online_room_advance(room_id=lobby.room.pk)
    assert game is not None
    players = [lobby.player(f"{name.split()[-1].lower()}{n}", deposit="10000.00") for n in range(3)]
    for n in range(30):
        online_buy(game, players[n % 3], 2)
    close_sales_now(game)
    return lobby, game, players


def test_r99_no_one_connected_a_short_kill_and_every_winner_is_paid_once(worker: Worker) -> None:
    worker.env["ONLINE_FAULT_AFTER"] = "60"
    _lobby, game, players = _game("Sala Ausente")
    worker.start()
    _wait(lambda: len(_balls(game)) >= 3, 40, worker, "the worker did not draw 3 balls")
    worker.kill()
    time.sleep(3)
    worker.start()
    _wait(
        lambda: Game.objects.filter(pk=game.pk, state=Game.State.FINISHED).exists(),
        120,
        worker,
        "the game did not finish after the restart",
    )
    worker.stop()
    assert not GameFault.objects.filter(game=game).exists()
    assert not Refund.objects.filter(game=game).exists()
    payments = PrizePayment.objects.filter(winner__prize__game=game)
    assert payments.exists()
    game.refresh_from_db()
    for player in players:
        spent = sum((s.amount for s in Sale.objects.filter(buyer=player)), Decimal(0))
        won = sum((e.amount for e in WalletEntry.objects.filter(player=player, kind="prize")), Decimal(0))
        assert wallet_balance(player=player) == Decimal("10000.00") - spent + won
        outcome = game_outcome(player=player, game=game)  # what the lobby shows on their return
        assert (outcome.over, outcome.annulled, outcome.credited) == (True, False, won)


def test_r98_a_kill_longer_than_the_limit_makes_the_game_null_and_refunds_once(worker: Worker) -> None:
    worker.env["ONLINE_FAULT_AFTER"] = "8"
    _lobby, game, players = _game("Sala Avaria")
    worker.start()
    _wait(lambda: len(_balls(game)) >= 3, 40, worker, "the worker did not draw 3 balls")
    worker.kill()
    seen = _balls(game)
    game.refresh_from_db()
    if game.state != Game.State.DRAWING:
        pytest.fail(f"the game ended before the kill ({game.state})\n{worker.logs()}")
    time.sleep(11)  # the system down longer than ONLINE_FAULT_AFTER
    worker.start()
    _wait(
        lambda: Game.objects.filter(pk=game.pk, state=Game.State.ANNULLED).exists(),
        60,
        worker,
        "the reconciler did not declare the fault",
    )
    time.sleep(3)  # a few more beats: nothing more happens to the game
    worker.stop()
    assert _balls(game) == seen  # no ball after the fault
    fault = GameFault.objects.get(game=game)
    assert fault.declared_by.username == services.SYSTEM_USERNAME
    with translation.override(settings.LANGUAGE_CODE):  # the acta's language (R54)
        overdue = gettext(
            "Ball %(position)d was due %(late)d seconds ago: "
            "the system was down too long to finish the game in real time."
        )
        marked = gettext("System fault (R98): %(reason)s")
    before, after = (marked % {"reason": overdue}).split("%(late)d")
    game.refresh_from_db()  # why, as the game's page, the history and the acta show it
    assert game.state_reason.startswith(before % {"position": len(seen) + 1})
    assert game.state_reason.endswith(after)
    assert Refund.objects.filter(game=game).count() == Sale.objects.filter(game=game).count()
    assert (
        WalletEntry.objects.filter(kind="refund", refund__game=game).count()
        == Sale.objects.filter(game=game).count()
    )
    assert not PrizePayment.objects.filter(winner__prize__game=game).exists()
    game.refresh_from_db()
    for player in players:
        assert wallet_balance(player=player) == Decimal("10000.00")  # every card back, once
        outcome = game_outcome(player=player, game=game)
        assert outcome.annulled
        assert "R98" in outcome.reason
