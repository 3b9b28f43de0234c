"""R101: deposit and loss limits, daily, weekly and monthly on the hall's clock, checked by the
purchase and the desk's deposit in their own transaction, with an injected clock (the ``clock``
fixture moves ``timezone.now``; the services also take ``now=``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from bingo.models import PlayerLimit, Sale, WalletEntry
from bingo.players.selectors import wallet_balance
from bingo.protection import selectors, services
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, next_game, online_buy, play_out
from tests.protection.conftest import WEDNESDAY_NOON, Site

pytestmark = pytest.mark.django_db


def in_force(player, kind="loss", period="day", now=None):
    return selectors.limit_state_get(player=player, kind=kind, period=period, now=now or datetime.now(UTC))


def state(player, clock: Clock, kind="loss", period="day"):
    return selectors.limit_state_get(player=player, kind=kind, period=period, now=clock.now)


# --- tightening at once, loosening after 24 hours ----------------------------------------------


def test_r101_a_first_limit_and_a_lower_one_take_effect_at_once(site: Site, clock: Clock) -> None:
    player = site.player("500.00")
    row = services.player_limit_set(player=player, kind="loss", period="day", amount=Decimal("50"))
    assert row.effective_at == row.requested_at == clock.now
    assert state(player, clock).in_force == Decimal("50.00")
    services.player_limit_set(player=player, kind="loss", period="day", amount="30")
    assert state(player, clock) == selectors.limits.LimitState(Decimal("30.00"), None)


def test_r101_a_raise_takes_effect_exactly_24_hours_later(site: Site, clock: Clock) -> None:
    player = site.player("500.00")
    services.player_limit_set(player=player, kind="loss", period="day", amount="30")
    clock.advance(3600)
    asked = clock.now
    row = services.player_limit_set(player=player, kind="loss", period="day", amount="80")
    assert row.effective_at == asked + timedelta(hours=24)
    clock.advance(24 * 3600 - 1)
    now = state(player, clock)
    assert now.in_force == Decimal("30.00")
    assert now.pending is not None
    assert now.pending.amount == Decimal("80.00")
    clock.advance(1)
    assert state(player, clock) == selectors.limits.LimitState(Decimal("80.00"), None)


def test_r101_removing_a_limit_waits_24_hours_too(site: Site, clock: Clock) -> None:
    player = site.player("500.00")
    services.player_limit_set(player=player, kind="deposit", period="week", amount="100")
    services.player_limit_set(player=player, kind="deposit", period="week", amount=None)
    assert state(player, clock, "deposit", "week").in_force == Decimal("100.00")
    clock.advance(24 * 3600)
    assert state(player, clock, "deposit", "week").in_force is None


def test_r101_a_newer_request_supersedes_a_pending_raise(site: Site, clock: Clock) -> None:
    """A raise to 200 pending, then a raise to 120 an hour later: 200 never takes effect; 120 does,
    24 hours after it was asked for. A request back to the limit in force cancels a raise."""
    player = site.player("500.00")
    services.player_limit_set(player=player, kind="loss", period="month", amount="100")
    services.player_limit_set(player=player, kind="loss", period="month", amount="200")
    clock.advance(3600)
    services.player_limit_set(player=player, kind="loss", period="month", amount="120")
    clock.advance(23 * 3600)  # the first raise's 24 hours are over
    now = state(player, clock, period="month")
    assert now.in_force == Decimal("100.00")
    assert now.pending.amount == Decimal("120.00")
    clock.advance(3600)
    assert state(player, clock, period="month").in_force == Decimal("120.00")
    services.player_limit_set(player=player, kind="loss", period="month", amount="500")
    services.player_limit_set(player=player, kind="loss", period="month", amount="120")
    clock.advance(48 * 3600)
    assert state(player, clock, period="month") == selectors.limits.LimitState(Decimal("120.00"), None)
    assert PlayerLimit.objects.filter(player=player).count() == 5  # every request kept


def test_r101_a_cut_while_a_raise_is_pending_takes_effect_at_once_and_cancels_it(
    site: Site, clock: Clock
) -> None:
    player = site.player("500.00")
    services.player_limit_set(player=player, kind="loss", period="day", amount="100")
    services.player_limit_set(player=player, kind="loss", period="day", amount="300")
    services.player_limit_set(player=player, kind="loss", period="day", amount="40")
    assert state(player, clock) == selectors.limits.LimitState(Decimal("40.00"), None)
    clock.advance(25 * 3600)
    assert state(player, clock).in_force == Decimal("40.00")


def test_r101_the_injected_now_decides_too(site: Site, clock: Clock) -> None:
    player = site.player("500.00")
    at = clock.now + timedelta(days=3)
    row = services.player_limit_set(player=player, kind="loss", period="day", amount="10", now=at)
    assert row.requested_at == at
    assert state(player, clock).in_force is None  # asked for later than the clock's now
    assert in_force(player, now=at).in_force == Decimal("10.00")


@pytest.mark.parametrize(
    ("amount", "field"),
    [("0", "amount"), ("-5", "amount"), ("12.50", "amount"), ("abc", "amount"), ("99999999999", "amount")],
)
def test_r101_a_bad_limit_is_refused_and_nothing_is_stored(site: Site, amount: str, field: str) -> None:
    player = site.player("0")
    with pytest.raises(ValidationError) as refused:
        services.player_limit_set(player=player, kind="loss", period="day", amount=amount)
    assert field in refused.value.message_dict
    with pytest.raises(ValidationError):
        services.player_limit_set(player=player, kind="wins", period="day", amount="10")
    with pytest.raises(ValidationError):
        services.player_limit_set(player=player, kind="loss", period="year", amount="10")
    assert not PlayerLimit.objects.exists()


# --- the purchase: the loss limit ----------------------------------------------------------------


def test_r101_a_purchase_passing_the_loss_limit_is_refused_saying_how_much_is_left(site: Site) -> None:
    player = site.player("500.00")
    services.player_limit_set(player=player, kind="loss", period="day", amount="30")
    site.buy(player, 2)  # 20 of 30
    with pytest.raises(ValidationError) as refused:
        site.buy(player, 2)
    assert refused.value.messages == [
        "Your daily loss limit of 30 CVE would be passed: 10 CVE is left today and these cards cost "
        "20 CVE (R101). Nothing was bought."
    ]
    assert wallet_balance(player=player) == Decimal("480.00")
    assert Sale.objects.filter(buyer=player).count() == 1
    site.buy(player, 1)  # reaching the limit exactly is allowed
    with pytest.raises(ValidationError, match="0 CVE is left today"):
        site.buy(player, 1)
    assert wallet_balance(player=player) == Decimal("470.00")


def test_r101_the_strictest_period_refuses(site: Site, clock: Clock) -> None:
    player = site.player("500.00")
    services.player_limit_set(player=player, kind="loss", period="day", amount="100")
    services.player_limit_set(player=player, kind="loss", period="week", amount="40")
    site.buy(player, 3)
    with pytest.raises(ValidationError, match=r"weekly loss limit of 40 CVE .* 10 CVE is left this week"):
        site.buy(player, 2)


def test_r101_day_rolls_over_at_the_halls_midnight_not_utcs(site: Site, clock: Clock) -> None:
    """The hall is at UTC-1: 00:30 UTC is still yesterday there; 01:00 UTC is its midnight."""
    player = site.player("500.00")
    services.player_limit_set(player=player, kind="loss", period="day", amount="20")
    clock.now = datetime(2026, 3, 12, 0, 30, tzinfo=UTC)  # 23:30 on the 11th at the hall
    site.buy(player, 2)
    clock.now = datetime(2026, 3, 12, 0, 59, 59, tzinfo=UTC)
    with pytest.raises(ValidationError, match="daily loss limit"):
        site.buy(player, 1)
    clock.now = datetime(2026, 3, 12, 1, 0, tzinfo=UTC)  # midnight of the 12th at the hall
    site.buy(player, 2)


def test_r101_week_rolls_over_on_the_halls_monday(site: Site, clock: Clock) -> None:
    player = site.player("500.00")
    services.player_limit_set(player=player, kind="loss", period="week", amount="30")
    clock.now = datetime(2026, 3, 9, 1, 0, tzinfo=UTC)  # Monday 9 March, 00:00 at the hall
    site.buy(player, 3)
    clock.now = datetime(2026, 3, 16, 0, 59, tzinfo=UTC)  # Sunday 15th 23:59 at the hall
    with pytest.raises(ValidationError, match="weekly loss limit"):
        site.buy(player, 1)
    clock.now = datetime(2026, 3, 16, 1, 0, tzinfo=UTC)  # Monday 16th, 00:00 at the hall
    site.buy(player, 3)


def test_r101_month_rolls_over_on_the_halls_first(site: Site, clock: Clock) -> None:
    player = site.player("500.00")
    services.player_limit_set(player=player, kind="loss", period="month", amount="30")
    clock.now = datetime(2026, 3, 1, 1, 0, tzinfo=UTC)  # 1 March 00:00 at the hall
    site.buy(player, 3)
    clock.now = datetime(2026, 4, 1, 0, 59, tzinfo=UTC)  # 31 March 23:59 at the hall
    with pytest.raises(ValidationError, match="monthly loss limit"):
        site.buy(player, 1)
    clock.now = datetime(2026, 4, 1, 1, 0, tzinfo=UTC)
    site.buy(player, 3)


def test_r101_refunds_reduce_the_loss(site: Site, clock: Clock) -> None:
    """An annulled game's refund (R98/R57) gives back what its cards took from the loss limit."""
    from bingo.faults import services as fault_services

    player = site.player("500.00")
    services.player_limit_set(player=player, kind="loss", period="day", amount="30")
    site.buy(player, 3)
    game = site.drawing(site.selling)
    # R98: before the first ball a fault of the system makes the game null at once.
    fault_services.online_game_fault(game=game, user=site.manager, reason="Avaria do sistema")
    assert WalletEntry.objects.filter(player=player, kind="refund").count() == 1
    day = selectors.limit_overview(player=player)[3]
    assert (day.kind, day.period, day.used, day.left) == ("loss", "day", Decimal("0.00"), Decimal("30.00"))
    site.selling = site.game(site.series(3))
    site.buy(player, 3)


