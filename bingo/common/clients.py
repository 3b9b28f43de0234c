"""The client's address: the one every rate limit and login lockout counts by.

``settings.BINGO_TRUSTED_PROXIES`` says how many proxies stand in front of the server. With 0
(the default) the address is the socket's and X-Forwarded-For is ignored: any client may write
that header. With N, each proxy appended the address it was reached from, so the Nth address
from the right is the one the outermost of our proxies saw, and what the client wrote to the
left of it changes nothing. The web server must leave the socket's address alone (uvicorn
``--no-proxy-headers``, docs/deploy.md): the count is read here, once.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

#: Whether this process has said that X-Forwarded-For arrives with no trusted proxy set.
_warned_unused_header = False


def client_address(request: Any) -> str:
    """The address ``request`` came from, as far as the trusted proxies tell (module docstring).

    Takes a Django or DRF request (anything with ``META``). Falls back to the socket's address
    when X-Forwarded-For is missing or its entry is not an address.
    """
    meta = request.META
    remote: str = meta.get("REMOTE_ADDR") or ""
    forwarded: str = meta.get("HTTP_X_FORWARDED_FOR") or ""
    proxies: int = settings.BINGO_TRUSTED_PROXIES
    if proxies <= 0:
        if forwarded:
            _warn_unused_header()
        return remote
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    if not hops:
        return remote
    # Fewer entries than proxies: the request skipped an outer proxy; the leftmost entry is still
    # one a trusted proxy wrote (as DRF's NUM_PROXIES reads it).
    return _address(hops[-min(proxies, len(hops))]) or remote


def _address(hop: str) -> str | None:
    """``hop`` as an IP address without a port ("1.2.3.4:5678", "[2001:db8::1]:5678"), or None."""
    if hop.startswith("[") and "]" in hop:
        hop = hop[1 : hop.index("]")]
    elif hop.count(":") == 1:
        hop = hop.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(hop))
    except ValueError:
        return None


def _warn_unused_header() -> None:
    global _warned_unused_header
    if not _warned_unused_header:
        _warned_unused_header = True
        logger.warning(
            "Requests arrive with X-Forwarded-For but BINGO_TRUSTED_PROXIES is 0: each client is "
            "counted by the socket's address. Behind a proxy every client then shares the proxy's "
            "address (rate limits, login lockouts): set BINGO_TRUSTED_PROXIES (docs/deploy.md)."
        )


def forget() -> None:
    """Let the warning above be given again (tests)."""
    global _warned_unused_header
    _warned_unused_header = False
