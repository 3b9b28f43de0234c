"""A continuous room's minimum sales time after a game's first purchase (issue 25, point 2): an
idle room's game that someone buys into a second before its window ends keeps selling for the
room's ``sales_after_first_seconds`` from that purchase, so others have time to join (R90); the
loop moves the close as soon as the purchase is seen, and the close never comes sooner. A
session's close is the one announced to everyone (R93) and never moves."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from bingo.autodraw import services
from bingo.common import bounds
from bingo.models import Game, OnlineRoom, RoomMode
from bingo.online import services as online_services
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, committed, online_buy, reconcile


@pytest.fixture
def held(db: None, clock: Clock) -> OnlineHall:
    """A continuous room selling 60 s windows that keeps a game selling 30 s after its first purchase."""
    return OnlineHall(name="Sala Paciente", sales_seconds=60, sales_after_first_seconds=30)


def _open(hall: OnlineHall) -> Game:
    hall.series(1)
    game = committed(lambda: services.online_room_advance(room_id=hall.room.pk))
    assert game is not None
    return game


def test_a_purchase_a_second_before_the_close_keeps_the_game_selling_for_the_room_s_time(
    held: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    game = _open(held)
    window_end = game.sales_close_at
    assert window_end == clock.now + timedelta(seconds=60)

    clock.to(window_end - timedelta(seconds=1))
    bought_at = clock.now
    online_buy(game, held.player("ana"), 1)
    reconcile()  # the next tick sees the first purchase and moves the close on
    game.refresh_from_db()
    assert game.sales_close_at == bought_at + timedelta(seconds=30)

    clock.to(window_end)
    reconcile()
    game.refresh_from_db()
    assert game.state == Game.State.SELLING  # not a second after the first purchase
    online_buy(game, held.player("rui"), 2)  # others still join

    clock.to(bought_at + timedelta(seconds=29))
    reconcile()
    game.refresh_from_db()
    assert game.state == Game.State.SELLING

    clock.to(bought_at + timedelta(seconds=30))
    reconcile()
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING
    assert game.sales_closed_at == bought_at + timedelta(seconds=30)
    assert game.sales.count() == 2


def test_the_close_itself_waits_for_the_time_after_the_first_purchase(held: OnlineHall, clock: Clock) -> None:
    """Even when nothing moved the close before it fell due (beat was late), the close does."""
    game = _open(held)
    clock.to(game.sales_close_at - timedelta(seconds=2))
    bought_at = clock.now
    online_buy(game, held.player("ana"), 1)
    clock.to(game.sales_close_at)

    closed = committed(lambda: services.online_game_sales_close(game_id=game.pk))

    assert closed == []
    game.refresh_from_db()
    assert game.state == Game.State.SELLING
    assert game.sales_close_at == bought_at + timedelta(seconds=30)


def test_a_first_purchase_early_in_the_window_changes_nothing(held: OnlineHall, clock: Clock) -> None:
    game = _open(held)
    window_end = game.sales_close_at
    clock.advance(5)
    online_buy(game, held.player("ana"), 1)
    reconcile()
    game.refresh_from_db()
    assert game.sales_close_at == window_end  # 55 s left, more than 30

    clock.to(window_end)
    reconcile()
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING


def test_without_the_setting_the_window_alone_decides(db: None, clock: Clock) -> None:
    hall = OnlineHall(name="Sala Apressada", sales_seconds=60)
    assert hall.online.sales_after_first_seconds == 0  # the migration's default: as before
    game = _open(hall)
    window_end = game.sales_close_at
    clock.to(window_end - timedelta(seconds=1))
    online_buy(game, hall.player("ana"), 1)

    clock.to(window_end)
    reconcile()
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING


def test_a_session_s_close_announced_to_everyone_never_moves(db: None, clock: Clock) -> None:
    """R93: in session mode sales close for everyone at the announced moment."""
    from bingo.games import services as game_services

    hall = OnlineHall(name="Sala Agendada", mode=RoomMode.SESSION, sales_after_first_seconds=30)
    hall.series(1)
    start = clock.now + timedelta(minutes=1)
    session = game_services.session_open(
        room=hall.room, starts_at=start, scheduled_end=start + timedelta(hours=1), user=None, online=True
    )
    game = game_services.game_create(session=session, variant="90", online=True)
    close = start + timedelta(minutes=5)
    Game.objects.filter(pk=game.pk).update(price=Decimal("100.00"), sales_close_at=close)
    clock.to(start)
    reconcile()
    clock.to(close - timedelta(seconds=1))
    game.refresh_from_db()
    online_buy(game, hall.player("ana"), 1)

    clock.to(close)
    reconcile()
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING
    assert game.sales_closed_at == close


def test_the_time_after_the_first_purchase_is_bounded(db: None) -> None:
    hall = OnlineHall(name="Sala Limitada")
    with pytest.raises(ValidationError) as refused:
        online_services.online_room_update(
            online_room=hall.online, sales_after_first_seconds=bounds.SALES_AFTER_FIRST_SECONDS_MAX + 1
        )
    assert "sales_after_first_seconds" in refused.value.message_dict
    online_services.online_room_update(online_room=hall.online, sales_after_first_seconds=45)
    assert OnlineRoom.objects.get(pk=hall.online.pk).sales_after_first_seconds == 45
    with pytest.raises(IntegrityError), transaction.atomic():
        OnlineRoom.objects.filter(pk=hall.online.pk).update(sales_after_first_seconds=3_601)