def test_r101_the_loss_is_stakes_less_prizes(db: None, clock: Clock, tasks: Tasks) -> None:
    """The only buyer of a game wins its prizes (paid into the wallet by the online loop, R97):
    the loss of the day is the stake less those prizes, and the limit leaves room for them."""
    clock.now = WEDNESDAY_NOON
    lobby = OnlineHall()
    lobby.series(1, price="100.00")
    ana = lobby.player("ana")
    services.player_limit_set(player=ana, kind="loss", period="day", amount="200")
    game = next_game(lobby, clock)
    online_buy(game, ana, 2)
    play_out(clock, tasks, game)
    prizes = sum(e.amount for e in WalletEntry.objects.filter(player=ana, kind="prize"))
    assert prizes == Decimal("160.00")  # line and bingo of the 200 staked, both Ana's
    day = {(x.kind, x.period): x for x in selectors.limit_overview(player=ana)}["loss", "day"]
    assert (day.used, day.left) == (Decimal("40.00"), Decimal("160.00"))
    # Without the prizes the limit of 200 would be spent; with them, one card more passes.
    nxt = next_game(lobby, clock)
    online_buy(nxt, ana, 1)
    with pytest.raises(ValidationError, match="60 CVE is left today and these cards cost 100 CVE"):
        online_buy(nxt, ana, 1)


