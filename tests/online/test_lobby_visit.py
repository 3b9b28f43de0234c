"""R99: the lobby records each visit (``player_lobby_visit``) so it can list the games that ended
while the player was away. The visit only moves forward and the first one creates its row; it
takes no lock of the player's, so opening the lobby never queues behind a purchase or a payout
holding the player's wallet (docs/architecture.md, "Lock order")."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from bingo.models import Player, PlayerVisit
from bingo.online import services
from tests.online.helpers import OnlineSetup


def _seen(player: Player) -> object:
    return PlayerVisit.objects.values_list("lobby_seen_at", flat=True).get(player=player)


@pytest.mark.django_db
def test_r99_the_first_visit_creates_the_row_and_later_ones_only_move_it_forward() -> None:
    ana = OnlineSetup().player()
    first = timezone.now()
    assert services.player_lobby_visit(player=ana, now=first) is None
    assert _seen(ana) == first

    later = first + timedelta(minutes=5)
    assert services.player_lobby_visit(player=ana, now=later) == first
    assert _seen(ana) == later

    # A visit whose clock reads earlier (another server, another tab) never moves it back.
    assert services.player_lobby_visit(player=ana, now=first + timedelta(minutes=1)) == later
    assert _seen(ana) == later
    assert PlayerVisit.objects.filter(player=ana).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("visited_before", [False, True], ids=["first visit", "later visit"])
def test_r99_the_lobby_visit_does_not_wait_for_a_transaction_holding_the_players_row(
    visited_before: bool,
) -> None:
    """A purchase or a payout holds the player's row (FOR NO KEY UPDATE, ``wallet_post``) until
    it commits; the lobby's visit, first or later, goes through meanwhile."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's")
    ana = OnlineSetup().player()
    start = timezone.now()
    if visited_before:
        services.player_lobby_visit(player=ana, now=start - timedelta(hours=1))
    held, done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def wallet_held() -> None:
        try:
            with transaction.atomic():
                Player.objects.select_for_update(no_key=True).filter(pk=ana.pk).values_list("pk").get()
                held.set()
                done.wait(15)  # held until the visit is over (or the test gives up)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    holder = threading.Thread(target=wallet_held)
    holder.start()
    try:
        assert held.wait(10)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '3s'")  # waiting would fail, not hang
            before = services.player_lobby_visit(player=ana, now=start)
    finally:
        done.set()
        holder.join(20)
    assert errors == []
    assert before == (start - timedelta(hours=1) if visited_before else None)
    assert _seen(ana) == start
