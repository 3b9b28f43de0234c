"""A deterministic, extendable stream of random integers derived from a seed.

Card sets must be reproducible for years from (variant, size, seed, algorithm), on any machine
and with any numpy version, so the bits come from SHAKE-256 (FIPS 202) rather than a library
generator whose stream may change between releases: block ``label`` of a stream is
``SHAKE-256("{domain}|{label}")`` read as little-endian unsigned 64-bit integers. Knowing some
cards of a set does not reveal the others without the seed.

Reducing a 64-bit value modulo a bound below 2**16 biases the result by less than 2**-48,
far below anything a test or a player could detect.
"""

from __future__ import annotations

import hashlib
import secrets

import numpy as np
import numpy.typing as npt

#: Seeds are non-negative integers below this bound (128 bits drawn by default).
SEED_LIMIT = 2**256


def new_seed() -> int:
    """A fresh 128-bit seed from the operating system's secure generator."""
    return secrets.randbits(128)


def parse_seed(value: str | int) -> int:
    """The seed written in ``value``; ValueError with a clear reason unless a plain integer."""
    text = str(value).strip()
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"seed must be a non-negative whole number, not {value!r}")
    seed = int(text)
    if seed >= SEED_LIMIT:
        raise ValueError("seed must be below 2**256")
    return seed


class Stream:
    """Named blocks of deterministic random 64-bit integers."""

    def __init__(self, domain: str) -> None:
        self._domain = domain

    def u64(self, label: str, count: int) -> npt.NDArray[np.uint64]:
        """``count`` integers of block ``label``; the same label always gives the same values."""
        if count <= 0:
            return np.zeros(0, dtype=np.uint64)
        data = hashlib.shake_256(f"{self._domain}|{label}".encode()).digest(8 * count)
        return np.frombuffer(data, dtype="<u8").astype(np.uint64)

    def u64_rows(self, labels: list[str], count: int) -> npt.NDArray[np.uint64]:  # read-only
        """``u64(label, count)`` of each of ``labels``, one row each: shape (labels, count)."""
        if not labels or count <= 0:
            return np.zeros((len(labels), max(count, 0)), dtype=np.uint64)
        size, domain = 8 * count, self._domain
        data = b"".join(hashlib.shake_256(f"{domain}|{label}".encode()).digest(size) for label in labels)
        # Little-endian as read; the same values as ``u64``, without its copy.
        return np.frombuffer(data, dtype="<u8").reshape(len(labels), count)

    def below(self, label: str, bounds: npt.ArrayLike, shape: tuple[int, ...]) -> npt.NDArray[np.int64]:
        """Integers in ``[0, bound)`` of block ``label``, ``bounds`` broadcast to ``shape``."""
        size = int(np.prod(shape))
        raw = self.u64(label, size).reshape(shape)
        limits = np.broadcast_to(np.asarray(bounds, dtype=np.uint64), shape)
        return (raw % limits).astype(np.int64)

    def keys(self, label: str, shape: tuple[int, ...]) -> npt.NDArray[np.uint64]:
        """Random sort keys: ``argsort`` of these is a uniformly random permutation."""
        return self.u64(label, int(np.prod(shape))).reshape(shape)
