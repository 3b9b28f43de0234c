"""The players' API: registration (public, CSRF-checked, throttled), the player's own wallet,
and the desk's lookup, deposits and withdrawals (money as strings only)."""

from __future__ import annotations

import json
from decimal import Decimal

from django.test import Client
from django.urls import reverse

from bingo.models import Player
from bingo.players import selectors
from tests.players.conftest import Halls, registration_body


def post(client: Client, url: str, body: object) -> object:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def registration(**fields: object) -> dict[str, object]:
    """The API's body from Ana, her e-mail in mixed case."""
    return registration_body(**{"email": "Api.Ana@example.cv", **fields})


def test_register_through_the_api_with_the_csrf_cookie(halls: Halls) -> None:
    client = Client(enforce_csrf_checks=True)
    info = client.get(reverse("api:player-register"))
    assert info.status_code == 200
    assert {h["name"] for h in info.json()["halls"]} == {"Sala Praia", "Sala Mindelo"}
    assert info.json()["min_age"] == 18
    url = reverse("api:player-register")
    assert post(client, url, registration(hall=halls.praia.pk)).status_code == 403  # no token header
    token = client.cookies["csrftoken"].value
    response = client.post(
        url, data=json.dumps(registration(hall=halls.praia.pk)), content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )  # fmt: skip
    assert response.status_code == 201, response.content
    assert response.json()["username"] == "api-ana"
    # Logged in as the new player: the wallet answers.
    wallet = client.get(reverse("api:player-wallet")).json()
    assert wallet["balance"] == "0.00"
    assert wallet["results"] == []


def test_api_registration_refusals(halls: Halls, client: Client) -> None:
    url = reverse("api:player-register")
    assert set(post(client, url, registration()).json()) == {"hall"}  # two halls: choose one
    refused = post(
        client, url, registration(hall=halls.praia.pk, adult_confirmed=False, birth_date="2015-01-01")
    )
    assert refused.status_code == 400
    assert set(refused.json()) == {"adult_confirmed", "birth_date"}
    halls.player("maria", email="api.ana@EXAMPLE.cv")
    assert set(post(client, url, registration(hall=halls.praia.pk)).json()) == {"email"}
    assert not Player.objects.filter(user__username="api-ana").exists()


def test_a_logged_in_user_may_not_register(halls: Halls, client: Client) -> None:
    client.force_login(halls.cashier)
    assert post(client, reverse("api:player-register"), registration(hall=halls.praia.pk)).status_code == 403


def test_the_desk_deposits_withdraws_and_looks_players_up(halls: Halls, client: Client) -> None:
    player = halls.player("maria")
    client.force_login(halls.cashier)
    deposits = reverse("api:player-deposits", args=[player.pk])
    body = {"amount": "2000.00", "reference": "CNI 55", "key": "api-1"}
    first = post(client, deposits, body)
    assert first.status_code == 201, first.content
    assert first.json()["balance_after"] == "2000.00"
    assert post(client, deposits, body).json()["seq"] == 1  # the retry counts once
    withdrawals = reverse("api:player-withdrawals", args=[player.pk])
    too_much = post(client, withdrawals, {"amount": "2500", "reference": "CNI 55", "key": "api-2"})
    assert too_much.status_code == 400
    assert "amount" in too_much.json()
    out = post(client, withdrawals, {"amount": "500", "reference": "CNI 55", "key": "api-3"})
    assert out.json()["amount"] == "-500.00"
    assert out.json()["balance_after"] == "1500.00"
    found = client.get(reverse("api:player-lookup"), {"q": "maria@"}).json()
    assert [(p["username"], p["balance"]) for p in found] == [("maria", "1500.00")]


def test_money_is_a_string_only(halls: Halls, client: Client) -> None:
    player = halls.player()
    client.force_login(halls.cashier)
    refused = post(
        client,
        reverse("api:player-deposits", args=[player.pk]),
        {"amount": 100, "reference": "x", "key": "k"},
    )
    assert refused.status_code == 400
    assert "amount" in refused.json()
    assert selectors.wallet_balance(player=player) == Decimal("0")


def test_another_halls_cashier_gets_404_and_a_player_403(halls: Halls, client: Client) -> None:
    player = halls.player()
    body = {"amount": "10", "reference": "CNI 1", "key": "k"}
    client.force_login(halls.other_cashier)
    assert post(client, reverse("api:player-deposits", args=[player.pk]), body).status_code == 404
    assert client.get(reverse("api:player-lookup"), {"q": "maria"}).json() == []
    client.force_login(player.user)
    assert post(client, reverse("api:player-deposits", args=[player.pk]), body).status_code == 403
    assert client.get(reverse("api:player-lookup"), {"q": "maria"}).status_code == 403


def test_the_players_statement_through_the_api(halls: Halls, client: Client) -> None:
    player = halls.player()
    for i in range(3):
        halls.deposit(player, "100", key=f"k{i}")
    client.force_login(player.user)
    wallet = client.get(reverse("api:player-wallet"), {"page_size": 2}).json()
    assert wallet["balance"] == "300.00"
    assert wallet["currency"] == "CVE"
    assert wallet["count"] == 3
    assert [(e["seq"], e["kind"], e["amount"], e["balance_after"]) for e in wallet["results"]] == [
        (3, "deposit", "100.00", "300.00"),
        (2, "deposit", "100.00", "200.00"),
    ]
    assert wallet["next"]
    client.force_login(halls.cashier)
    assert client.get(reverse("api:player-wallet")).status_code == 403
