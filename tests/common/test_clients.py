"""The client's address (bingo/common/clients.py), the one every rate limit and lockout counts by:
the socket's, or with settings.BINGO_TRUSTED_PROXIES = N the Nth address of X-Forwarded-For from
the right (each proxy appends the address it was reached from)."""

from __future__ import annotations

import logging

import pytest
from django.test import RequestFactory, override_settings
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from bingo.common import clients
from bingo.common.clients import client_address

SOCKET = "10.0.0.5"  # the proxy's address, as the server sees the connection


def request(forwarded_for: str | None = None, remote: str = SOCKET) -> object:
    extra = {"REMOTE_ADDR": remote}
    if forwarded_for is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded_for
    return RequestFactory().get("/", **extra)


@pytest.fixture(autouse=True)
def _no_warning_given_yet() -> None:
    clients.forget()


@override_settings(BINGO_TRUSTED_PROXIES=0)
def test_with_no_trusted_proxy_forwarded_for_is_ignored() -> None:
    assert client_address(request("203.0.113.9")) == SOCKET
    assert client_address(request("203.0.113.9, 198.51.100.4")) == SOCKET
    assert client_address(request()) == SOCKET


@override_settings(BINGO_TRUSTED_PROXIES=1)
def test_with_one_proxy_the_address_it_appended_counts() -> None:
    # nginx's $proxy_add_x_forwarded_for: what the client sent, then the address nginx saw.
    assert client_address(request("203.0.113.9, 198.51.100.4")) == "198.51.100.4"
    assert client_address(request("198.51.100.4")) == "198.51.100.4"
    assert client_address(request(" 198.51.100.4 ")) == "198.51.100.4"


@override_settings(BINGO_TRUSTED_PROXIES=2)
def test_with_two_proxies_the_second_address_from_the_right_counts() -> None:
    assert client_address(request("1.1.1.1, 203.0.113.9, 198.51.100.4")) == "203.0.113.9"
    # Fewer addresses than proxies (a request that skipped the outer proxy): the leftmost, which
    # a trusted proxy wrote, as DRF's NUM_PROXIES does.
    assert client_address(request("198.51.100.4")) == "198.51.100.4"


@override_settings(BINGO_TRUSTED_PROXIES=1)
def test_without_forwarded_for_or_with_an_unreadable_one_the_socket_counts() -> None:
    assert client_address(request()) == SOCKET
    assert client_address(request("")) == SOCKET
    assert client_address(request("203.0.113.9, unknown")) == SOCKET
    assert client_address(request("203.0.113.9, <script>")) == SOCKET


@override_settings(BINGO_TRUSTED_PROXIES=1)
def test_a_port_after_the_address_is_dropped() -> None:
    assert client_address(request("198.51.100.4:51234")) == "198.51.100.4"
    assert client_address(request("[2001:db8::7]:51234")) == "2001:db8::7"
    assert client_address(request("2001:db8::7")) == "2001:db8::7"


@override_settings(BINGO_TRUSTED_PROXIES=0)
def test_forwarded_for_with_no_trusted_proxy_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    """Behind a proxy with the setting forgotten every client would count as the proxy: say so."""
    with caplog.at_level(logging.WARNING, logger="bingo.common.clients"):
        for n in range(5):
            client_address(request(f"203.0.113.{n}"))

    warnings = [r for r in caplog.records if r.name == "bingo.common.clients"]
    assert len(warnings) == 1
    assert "BINGO_TRUSTED_PROXIES" in warnings[0].getMessage()


@pytest.mark.parametrize("proxies", [0, 1, 2])
def test_drf_and_axes_read_the_same_address(proxies: int) -> None:
    from axes.helpers import get_client_ip_address

    with override_settings(
        BINGO_TRUSTED_PROXIES=proxies, REST_FRAMEWORK={"NUM_PROXIES": proxies, "DEFAULT_THROTTLE_RATES": {}}
    ):
        assert proxies == api_settings.NUM_PROXIES
        one = request("192.0.2.1, 203.0.113.9, 198.51.100.4")
        assert get_client_ip_address(one) == client_address(one)
        assert BaseThrottle().get_ident(one) == client_address(one)


def test_the_settings_hand_the_one_number_to_drf_and_axes() -> None:
    from django.conf import settings

    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == settings.BINGO_TRUSTED_PROXIES
    assert settings.AXES_CLIENT_IP_CALLABLE == "bingo.common.clients.client_address"
