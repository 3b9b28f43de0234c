"""``manage.py acta_keygen --output PATH``: a new signing key for the acta's receipts, readable by
its owner only, its public half printed for the regulator; an existing file is kept."""

from __future__ import annotations

import io
import stat
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from actas.signing import private_key_parse
from bingo.engine.acta import key_id, public_key_text


def keygen(*args: str) -> str:
    out = io.StringIO()
    with translation.override("en"):
        call_command("acta_keygen", *args, stdout=out)
    return out.getvalue()


def test_it_writes_a_private_key_and_prints_its_public_half(tmp_path: Path) -> None:
    path = tmp_path / "acta-signing-key.pem"
    printed = keygen("--output", str(path))

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    public = private_key_parse(path.read_text()).public_key()
    assert f"Public key (Ed25519, base64): {public_key_text(public)}" in printed
    assert f"Key id: {key_id(public)}" in printed
    assert f"ACTA_SIGNING_KEY_FILE={path}" in printed
    assert "BEGIN PRIVATE KEY" not in printed  # the private key stays in its file


def test_it_refuses_to_overwrite_a_key_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "acta-signing-key.pem"
    keygen("--output", str(path))
    first = path.read_text()

    with translation.override("en"), pytest.raises(CommandError, match="exists: no key was written"):
        call_command("acta_keygen", "--output", str(path), stdout=io.StringIO())
    assert path.read_text() == first

    keygen("--output", str(path), "--force")
    assert path.read_text() != first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_it_refuses_a_folder_that_does_not_exist(tmp_path: Path) -> None:
    with translation.override("en"), pytest.raises(CommandError, match="There is no folder"):
        call_command("acta_keygen", "--output", str(tmp_path / "nowhere" / "key.pem"), stdout=io.StringIO())
