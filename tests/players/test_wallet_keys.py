"""A desk movement's idempotency key comes from the client; the system's keys (``refund-<pk>``,
``prize-payment-<pk>``) must never meet it, and a key already used for one movement is never
passed off as another's (a refund, R98, or a prize, R97, would go uncredited)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from bingo.models import Refund, WalletEntry
from bingo.online import services as online_services
from bingo.players import selectors, services
from tests.online.helpers import OnlineSetup
from tests.players.conftest import Halls


def test_r98_a_deposit_keyed_like_a_refund_does_not_swallow_the_refund(db: None) -> None:
    site = OnlineSetup()
    game = site.game(site.series(1))
    player = site.player("100.00")
    purchase = online_services.online_buy(player=player, game=game, quantity=2, key="b1")
    refund = Refund.objects.create(
        sale=purchase.sales[0], game=game, amount=purchase.amount, reason="R57", created_by=site.manager
    )
    system_key = f"refund-{refund.pk}"
    # The desk's client happens to send the key the system will use for that refund.
    services.wallet_deposit(
        player=player, amount=Decimal("50"), staff=site.cashier, reference="CC 1", key=system_key
    )
    assert selectors.wallet_balance(player=player) == Decimal("130.00")

    entry = services.wallet_post(
        player=player, kind="refund", amount=refund.amount, refund=refund, key=system_key
    )

    assert entry.kind == "refund"
    assert entry.refund == refund
    assert selectors.wallet_balance(player=player) == Decimal("150.00")
    # The desk's retry with its own key still answers its deposit, writing nothing.
    again = services.wallet_deposit(
        player=player, amount=Decimal("50"), staff=site.cashier, reference="CC 1", key=system_key
    )
    assert (again.kind, again.amount) == ("deposit", Decimal("50.00"))
    assert selectors.wallet_balance(player=player) == Decimal("150.00")


def test_wallet_post_refuses_a_key_reused_for_another_movement(halls: Halls) -> None:
    player = halls.player()
    desk = {"recorded_by": halls.cashier, "reference": "CNI 1"}
    first = services.wallet_post(player=player, kind="deposit", amount=Decimal("100"), key="k-1", **desk)  # type: ignore[arg-type]
    again = services.wallet_post(player=player, kind="deposit", amount=Decimal("100"), key="k-1", **desk)  # type: ignore[arg-type]
    assert again == first
    for other in (
        {"kind": "refund", "amount": Decimal("100")},  # another kind
        {"kind": "deposit", "amount": Decimal("90"), **desk},  # another amount
        {"kind": "deposit", "amount": Decimal("100"), "recorded_by": halls.cashier, "reference": "CNI 9"},
    ):
        with pytest.raises(services.WalletKeyConflictError):
            services.wallet_post(player=player, key="k-1", **other)  # type: ignore[arg-type]
    assert WalletEntry.objects.filter(player=player).count() == 1
    assert selectors.wallet_balance(player=player) == Decimal("100")


def test_a_withdrawal_reusing_a_deposits_key_is_a_key_error_not_a_balance_one(halls: Halls) -> None:
    player = halls.player()
    halls.deposit(player, "100", key="form-1")
    with pytest.raises(ValidationError) as refused:
        services.wallet_withdraw(
            player=player, amount=Decimal("10"), staff=halls.cashier, reference="CNI 123", key="form-1"
        )
    assert list(refused.value.message_dict) == ["key"]
    assert selectors.wallet_balance(player=player) == Decimal("100")


def test_the_api_answers_409_for_a_key_reused_on_another_movement(halls: Halls, client: Client) -> None:
    player = halls.player()
    client.force_login(halls.cashier)
    deposits = reverse("api:player-deposits", args=[player.pk])

    def post(url: str, body: dict[str, str]) -> object:
        return client.post(url, json.dumps(body), content_type="application/json")

    assert post(deposits, {"amount": "100.00", "reference": "CNI 1", "key": "k"}).status_code == 201  # type: ignore[attr-defined]
    other = post(deposits, {"amount": "150.00", "reference": "CNI 1", "key": "k"})
    assert other.status_code == 409, other.content  # type: ignore[attr-defined]
    withdrawal = post(
        reverse("api:player-withdrawals", args=[player.pk]),
        {"amount": "10.00", "reference": "CNI 1", "key": "k"},
    )
    assert withdrawal.status_code == 409  # type: ignore[attr-defined]
    assert selectors.wallet_balance(player=player) == Decimal("100")
    too_long = post(deposits, {"amount": "1.00", "reference": "CNI 1", "key": "x" * 80})
    assert too_long.status_code == 400  # type: ignore[attr-defined]
    assert "key" in too_long.json()  # type: ignore[attr-defined]
