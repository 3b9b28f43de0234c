"""The operator's key that signs the acta's receipts (actas/signing.py): from the environment or
a file, never the database; made once on a development machine, refused with debug off."""

from __future__ import annotations

import base64
import stat
import threading
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from actas.signing import (
    private_key_file_write,
    private_key_parse,
    private_key_pem,
    signing_identity,
    signing_key,
    signing_key_forget,
)
from bingo.engine.acta import key_id, public_key_text


def raw(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes_raw()


def only(**names: str) -> override_settings:
    """The signing key's settings as given, the others empty."""
    empty = {"ACTA_SIGNING_KEY": "", "ACTA_SIGNING_KEY_FILE": "", "ACTA_SIGNING_KEY_DEVELOPMENT_FILE": ""}
    return override_settings(**{**empty, **names})


def test_the_key_is_read_from_the_environment_as_pem_or_as_its_seed() -> None:
    key = Ed25519PrivateKey.generate()
    seed = base64.b64encode(raw(key)).decode()
    with only(ACTA_SIGNING_KEY=private_key_pem(key).decode()):
        assert raw(signing_key()) == raw(key)
    with only(ACTA_SIGNING_KEY=seed):
        assert raw(signing_key()) == raw(key)
        assert signing_identity() is not None
        assert signing_identity().key_id == key_id(key.public_key())
        assert signing_identity().public_key == public_key_text(key.public_key())


def test_the_key_is_read_from_a_file(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    path = tmp_path / "key.pem"
    private_key_file_write(path, key)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with only(ACTA_SIGNING_KEY_FILE=str(path)):
        assert raw(signing_key()) == raw(key)
        # Read once per process: a new key takes effect at the next start (or once forgotten).
        private_key_file_write(path, Ed25519PrivateKey.generate(), replace=True)
        assert raw(signing_key()) == raw(key)
        signing_key_forget()
        assert raw(signing_key()) != raw(key)


def test_without_a_key_signing_refuses_and_says_what_to_set() -> None:
    with only(), pytest.raises(ImproperlyConfigured, match="ACTA_SIGNING_KEY or ACTA_SIGNING_KEY_FILE"):
        signing_key()
    with only():
        assert signing_identity() is None


@pytest.mark.parametrize(
    "text", ["not a key", base64.b64encode(b"short").decode(), "-----BEGIN PRIVATE KEY-----"]
)
def test_a_key_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        private_key_parse(text)
    with only(ACTA_SIGNING_KEY=text), pytest.raises(ImproperlyConfigured, match="no Ed25519 private key"):
        signing_key()


def test_in_debug_the_machines_key_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "var" / "acta-signing-key.pem"
    with only(ACTA_SIGNING_KEY_DEVELOPMENT_FILE=str(path)):
        made = raw(signing_key())
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        signing_key_forget()
        assert raw(signing_key()) == made  # read again, not made again


def test_processes_making_the_machines_key_at_once_agree_on_one(tmp_path: Path) -> None:
    path = tmp_path / "acta-signing-key.pem"
    keys: list[bytes] = []
    start = threading.Barrier(8)

    def make() -> None:
        start.wait()
        with only(ACTA_SIGNING_KEY_DEVELOPMENT_FILE=str(path)):
            signing_key_forget()  # each as a fresh process would
            keys.append(raw(signing_key()))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(keys) == 8
    assert len(set(keys)) == 1
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_an_existing_key_file_is_never_replaced_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "key.pem"
    first = Ed25519PrivateKey.generate()
    private_key_file_write(path, first)
    with pytest.raises(FileExistsError):
        private_key_file_write(path, Ed25519PrivateKey.generate())
    assert raw(private_key_parse(path.read_text())) == raw(first)
