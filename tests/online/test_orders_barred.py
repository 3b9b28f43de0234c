"""Standing orders and R101's bars (review of issue 25, point 2): a self-exclusion, a break, the
operator's exclusion and the hall's break after a session's time limit end the player's open
orders at once, in the bar's own transaction, with the reason ``barred`` shown to the player;
they used to wait for the next game's opening to be refused. The race with a fill holding an
order on PostgreSQL: test_orders_postgres.py."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import translation

from bingo.common.roles import Role
from bingo.models import OnlineOrder, OrderEnd, Player, PlaySession, Sale
from bingo.online import selectors, services
from bingo.online.tasks import orders_fill_task
from bingo.playtime import services as playtime_services
from bingo.protection import services as protection_services
from halls.models import Hall
from tests.autodraw.helpers import Clock, OnlineHall, next_game
from tests.clients import api, logged_in
from tests.factories import UserFactory, adult_player
from tests.online.helpers import Fills

BARRED_PT = (
    "Jogo responsável (R101): começou uma exclusão ou uma pausa, por isso a encomenda não compra mais nada."
)


@pytest.fixture
def hall(db: None, clock: Clock) -> OnlineHall:
    """A continuous room (R90) selling 90-card online series at 100 CVE a card, and a second
    online room of the same hall."""
    hall = OnlineHall(name="Sala das Pausas")
    hall.series(1, price="100.00")
    return hall


def _player(hall: OnlineHall, name: str) -> Player:
    user = UserFactory(username=name, roles=[Role.PLAYER])
    return adult_player(user, hall.hall, deposit="1000.00", cashier=hall.cashier, reference="CNI 123")


def _order(hall: OnlineHall, player: Player, key: str = "ordem") -> OnlineOrder:
    return services.online_order_create(player=player, online_room=hall.online, games=3, quantity=1, key=key)


def _bar(kind: str, player: Player, hall: OnlineHall, clock: Clock) -> Any:
    """Bar ``player`` from buying the way ``kind`` says (R101), through its service."""
    if kind == "self_exclusion":
        return protection_services.player_self_exclude(player=player, length="1m", confirmed=True)
    if kind == "pause":
        return protection_services.player_pause_take(player=player, length="24h", confirmed=True)
    if kind == "operator":
        return protection_services.player_exclude(
            player=player, staff=hall.manager, length="3m", reason="Pedido da família"
        )
    assert kind == "cooloff"
    # The hall asks for a 30-minute break after a session ended at its time limit (R101).
    Hall.objects.filter(pk=hall.hall.pk).update(play_cooloff_minutes=30)
    playtime_services.play_limit_set(player=player, session_minutes=60, reminder_minutes=None)
    session = playtime_services.play_session_start(player=player)
    return playtime_services.play_session_end(
        session=session, reason=PlaySession.EndReason.TIME_LIMIT, now=clock.now + timedelta(minutes=60)
    )


@pytest.mark.parametrize("kind", ["self_exclusion", "pause", "operator", "cooloff"])
def test_a_bar_of_r101_ends_the_player_s_open_orders_at_once(
    hall: OnlineHall, clock: Clock, fills: Fills, kind: str
) -> None:
    """R101: from the bar on nothing is bought for the player, their orders neither: they end in
    the bar's transaction (before any game opens), saying why in the lobby; another player's
    order goes on."""
    ana, bia = _player(hall, "ana"), _player(hall, "bia")
    order, others = _order(hall, ana), _order(hall, bia)

    _bar(kind, ana, hall, clock)

    order.refresh_from_db()
    assert (order.is_open, order.end_reason, order.end_text) == (False, OrderEnd.BARRED, "")
    assert not order.fills.exists()
    others.refresh_from_db()
    assert others.is_open
    with translation.override("pt"):
        assert selectors.order_end_text(order) == BARRED_PT
    lobby = logged_in(ana.user, "pt").get(reverse("online:lobby")).content.decode()
    assert f'data-order="{order.pk}" data-order-state="ended"' in lobby
    assert f'<p class="help" data-refusal>{BARRED_PT}</p>' in lobby
    (listed,) = api(ana.user, "en").get("/api/online/orders/").json()
    assert (listed["end_reason"], listed["open"]) == ("barred", False)
    assert listed["end_text"].startswith("Responsible gaming (R101)")
    # The next game fills bia's order alone.
    clock.advance(1)
    game = next_game(hall, clock)
    fills.run()
    assert not Sale.objects.filter(game=game, buyer=ana).exists()
    assert Sale.objects.filter(game=game, buyer=bia).exists()


def test_a_session_at_its_time_limit_without_the_hall_s_break_leaves_the_orders(
    hall: OnlineHall, clock: Clock
) -> None:
    """Only the hall's break after the time limit bars the player (R101); a hall asking for none
    lets them play on, their orders too (docs/online.md)."""
    ana = _player(hall, "ana")
    order = _order(hall, ana)
    playtime_services.play_limit_set(player=ana, session_minutes=60, reminder_minutes=None)
    session = playtime_services.play_session_start(player=ana)

    playtime_services.play_session_end(
        session=session, reason=PlaySession.EndReason.TIME_LIMIT, now=clock.now + timedelta(minutes=60)
    )

    order.refresh_from_db()
    assert order.is_open


def test_no_order_is_placed_while_a_bar_holds(hall: OnlineHall, clock: Clock) -> None:
    ana = _player(hall, "ana")
    protection_services.player_pause_take(player=ana, length="7d", confirmed=True)

    with pytest.raises(Exception, match="R101"):
        _order(hall, ana)

    assert not OnlineOrder.objects.filter(player=ana).exists()
    assert orders_fill_task(next_game(hall, clock).pk) == 0
