"""Deterministic, extendable streams of random integers derived from a seed.

Card sets must be reproducible for years from (variant, size, seed, algorithm), on any machine
and with any numpy version, so the bits come from standard, fixed functions rather than a
library generator whose stream may change between releases. A stream is a set of named blocks,
each as long as it is read; knowing some cards of a set does not reveal the others without the
seed.

* ``Stream`` (``cards/1``, ``strips/1``): block ``label`` is ``SHAKE-256("{domain}|{label}")``
  (FIPS 202).
* ``CounterStream`` (``cards/2``): block ``label`` is the AES-256 counter-mode key stream (FIPS
  197, NIST SP 800-38A) under the key ``SHA-256("{domain}|{label}")``, its 128-bit counter block
  starting at 0 and counting up as one big-endian integer: the encryption of zero bytes. It
  gives the same kind of bits several times faster (AES instructions), and any byte of a block
  can be read without the ones before it.

Both read their blocks as little-endian unsigned 64-bit (or 32-bit) integers. Reducing a 64-bit
value modulo a bound below 2**16 biases the result by less than 2**-48, far below anything a
test or a player could detect.
"""

from __future__ import annotations

import hashlib
import secrets

import numpy as np
import numpy.typing as npt
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

#: Seeds are non-negative integers below this bound (128 bits drawn by default).
SEED_LIMIT = 2**256

#: AES's block: the counter steps once every 16 bytes of key stream.
_AES_BLOCK = 16


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
    """Named blocks of deterministic random integers, from SHAKE-256 (``cards/1``, ``strips/1``)."""

    def __init__(self, domain: str) -> None:
        self._domain = domain

    def read(self, label: str, start: int, size: int) -> bytes:
        """Bytes ``start`` to ``start + size`` of block ``label``."""
        return hashlib.shake_256(f"{self._domain}|{label}".encode()).digest(start + size)[start:]

    def u64(self, label: str, count: int) -> npt.NDArray[np.uint64]:
        """``count`` integers of block ``label``; the same label always gives the same values."""
        if count <= 0:
            return np.zeros(0, dtype=np.uint64)
        return np.frombuffer(self.read(label, 0, 8 * count), dtype="<u8").astype(np.uint64)

    def u32(self, label: str, count: int, start: int = 0) -> npt.NDArray[np.uint32]:
        """Integers ``start`` to ``start + count`` of block ``label`` read as 32-bit integers."""
        if count <= 0:
            return np.zeros(0, dtype=np.uint32)
        return np.frombuffer(self.read(label, 4 * start, 4 * count), dtype="<u4").astype(np.uint32)

    def u64_rows(self, labels: list[str], count: int) -> npt.NDArray[np.uint64]:  # read-only
        """``u64(label, count)`` of each of ``labels``, one row each: shape (labels, count)."""
        if not labels or count <= 0:
            return np.zeros((len(labels), max(count, 0)), dtype=np.uint64)
        data = b"".join(self.read(label, 0, 8 * count) for label in labels)
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


class CounterStream(Stream):
    """The same named blocks from AES-256 in counter mode (``cards/2``, see the module's doc)."""

    def read(self, label: str, start: int, size: int) -> bytes:
        """Bytes ``start`` to ``start + size`` of block ``label``, from the counter block there."""
        key = hashlib.sha256(f"{self._domain}|{label}".encode()).digest()
        counter, skip = divmod(start, _AES_BLOCK)
        encryptor = Cipher(algorithms.AES(key), modes.CTR(counter.to_bytes(_AES_BLOCK, "big"))).encryptor()
        data = encryptor.update(bytes(skip + size))
        return data[skip:] if skip else data
