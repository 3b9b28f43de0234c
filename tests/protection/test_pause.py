"""R101, «fazer uma pausa» (issue 25 point 3): the player's break of 24 hours, 7 or 30 days,
beside self-exclusion. It refuses purchases and deposits until it ends (the clock moved), says
why on the player's pages and at the desk, cannot be ended early by anyone, and is kept with
the exclusions (insert-only)."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.test import Client

from bingo.models import PlayerExclusion, Sale
from bingo.players.selectors import wallet_balance
from bingo.protection import selectors, services
from tests.autodraw.helpers import Clock
from tests.db_roles import as_table_owner
from tests.protection.conftest import Site

pytestmark = pytest.mark.django_db


def test_r101_a_break_refuses_purchases_and_deposits_until_it_ends(site: Site, clock: Clock) -> None:
    player = site.player("100.00")
    site.buy(player, 1)
    start = clock.now

    row = services.player_pause_take(player=player, length="24h", confirmed=True)

    assert (row.kind, row.source, row.starts_at, row.ends_at) == (
        "pause",
        "self",
        start,
        start + timedelta(hours=24),
    )
    with pytest.raises(ValidationError) as refused:
        site.buy(player, 1)
    assert refused.value.messages == [
        "You are taking a break from play until 12/03/2026 12:00 (R101): you cannot buy cards."
    ]
    with pytest.raises(ValidationError) as no_deposit:
        site.deposit(player, "50")
    assert "taking a break from play until 12/03/2026 12:00" in no_deposit.value.message_dict["amount"][0]

    clock.now = start + timedelta(hours=23, minutes=59)  # a minute before its end: still refused
    with pytest.raises(ValidationError):
        site.buy(player, 1)

    clock.now = start + timedelta(hours=24)  # it ends by itself
    site.buy(player, 2)
    site.deposit(player, "50")
    assert Sale.objects.filter(buyer=player).count() == 2
    assert wallet_balance(player=player) == Decimal("120.00")


@pytest.mark.parametrize(("length", "days"), [("7d", 7), ("30d", 30)])
def test_r101_the_longer_breaks_last_7_and_30_days(site: Site, clock: Clock, length: str, days: int) -> None:
    player = site.player("100.00")

    row = services.player_pause_take(player=player, length=length, confirmed=True)

    assert row.ends_at - row.starts_at == timedelta(days=days)
    clock.now += timedelta(days=days) - timedelta(seconds=1)
    with pytest.raises(ValidationError):
        site.buy(player, 1)
    clock.now += timedelta(seconds=1)
    site.buy(player, 1)


def test_a_break_needs_a_known_length_and_the_confirmation(site: Site) -> None:
    player = site.player("100.00")

    for length, confirmed, field in (("2h", True, "length"), ("24h", False, "confirmed")):
        with pytest.raises(ValidationError) as refused:
            services.player_pause_take(player=player, length=length, confirmed=confirmed)
        assert field in refused.value.message_dict

    assert not PlayerExclusion.objects.exists()


def test_a_break_within_a_longer_exclusion_or_break_changes_nothing(site: Site) -> None:
    player = site.player("100.00")
    services.player_pause_take(player=player, length="7d", confirmed=True)

    with pytest.raises(ValidationError) as refused:
        services.player_pause_take(player=player, length="24h", confirmed=True)

    assert "at least as long already" in refused.value.message_dict["length"][0]
    longer = services.player_pause_take(player=player, length="30d", confirmed=True)
    assert selectors.exclusion_active(player=player) == longer
    services.player_self_exclude(player=player, length="1y", confirmed=True)
    with pytest.raises(ValidationError):
        services.player_pause_take(player=player, length="30d", confirmed=True)
    assert PlayerExclusion.objects.filter(player=player).count() == 3


def test_no_one_ends_a_break_early(site: Site) -> None:
    player = site.player("100.00")
    row = services.player_pause_take(player=player, length="24h", confirmed=True)

    with pytest.raises(ValidationError) as refused:
        services.player_exclusion_lift(exclusion=row, staff=site.manager, reason="pediu")

    assert "cannot be lifted before its end" in refused.value.messages[0]
    assert selectors.exclusion_active(player=player) == row


def test_the_player_takes_a_break_on_their_page_and_the_desk_is_told(site: Site, clock: Clock) -> None:
    player = site.player("100.00")
    client = Client()
    client.force_login(player.user)
    page = "/jogador/protecao/"
    assert 'id="pause-form"' in client.get(page).content.decode()

    unconfirmed = client.post(page, {"action": "pause", "pause-length": "7d"})
    assert unconfirmed.status_code == 400
    assert not PlayerExclusion.objects.exists()

    taken = client.post(page, {"action": "pause", "pause-length": "7d", "pause-confirmed": "on"}, follow=True)

    row = PlayerExclusion.objects.get()
    assert (row.kind, row.ends_at) == ("pause", clock.now + timedelta(days=7))
    shown = taken.content.decode()
    assert "A sua pausa começou: pode voltar a jogar a partir de 18/03/2026 12:00 (R101)." in shown
    assert 'id="exclusion-status"' in shown
    assert "Está numa pausa do jogo até 18/03/2026 12:00" in shown
    assert 'id="pause-form"' not in shown  # nothing to start while it runs
    desk = Client()
    desk.force_login(site.cashier)
    assert "Numa pausa do jogo até 18/03/2026 12:00" in desk.get(f"/carteiras/{player.pk}/").content.decode()


def test_the_api_takes_a_break_and_lists_it(site: Site) -> None:
    player = site.player("100.00")
    client = Client()
    client.force_login(player.user)

    created = client.post(
        "/api/players/me/pause/",
        json.dumps({"length": "30d", "confirmed": True}),
        content_type="application/json",
    )
    listed = client.get("/api/players/me/exclusion/").json()

    assert created.status_code == 201, created.content
    assert (created.json()["kind"], created.json()["source"], created.json()["active"]) == (
        "pause",
        "self",
        True,
    )
    assert listed["excluded"] is True
    assert "Está numa pausa do jogo até" in listed["message"]
    refused = client.post(
        "/api/players/me/pause/",
        json.dumps({"length": "1y", "confirmed": True}),
        content_type="application/json",
    )
    assert refused.status_code == 400


@pytest.mark.postgres
def test_postgresql_keeps_a_break_as_it_was_written(site: Site) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the insert-only triggers and the 30 days' check exist on PostgreSQL only")
    player = site.player("100.00")
    row = services.player_pause_take(player=player, length="24h", confirmed=True)

    with as_table_owner(), pytest.raises(IntegrityError), transaction.atomic():
        # As the tables' owner: the app's role is refused by its privileges before the trigger.
        PlayerExclusion.objects.filter(pk=row.pk).update(ends_at=row.starts_at + timedelta(hours=1))
    # Neither a break beyond 30 days, nor one without an end, nor another's.
    for fields in (
        {"ends_at": row.starts_at + timedelta(days=31)},
        {"ends_at": None},
        {"source": "operator", "reason": "x"},
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            PlayerExclusion.objects.create(
                **{
                    "player": player,
                    "source": "self",
                    "kind": "pause",
                    "starts_at": row.starts_at,
                    "ends_at": row.ends_at,
                    "created_by": player.user,
                    "created_at": row.starts_at,
                    **fields,
                }
            )
