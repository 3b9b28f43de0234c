"""The operator's Ed25519 key that signs the acta's receipts (docs/acta.md, «Signed receipts»).

The key lives outside the database, so that whoever can write the database cannot also sign a
rewritten acta: in the environment (``ACTA_SIGNING_KEY``: a PEM PKCS8 private key, or base64 of
its 32-byte seed) or in a file (``ACTA_SIGNING_KEY_FILE``, a PEM file readable by the app only;
``manage.py acta_keygen`` writes one). With neither and debug on, a key of the machine is created
on first use (``var/acta-signing-key.pem``); with debug off signing refuses, and ``check
--deploy`` says so (bingo/checks.py).

The key is read once per process (``signing_key``, cached by the settings that name it): a new
key takes effect when the processes restart, and the next record of each acta then writes the
change in it (``actas.services``).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from bingo.engine.acta import key_id, public_key_text

#: Where the key is configured, for the messages that say what to set.
SETTINGS_NAMES = "ACTA_SIGNING_KEY or ACTA_SIGNING_KEY_FILE"


@dataclass(frozen=True)
class SigningIdentity:
    """The public half of the operator's key, as the regulator registers it."""

    key_id: str
    #: The 32 raw bytes of the public key in base64 (``bingo.engine.acta.public_key_text``).
    public_key: str


def private_key_parse(text: str) -> Ed25519PrivateKey:
    """An Ed25519 private key from a PEM block (PKCS8, unencrypted) or base64 of its 32-byte seed;
    ValueError else."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_private_key(text.encode(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError("not an Ed25519 private key")
        return key
    try:
        seed = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("neither a PEM private key nor base64") from None
    if len(seed) != 32:
        raise ValueError("an Ed25519 private key's seed has 32 bytes")
    return Ed25519PrivateKey.from_private_bytes(seed)


def private_key_pem(key: Ed25519PrivateKey) -> bytes:
    """``key`` as a PEM PKCS8 block, unencrypted (the file's permissions protect it)."""
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def private_key_file_write(path: Path, key: Ed25519PrivateKey, *, replace: bool = False) -> None:
    """Write ``key`` to ``path`` as PEM, readable by its owner only (0600), whole or not at all:
    written to a temporary file beside it, then linked in its place, which fails with
    FileExistsError when ``path`` exists (unless ``replace``). Two processes creating the same
    file at once so agree on one key."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(private_key_pem(key))
            out.flush()
            os.fsync(out.fileno())
        if replace:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _key_file_read(path: Path) -> Ed25519PrivateKey:
    try:
        return private_key_parse(path.read_text(encoding="ascii"))
    except OSError as error:
        raise ImproperlyConfigured(f"The acta's signing key file {path} cannot be read: {error}.") from None
    except ValueError as error:
        raise ImproperlyConfigured(
            f"The acta's signing key file {path} holds no Ed25519 private key ({error})."
        ) from None


def _development_key(path: Path) -> Ed25519PrivateKey:
    """The machine's own key for debug (``make run``, the tests): read, or created once."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Another process may create it first: then use theirs.
        with contextlib.suppress(FileExistsError):
            private_key_file_write(path, Ed25519PrivateKey.generate())
    return _key_file_read(path)


@functools.lru_cache(maxsize=8)
def _key_load(text: str, path: str, development_path: str) -> Ed25519PrivateKey:
    if text:
        try:
            return private_key_parse(text)
        except ValueError as error:
            raise ImproperlyConfigured(f"ACTA_SIGNING_KEY holds no Ed25519 private key ({error}).") from None
    if path:
        return _key_file_read(Path(path))
    if development_path:
        return _development_key(Path(development_path))
    raise ImproperlyConfigured(
        f"The acta's signing key is not set: set {SETTINGS_NAMES} (create one with `manage.py "
        "acta_keygen --output PATH`, docs/acta.md «Signed receipts»). With DJANGO_DEBUG off no key "
        "is made up: the acta's receipts must be signed by the key the regulator registered."
    )


def signing_key() -> Ed25519PrivateKey:
    """The operator's private key, as the settings name it (read once per process);
    ImproperlyConfigured when none is set or it cannot be read."""
    return _key_load(
        settings.ACTA_SIGNING_KEY, settings.ACTA_SIGNING_KEY_FILE, settings.ACTA_SIGNING_KEY_DEVELOPMENT_FILE
    )


def signing_key_forget() -> None:
    """Read the key again at its next use (the tests, after changing the settings that name it)."""
    _key_load.cache_clear()


def signing_identity() -> SigningIdentity | None:
    """The public half of the operator's key, to show; None when no key is configured."""
    try:
        public = signing_key().public_key()
    except ImproperlyConfigured:
        return None
    return SigningIdentity(key_id=key_id(public), public_key=public_key_text(public))