# --- the deposit: the deposit limit -----------------------------------------------------------


def test_r101_a_deposit_passing_the_deposit_limit_is_refused_and_nothing_is_written(site: Site) -> None:
    player = site.player("0")
    services.player_limit_set(player=player, kind="deposit", period="day", amount="100")
    site.deposit(player, "60")
    with pytest.raises(ValidationError) as refused:
        site.deposit(player, "50")
    assert refused.value.message_dict["amount"] == [
        "The player's daily deposit limit of 100 CVE would be passed: 40 CVE is left today (R101). "
        "Nothing was deposited."
    ]
    assert wallet_balance(player=player) == Decimal("60.00")
    site.deposit(player, "40")
    assert wallet_balance(player=player) == Decimal("100.00")


def test_r101_a_retried_deposit_is_answered_not_refused_by_the_limit(site: Site) -> None:
    from bingo.players import services as player_services

    player = site.player("0")
    services.player_limit_set(player=player, kind="deposit", period="day", amount="100")
    first = player_services.wallet_deposit(
        player=player, amount=Decimal("100"), staff=site.cashier, reference="CNI", key="k1"
    )
    again = player_services.wallet_deposit(
        player=player, amount=Decimal("100"), staff=site.cashier, reference="CNI", key="k1"
    )
    assert again.pk == first.pk


def test_r101_purchases_do_not_count_against_the_deposit_limit_nor_deposits_against_the_loss(
    site: Site,
) -> None:
    player = site.player("0")
    services.player_limit_set(player=player, kind="deposit", period="day", amount="100")
    services.player_limit_set(player=player, kind="loss", period="day", amount="50")
    site.deposit(player, "100")
    site.buy(player, 5)
    overview = {(line.kind, line.period): line for line in selectors.limit_overview(player=player)}
    assert overview["deposit", "day"].used == Decimal("100.00")
    assert overview["deposit", "day"].left == Decimal("0.00")
    assert overview["loss", "day"].used == Decimal("50.00")
    assert overview["loss", "week"].in_force is None
    assert overview["loss", "week"].left is None
