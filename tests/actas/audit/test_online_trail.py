"""The audit trail (R61) shows online play too: a purchase paid from a wallet (R85), a prize
paid into a wallet by the system (R97) and a refund credited to a wallet (R98), each in the
hall of its game, "online (wallet)" where a desk's name would go, and never in another hall."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone, translation

from actas.audit.selectors import audit_event_list
from bingo.draw import services as draw_services
from bingo.engine.prizes import PrizeKind
from bingo.models import Prize, PrizePayment, PrizeWinner, WalletEntry
from bingo.online import services as online_services
from bingo.players.services import wallet_post
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.django_db


def _rows(hall: object, language: str = "en", **filters: object) -> list:
    with translation.override(language):
        return audit_event_list(halls=[hall], limit=500, **filters).rows  # type: ignore[arg-type]


@pytest.fixture
def online() -> dict[str, object]:
    site = OnlineSetup("Sala Online Praia")
    other = OnlineSetup("Sala Online Mindelo")
    player = site.player("100.00", username="ana")
    won = site.game(site.series(1))
    bought = online_services.online_buy(player=player, game=won, quantity=2, key="b1")
    won = site.drawing(won)
    site.key(won, 1, 2, 3, 4, 5)
    sale = bought.sales[0]
    prize = Prize.objects.create(
        game=won, kind=PrizeKind.LINE, balls_drawn=5, total=Decimal("30.00"), winners=1,
        amount_each=Decimal("30.00"), remainder=Decimal("0.00"), awarded_by=None, awarded_at=timezone.now(),
    )  # fmt: skip
    winner = PrizeWinner.objects.create(
        prize=prize,
        series=sale.series,
        card_number=sale.first_number,
        completed_at_ball=5,
        amount=Decimal("30.00"),
    )
    # As bingo/autodraw pays an online card's prize (R97): no desk, no cashier, into the wallet.
    payment = PrizePayment.objects.create(
        winner=winner, gross=Decimal("30.00"), tax_withheld=Decimal("0.00"), net=Decimal("30.00")
    )
    wallet_post(
        player=player,
        kind="prize",
        amount=payment.net,
        prize_payment=payment,
        key=f"prize-payment-{payment.pk}",
    )
    annulled = site.game(site.series(2))
    online_services.online_buy(player=player, game=annulled, quantity=1, key="b2")
    site.key(site.drawing(annulled), 7)  # R57: a number announced wrongly, so a ball is out
    draw_services.game_annul(game=annulled, user=site.manager, reason="Erro no anúncio (R57)")
    assert WalletEntry.objects.filter(player=player, kind="refund").count() == 1
    return {"site": site, "other": other, "player": player, "payment": payment}


def test_r61_online_purchases_wallet_prizes_and_refunds_are_on_the_trail(online: dict) -> None:
    site, player = online["site"], online["player"]
    rows = _rows(site.hall)  # type: ignore[attr-defined]

    sales = [r for r in rows if r.source == "sale"]
    assert len(sales) == 2
    name = player.user.get_full_name() or "ana"
    assert all(r.who == name and r.user_id == player.pk for r in sales)  # the buyer bought them
    assert all(r.what.endswith("(online (wallet))") for r in sales)
    payments = [r for r in rows if r.source == "payment"]
    assert [(r.pk, r.who, r.amount) for r in payments] == [(online["payment"].pk, "the system", "30 CVE")]
    assert payments[0].what.endswith("(online (wallet))")
    refunds = [r for r in rows if r.source == "wallet" and r.what.startswith("Refund")]
    assert len(refunds) == 1
    assert refunds[0].who == "the system"
    assert "player ana" in refunds[0].what
    assert {r.hall_id for r in sales + payments + refunds} == {site.hall.pk}  # type: ignore[attr-defined]
    # Narrowed to the player: what they did themselves, their purchases.
    assert {r.source for r in _rows(site.hall, user_id=player.pk)} == {"sale"}  # type: ignore[attr-defined]


def test_r61_another_halls_trail_shows_none_of_it(online: dict) -> None:
    rows = _rows(online["other"].hall)  # type: ignore[attr-defined]
    assert [r for r in rows if r.source in {"sale", "payment", "wallet", "refund"}] == []


def test_the_online_place_is_in_portuguese(online: dict) -> None:
    rows = _rows(online["site"].hall, language="pt")  # type: ignore[attr-defined]
    sales = [r for r in rows if r.source == "sale"]
    assert sales
    assert all(r.what.endswith("(online (carteira))") for r in sales)
