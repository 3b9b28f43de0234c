"""R101 through the API: the player's limits (GET/POST /api/players/me/limits/), self-exclusion
(/api/players/me/exclusion/), and the managers' exclusion list (/api/players/exclusions/)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from bingo.models import PlayerExclusion, PlayerLimit
from tests.autodraw.helpers import Clock
from tests.protection.conftest import Site

pytestmark = pytest.mark.django_db


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_r101_api_limits_tighten_at_once_and_loosen_a_day_later(site: Site, clock: Clock) -> None:
    player = site.player("100.00")
    api = as_user(player.user)
    body = api.get("/api/players/me/limits/").json()
    assert body["currency"] == "CVE"
    assert len(body["limits"]) == 6
    assert all(line["in_force"] is None and line["pending"] is None for line in body["limits"])

    made = api.post(
        "/api/players/me/limits/", {"kind": "loss", "period": "day", "amount": "30.00"}, format="json"
    )
    assert made.status_code == 201
    assert made.json()["effective_at"] == made.json()["requested_at"]
    site.buy(player, 1)
    raised = api.post(
        "/api/players/me/limits/", {"kind": "loss", "period": "day", "amount": None}, format="json"
    )
    assert raised.status_code == 201
    day = next(
        x
        for x in api.get("/api/players/me/limits/").json()["limits"]
        if x["kind"] == "loss" and x["period"] == "day"
    )
    assert (day["in_force"], day["used"], day["left"]) == ("30.00", "10.00", "20.00")
    assert day["pending"]["amount"] is None
    clock.advance(24 * 3600)
    day = next(
        x
        for x in api.get("/api/players/me/limits/").json()["limits"]
        if x["kind"] == "loss" and x["period"] == "day"
    )
    assert (day["in_force"], day["pending"]) == (None, None)


@pytest.mark.parametrize(
    "payload",
    [
        {"kind": "loss", "period": "day", "amount": 30},  # a JSON number, not a decimal string
        {"kind": "loss", "period": "day", "amount": "0"},
        {"kind": "loss", "period": "decade", "amount": "10"},
        {"kind": "luck", "period": "day", "amount": "10"},
    ],
)
def test_r101_api_refuses_a_bad_limit_with_400_and_stores_nothing(site: Site, payload: dict) -> None:
    player = site.player("0")
    assert as_user(player.user).post("/api/players/me/limits/", payload, format="json").status_code == 400
    assert not PlayerLimit.objects.exists()


def test_r101_api_self_exclusion(site: Site) -> None:
    player = site.player("100.00")
    api = as_user(player.user)
    assert (
        api.post(
            "/api/players/me/exclusion/", {"length": "1m", "confirmed": False}, format="json"
        ).status_code
        == 400
    )
    made = api.post("/api/players/me/exclusion/", {"length": "1m", "confirmed": True}, format="json")
    assert made.status_code == 201
    assert made.json()["source"] == "self"
    assert made.json()["active"]
    state = api.get("/api/players/me/exclusion/").json()
    assert state["excluded"]
    assert "Excluiu-se do jogo até" in state["message"]
    bought = api.post(
        f"/api/online/games/{site.selling.pk}/purchases/", {"quantity": 1, "key": "a1"}, format="json"
    )
    assert bought.status_code == 400
    assert "Excluiu-se do jogo até" in str(bought.json())


def test_r101_api_exclusion_list_is_for_managers(site: Site, clock: Clock) -> None:
    player = site.player("0")
    for user in (site.cashier, site.caller, player.user):
        api = as_user(user)
        assert api.get("/api/players/exclusions/").status_code == 403
        assert (
            api.post(
                "/api/players/exclusions/",
                {"player": player.pk, "length": "1m", "reason": "x"},
                format="json",
            ).status_code
            == 403
        )
    manager = as_user(site.manager)
    assert (
        manager.post(
            "/api/players/exclusions/", {"player": player.pk, "length": "1m"}, format="json"
        ).status_code
        == 400
    )
    made = manager.post(
        "/api/players/exclusions/", {"player": player.pk, "length": "1y", "reason": "Parecer"}, format="json"
    )
    assert made.status_code == 201
    listed = manager.get("/api/players/exclusions/").json()
    assert [(x["source"], x["active"], x["reason"]) for x in listed] == [("operator", True, "Parecer")]
    clock.advance(60)
    lifted = manager.post(
        f"/api/players/exclusions/{made.json()['id']}/lift/", {"reason": "Alta"}, format="json"
    )
    assert lifted.status_code == 201
    assert lifted.json()["lift"]["reason"] == "Alta"
    assert not lifted.json()["active"]
    self_row = as_user(player.user).post(
        "/api/players/me/exclusion/", {"length": "1m", "confirmed": True}, format="json"
    )
    refused = manager.post(
        f"/api/players/exclusions/{self_row.json()['id']}/lift/", {"reason": "x"}, format="json"
    )
    assert refused.status_code == 400
    assert PlayerExclusion.objects.count() == 2
    assert clock.now - timedelta(minutes=5) < PlayerExclusion.objects.get(source="self").starts_at
