"""Every string a person may read has its Portuguese (issue 25 point 4, R54): the messages
Django's ``makemessages`` extracts from the code and the templates today, not only those already
in the catalogue, are translated. ``scripts/check_messages.py`` (make lint) checks the catalogue's
own entries; this test catches a string marked for translation that never reached it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("manage.py", "bingo", "halls", "cards", "actas", "templates", "locale")


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="GNU gettext's xgettext extracts the messages")
def test_every_message_marked_for_translation_has_its_portuguese(tmp_path: Path) -> None:
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tmp_path / name)
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "pt", "--no-obsolete"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "bingo.settings",
            "DATABASE_URL": "sqlite://:memory:",
        },
    )

    catalogue = polib.pofile(str(tmp_path / "locale/pt/LC_MESSAGES/django.po"))
    missing = [
        f"{entry.msgid!r} ({entry.occurrences[0][0] if entry.occurrences else '?'})"
        for entry in catalogue
        if not entry.translated() or "fuzzy" in entry.flags
    ]
    assert missing == [], "\n".join(missing)
