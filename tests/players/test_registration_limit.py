"""Registration's limit per address (issue 20 points 3 and 7): two counts in a sliding hour, one
for the page and the API together: registrations made (settings.PLAYER_REGISTER_RATE, 30 an
hour) and tries, failed validations included (PLAYER_REGISTER_ATTEMPT_RATE, 60 an hour), so a
hall's kiosk behind one address registers a player every two minutes all evening while a
script makes no more accounts than that and probes no faster. The address is the socket's, or
X-Forwarded-For's as far as settings.BINGO_TRUSTED_PROXIES says; without Redis each process
counts alone, with a warning, and nothing answers 500."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from django.core.cache.backends.redis import RedisCache
from django.test import Client, override_settings
from django.urls import reverse

from bingo.common.throttling import SlidingWindowThrottle
from bingo.models import Player
from bingo.players.api import RegistrationAttemptThrottle, RegistrationMadeThrottle
from tests.players.conftest import Halls, registration_body, registration_form

KIOSK = "198.51.100.20"
T0 = 1_750_000_000.0
MINUTE = 60.0
#: Nothing listens on port 1: every command to this "Redis" fails to connect at once.
UNREACHABLE_REDIS = "redis://127.0.0.1:1/0"


class Clock:
    """The throttles' clock, moved by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock(T0)
    monkeypatch.setattr(SlidingWindowThrottle, "timer", clock)
    return clock


def on_page(halls: Halls, username: str, address: str = KIOSK, **fields: object) -> int:
    """One try on the page from ``address``, by a new visitor (a registration logs its maker in)."""
    data = registration_form(username, hall=halls.praia.pk, **fields)
    return Client().post(reverse("players:register"), data, REMOTE_ADDR=address).status_code


def through_api(halls: Halls, username: str, address: str = KIOSK, **fields: object) -> int:
    """One try through the API from ``address``, by a new client."""
    body = registration_body(username, hall=halls.praia.pk, **fields)
    response = Client().post(
        reverse("api:player-register"), json.dumps(body), content_type="application/json", REMOTE_ADDR=address
    )
    return response.status_code


def registered(username: str) -> bool:
    return Player.objects.filter(user__username=username).exists()


# --- the kiosk ------------------------------------------------------------------------------------


def test_a_kiosk_registers_30_players_an_hour_each_after_a_failed_try(halls: Halls, clock: Clock) -> None:
    """One address, a player about every two minutes, each getting the form wrong once first
    (taken username, weak password…), half on the page and half through the API: all 30
    registered. Then both counts are full: the next try is refused, valid or not, and makes
    nothing."""
    for n in range(30):
        door = on_page if n % 2 else through_api
        assert door(halls, f"p{n}", birth_date="2015-01-01") in (200, 400)  # under age: refused
        assert door(halls, f"p{n}") in (201, 302)
        clock.now += 115  # the 30th at 55 min 35 s: the first still inside the hour

    assert Player.objects.count() == 30
    assert on_page(halls, "late") == 429
    assert through_api(halls, "late") == 429
    assert not registered("late")
    # Another address is not held up.
    assert on_page(halls, "elsewhere", address="198.51.100.21") == 302


def test_registrations_made_are_limited_to_30_an_hour(halls: Halls, clock: Clock) -> None:
    for n in range(30):
        assert through_api(halls, f"p{n}") == 201

    assert through_api(halls, "p30") == 429
    assert on_page(halls, "p30") == 429
    assert not registered("p30")


def test_failed_tries_count_up_to_60_an_hour(halls: Halls, clock: Clock) -> None:
    """Failed validations are counted (they tell a script which e-mails and usernames are
    taken): 60 an hour, after which even a valid registration waits."""
    statuses = [on_page(halls, f"p{n}", password2="other") for n in range(60)]

    assert statuses == [200] * 60
    response = Client().post(
        reverse("players:register"), registration_form("valid", hall=halls.praia.pk), REMOTE_ADDR=KIOSK
    )
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 3600
    assert not registered("valid")


