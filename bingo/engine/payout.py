"""Paying prizes: the tax withheld on a prize (SPEC §2, R61 g)).

The hall's rule is a rate and a threshold: a prize share of at least the threshold is taxed at
the rate on its whole amount, and the tax is rounded down to the currency's unit (never more
than the rate). A threshold of 0 taxes every prize; a rate of 0 none.

Every payout at a desk prints a slip whose short code finds it again (``slip_code``): the number
of the payout's first payment and a MAC under the card's series key, so nothing is stored for
it and a code cannot be made up for a payment one has not seen.
"""

from __future__ import annotations

import hashlib
import hmac
from decimal import ROUND_FLOOR, Decimal

from bingo.engine.checkcode import ALPHABET, normalise


def tax_withheld(amount: Decimal, *, rate: Decimal, threshold: Decimal, quantum: Decimal) -> Decimal:
    """The tax withheld from a prize share of ``amount`` under a ``rate`` in percent."""
    for name, value in (("amount", amount), ("rate", rate), ("threshold", threshold)):
        if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
            raise ValueError(f"{name} must be a non-negative Decimal, not {value!r}")
    if rate > 100:
        raise ValueError(f"a tax rate is at most 100 %, not {rate}")
    if not isinstance(quantum, Decimal) or quantum <= 0:
        raise ValueError(f"the quantum must be a positive Decimal, not {quantum!r}")
    if amount < threshold or rate == 0:
        return Decimal(0).quantize(quantum)
    return (amount * rate / 100).quantize(quantum, rounding=ROUND_FLOOR)


# --- the payout slip's code -------------------------------------------------------------------

#: How many characters of the MAC a slip's code carries after its payment's number.
SLIP_MAC_LENGTH = 4
_SLIP_ID_MAX_DIGITS = 12


def slip_code(key: bytes, payment_id: int) -> str:
    """The code printed on the slip of a payout whose first payment is ``payment_id``:
    ``"{payment_id}-{mac}"``, the mac 4 characters of HMAC-SHA256 under ``key`` (the card's
    series key) in Crockford's base 32, so a typed code finds its slip again and a mistyped or
    made-up one finds none."""
    if payment_id < 1:
        raise ValueError(f"a payment's number is positive, not {payment_id}")
    digest = hmac.new(key, f"slip:{payment_id}".encode(), hashlib.sha256).digest()
    value = int.from_bytes(digest[:3], "big")
    mac = "".join(ALPHABET[(value >> (5 * i)) & 31] for i in reversed(range(SLIP_MAC_LENGTH)))
    return f"{payment_id}-{mac}"


def slip_code_payment_id(code: str) -> int | None:
    """The payment number a typed slip code names (spaces, dashes and case ignored, O read as 0
    and I/L as 1); None when it is not shaped like a slip code. Whether the code is genuine is
    ``slip_code_matches``'s to say."""
    text = normalise(code)
    head = text[:-SLIP_MAC_LENGTH]
    if not head or len(head) > _SLIP_ID_MAX_DIGITS or not (head.isascii() and head.isdigit()):
        return None
    if head.startswith("0"):
        return None
    return int(head)


def slip_code_matches(key: bytes, payment_id: int, code: str) -> bool:
    """Whether ``code`` (as typed) is the slip code of payment ``payment_id``; constant time."""
    # Bytes: compare_digest refuses text with characters beyond ASCII, which anyone may type.
    return hmac.compare_digest(normalise(code).encode(), normalise(slip_code(key, payment_id)).encode())
