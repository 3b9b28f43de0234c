"""Check codes printed on cards: proof that a card is the one the hall printed.

A card's code is the HMAC-SHA256, under its series' secret key, of ``"{series}:{number}"``,
cut to 40 bits and written as 8 characters of Crockford's base-32 alphabet (no I, L, O or U,
so it reads aloud and types without confusion). Without the key nobody can make a valid code
for a card number they have not seen.
"""

from __future__ import annotations

import hashlib
import hmac

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_LOOKALIKES = str.maketrans("OIL", "011")
LENGTH = 8


def check_code(key: bytes, series: int, number: int) -> str:
    """The check code of card ``number`` of series ``series``."""
    digest = hmac.new(key, f"{series}:{number}".encode(), hashlib.sha256).digest()
    value = int.from_bytes(digest[:5], "big")
    return "".join(ALPHABET[(value >> (5 * i)) & 31] for i in reversed(range(LENGTH)))


def normalise(code: str) -> str:
    """A typed code made comparable: upper case, no spaces or dashes, O read as 0 and I/L as 1."""
    text = "".join(code.split()).replace("-", "").upper()
    return text.translate(_LOOKALIKES)


def check_code_matches(key: bytes, series: int, number: int, code: str) -> bool:
    """Whether ``code`` (as typed) is the check code of that card; constant-time comparison (of
    bytes: ``compare_digest`` refuses text with characters beyond ASCII, which anyone may type)."""
    return hmac.compare_digest(normalise(code).encode(), check_code(key, series, number).encode())