def test_a_refused_try_counts_nothing(halls: Halls, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Knocking on while refused does not push the window on: once the hour is over it opens."""
    monkeypatch.setattr(RegistrationMadeThrottle, "rate", "2/hour")
    assert [through_api(halls, f"p{n}") for n in range(2)] == [201, 201]
    for _ in range(10):
        clock.now += 5 * MINUTE
        assert through_api(halls, "p2") == 429

    clock.now = T0 + 61 * MINUTE
    assert through_api(halls, "p2") == 201


# --- the window slides ----------------------------------------------------------------------------


def test_the_window_slides_registrations_free_up_an_hour_after_each(halls: Halls, clock: Clock) -> None:
    """Not a fixed hour that resets: 10 registrations at 20:00 and 20 at 20:30 fill the count;
    at 21:01 the 10 of 20:00 are out of the window, and only those."""
    for n in range(10):
        assert through_api(halls, f"a{n}") == 201
    clock.now = T0 + 30 * MINUTE
    for n in range(20):
        assert on_page(halls, f"b{n}") == 302

    clock.now = T0 + 59 * MINUTE
    refused = Client().post(
        reverse("api:player-register"),
        json.dumps(registration_body("c0", hall=halls.praia.pk)),
        content_type="application/json",
        REMOTE_ADDR=KIOSK,
    )
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 2 * MINUTE  # the first ten leave within a minute or so

    clock.now = T0 + 61 * MINUTE
    assert [through_api(halls, f"c{n}") for n in range(11)] == [201] * 10 + [429]

    clock.now = T0 + 91 * MINUTE
    assert [through_api(halls, f"d{n}") for n in range(21)] == [201] * 20 + [429]


# --- the address ----------------------------------------------------------------------------------


def _tries_with_forwarded_for(halls: Halls, forwarded_for: list[str]) -> list[int]:
    statuses = []
    for n, value in enumerate(forwarded_for):
        response = Client().post(
            reverse("players:register"),
            registration_form(f"p{n}", hall=halls.praia.pk, password2="other"),
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=value,
        )
        statuses.append(response.status_code)
    return statuses


@override_settings(BINGO_TRUSTED_PROXIES=0)
def test_with_no_trusted_proxy_a_fresh_forwarded_for_gets_no_fresh_count(
    halls: Halls, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RegistrationAttemptThrottle, "rate", "3/hour")

    statuses = _tries_with_forwarded_for(halls, [f"203.0.113.{n}" for n in range(6)])

    assert statuses == [200, 200, 200, 429, 429, 429]


@override_settings(BINGO_TRUSTED_PROXIES=1)
def test_behind_one_proxy_each_forwarded_address_is_counted_apart(
    halls: Halls, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proxy appends the address it saw: that one counts, whatever the client put before it."""
    monkeypatch.setattr(RegistrationAttemptThrottle, "rate", "3/hour")

    fresh = _tries_with_forwarded_for(halls, [f"192.0.2.1, 203.0.113.{n}" for n in range(6)])
    forged = _tries_with_forwarded_for(halls, [f"192.0.2.{n}, 203.0.113.50" for n in range(6)])

    assert fresh == [200] * 6
    assert forged == [200, 200, 200, 429, 429, 429]


# --- without Redis --------------------------------------------------------------------------------


@pytest.fixture
def redis_down(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The throttles' cache, and the default cache, on a Redis nobody answers."""
    monkeypatch.setattr(SlidingWindowThrottle, "cache", RedisCache(UNREACHABLE_REDIS, {}))
    redis = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": UNREACHABLE_REDIS}
    with override_settings(CACHES={"default": redis}):
        yield


def test_without_redis_the_page_and_the_api_register_and_still_limit(
    halls: Halls,
    clock: Clock,
    redis_down: None,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(RegistrationAttemptThrottle, "rate", "4/hour")
    with caplog.at_level(logging.WARNING, logger="bingo.common.throttling"):
        assert Client().get(reverse("players:register")).status_code == 200
        assert Client().get(reverse("api:player-register")).status_code == 200
        statuses = [
            on_page(halls, "ana"),
            through_api(halls, "bia"),
            on_page(halls, "x", password2="other"),
            through_api(halls, "y", birth_date="2015-01-01"),
            on_page(halls, "carla"),
            through_api(halls, "dina"),
        ]

    assert statuses == [302, 201, 200, 400, 429, 429]  # counted in this process: 4 tries
    assert registered("ana")
    assert registered("bia")
    warnings = [r for r in caplog.records if r.name == "bingo.common.throttling"]
    assert len(warnings) == 1  # once for the interval, not once per request
    assert warnings[0].levelno == logging.WARNING
    assert "unreachable" in warnings[0].getMessage()
