"""Deposits and withdrawals at the desk (issue point 1): by a cashier or a manager of the
player's hall, against the identity document checked, idempotent on the form's key, never more
than the balance; the player's statement shows every movement (R100)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client
from django.urls import reverse

from actas.audit.selectors import audit_event_list
from bingo.models import WalletEntry
from bingo.players import selectors, services
from tests.factories import UserFactory
from tests.players.conftest import Halls


def test_a_cashier_and_a_manager_of_the_hall_record_deposits_and_withdrawals(halls: Halls) -> None:
    player = halls.player()
    halls.deposit(player, "1000", key="a", by=halls.cashier)
    halls.deposit(player, "250", key="b", by=halls.manager)
    out = services.wallet_withdraw(
        player=player, amount=Decimal("400"), staff=halls.manager, reference="CNI 123", key="c"
    )
    assert out.amount == Decimal("-400")
    assert out.balance_after == Decimal("850")
    assert selectors.wallet_balance(player=player) == Decimal("850")
    assert [(e.kind, e.recorded_by.username) for e in WalletEntry.objects.filter(player=player)] == [
        ("deposit", "caixa"),
        ("deposit", "gerente"),
        ("withdrawal", "gerente"),
    ]


@pytest.mark.parametrize("who", ["other_cashier", "player", "nobody"])
def test_another_halls_staff_and_players_may_not(halls: Halls, who: str) -> None:
    player = halls.player()
    staff = {
        "other_cashier": halls.other_cashier,
        "player": halls.player("joao").user,
        "nobody": UserFactory(username="ninguem"),
    }[who]
    for move in (services.wallet_deposit, services.wallet_withdraw):
        with pytest.raises(PermissionDenied):
            move(player=player, amount=Decimal("10"), staff=staff, reference="CNI 1", key="x")
    assert not WalletEntry.objects.exists()


def test_the_identity_document_is_required(halls: Halls) -> None:
    with pytest.raises(ValidationError) as refused:
        services.wallet_deposit(
            player=halls.player(), amount=Decimal("10"), staff=halls.cashier, reference="  ", key="k"
        )
    assert "reference" in refused.value.message_dict


def test_a_double_submitted_deposit_counts_once(halls: Halls) -> None:
    player = halls.player()
    first = halls.deposit(player, "500", key="form-1")
    again = halls.deposit(player, "500", key="form-1")
    assert again == first
    assert selectors.wallet_balance(player=player) == Decimal("500")
    with pytest.raises(ValidationError) as refused:
        halls.deposit(player, "700", key="form-1")
    assert "key" in refused.value.message_dict
    assert selectors.wallet_balance(player=player) == Decimal("500")


def test_a_withdrawal_beyond_the_balance_is_refused_and_changes_nothing(halls: Halls) -> None:
    player = halls.player()
    halls.deposit(player, "300", key="d")
    with pytest.raises(ValidationError) as refused:
        services.wallet_withdraw(
            player=player, amount=Decimal("301"), staff=halls.cashier, reference="CNI 123", key="w"
        )
    assert "300 CVE" in str(refused.value.message_dict["amount"])
    assert selectors.wallet_balance(player=player) == Decimal("300")
    assert WalletEntry.objects.count() == 1


@pytest.mark.parametrize("amount", ["0", "-5", "10.50"])
def test_amounts_must_be_positive_and_in_whole_escudos(halls: Halls, amount: str) -> None:
    with pytest.raises(ValidationError) as refused:
        halls.deposit(halls.player(), amount, key="k")
    assert "amount" in refused.value.message_dict


def test_the_audit_trail_shows_who_recorded_each_movement(halls: Halls) -> None:
    player = halls.player()
    halls.deposit(player, "1000", key="a")
    page = audit_event_list(halls=[halls.praia])
    wallet_rows = [row for row in page.rows if row.source == "wallet"]
    assert len(wallet_rows) == 1
    assert wallet_rows[0].user_id == halls.cashier.pk
    assert "CNI 123" in wallet_rows[0].what
    assert "maria" in wallet_rows[0].what
    assert not [r for r in audit_event_list(halls=[halls.mindelo]).rows if r.source == "wallet"]


# --- the desk's screens --------------------------------------------------------------------------


def test_the_desk_finds_a_player_by_username_email_or_name(halls: Halls, client: Client) -> None:
    halls.player("maria")
    halls.player("zeca", hall=halls.mindelo, first_name="Maria")
    client.force_login(halls.cashier)
    for query in ("mari", "MARIA@example", "Tavares"):
        players = client.get(reverse("players:staff_search"), {"q": query}).context["players"]
        assert [p.user.username for p in players] == ["maria"], query  # never another hall's


def test_the_desk_records_a_deposit_once_however_often_the_form_is_sent(halls: Halls, client: Client) -> None:
    player = halls.player()
    client.force_login(halls.cashier)
    url = reverse("players:staff_player", args=[player.pk])
    page = client.get(url)
    assert "Carteiras dos jogadores" in page.content.decode()
    key = page.context["form"].initial["key"]
    body = {"kind": "deposit", "amount": "1 250", "reference": "CNI 998877", "key": key}
    for _ in range(2):
        response = client.post(url, body, follow=True)
        assert response.status_code == 200
    assert selectors.wallet_balance(player=player) == Decimal("1250")
    assert "1 250 CVE" in response.content.decode()


def test_the_desk_refuses_a_withdrawal_beyond_the_balance_with_a_message(
    halls: Halls, client: Client
) -> None:
    player = halls.player()
    halls.deposit(player, "100", key="d")
    client.force_login(halls.manager)
    response = client.post(
        reverse("players:staff_player", args=[player.pk]),
        {"kind": "withdrawal", "amount": "150", "reference": "CNI 1", "key": "w1"},
    )
    assert response.status_code == 400
    assert "100 CVE" in str(response.context["form"].errors["amount"])
    assert selectors.wallet_balance(player=player) == Decimal("100")


def test_another_halls_cashier_and_a_player_do_not_reach_the_desk_page(halls: Halls, client: Client) -> None:
    player = halls.player()
    url = reverse("players:staff_player", args=[player.pk])
    client.force_login(halls.other_cashier)
    assert client.get(url).status_code == 404
    body = {"kind": "deposit", "amount": "10", "reference": "CNI 1", "key": "k"}
    assert client.post(url, body).status_code == 404
    client.force_login(player.user)
    assert client.post(url, body).status_code == 403
    assert client.get(reverse("players:staff_search")).status_code == 403
    assert not WalletEntry.objects.exists()


def test_the_dashboards_link_to_the_wallets(halls: Halls, client: Client) -> None:
    for user, dashboard in ((halls.cashier, "dashboard-cashier"), (halls.manager, "dashboard-manager")):
        client.force_login(user)
        assert reverse("players:staff_search") in client.get(reverse(dashboard)).content.decode()


# --- the player's statement ---------------------------------------------------------------------


def test_the_statement_shows_every_movement_in_the_halls_time(halls: Halls, client: Client) -> None:
    player = halls.player()
    halls.deposit(player, "1000", key="a")
    services.wallet_withdraw(
        player=player, amount=Decimal("300"), staff=halls.cashier, reference="CNI 1", key="b"
    )
    client.force_login(player.user)
    response = client.get(reverse("players:wallet"))
    html = response.content.decode()
    assert "A minha carteira" in html
    assert 'data-balance="700.00"' in html
    assert 'data-seq="1" data-kind="deposit"' in html
    assert 'data-seq="2" data-kind="withdrawal"' in html
    assert "Levantamento" in html
    assert "Depósito" in html
    entry = WalletEntry.objects.get(seq=1)
    from zoneinfo import ZoneInfo

    local = entry.created_at.astimezone(ZoneInfo("Atlantic/Cape_Verde")).strftime("%d/%m/%Y %H:%M:%S")
    assert local in html


def test_the_statement_is_paginated(halls: Halls, client: Client) -> None:
    player = halls.player()
    for i in range(30):
        halls.deposit(player, "10", key=f"k{i}")
    client.force_login(player.user)
    first = client.get(reverse("players:wallet"))
    assert [line.entry.seq for line in first.context["lines"]] == list(range(30, 5, -1))
    second = client.get(reverse("players:wallet"), {"pagina": 2})
    assert [line.entry.seq for line in second.context["lines"]] == list(range(5, 0, -1))


def test_staff_do_not_see_a_players_wallet_page(halls: Halls, client: Client) -> None:
    client.force_login(halls.cashier)
    assert client.get(reverse("players:wallet")).status_code == 403
