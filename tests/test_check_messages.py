"""scripts/check_messages.py: catches untranslated, fuzzy and stale catalogues."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

from tests.scripts import load_script
from tests.test_i18n import ROOT

check_messages = load_script("check_messages")

HEADER = {
    "Language": "pt",
    "Content-Type": "text/plain; charset=UTF-8",
    "Content-Transfer-Encoding": "8bit",
    "Plural-Forms": "nplurals=2; plural=(n != 1);",
}


def write_po(locale_dir: Path, language: str, entries: list[polib.POEntry]) -> Path:
    po = polib.POFile()
    po.metadata = {**HEADER, "Language": language}
    po.extend(entries)
    path = locale_dir / language / "LC_MESSAGES" / "django.po"
    path.parent.mkdir(parents=True)
    po.save(str(path))
    return path


def test_a_complete_compiled_catalogue_passes(tmp_path: Path) -> None:
    write_po(tmp_path, "pt", [polib.POEntry(msgid="Log in", msgstr="Entrar")])
    check_messages.compile_all(tmp_path)

    assert check_messages.check(tmp_path) == []


def test_an_untranslated_portuguese_entry_fails(tmp_path: Path) -> None:
    write_po(tmp_path, "pt", [polib.POEntry(msgid="Log in", msgstr="Entrar"), polib.POEntry(msgid="Log out")])
    check_messages.compile_all(tmp_path)

    problems = check_messages.check(tmp_path)

    assert len(problems) == 1
    assert "untranslated: 'Log out'" in problems[0]


def test_a_fuzzy_portuguese_entry_fails(tmp_path: Path) -> None:
    write_po(tmp_path, "pt", [polib.POEntry(msgid="Log out", msgstr="Entrar", flags=["fuzzy"])])
    check_messages.compile_all(tmp_path)

    assert any("fuzzy: 'Log out'" in problem for problem in check_messages.check(tmp_path))


def test_a_message_defined_twice_fails(tmp_path: Path) -> None:
    """Two branches that add the same message merge into a catalogue msgfmt refuses."""
    path = write_po(
        tmp_path, "pt", [polib.POEntry(msgid="Sales are closed.", msgstr="As vendas estão fechadas.")]
    )
    path.write_text(path.read_text() + '\nmsgid "Sales are closed."\nmsgstr "As vendas estão fechadas."\n')
    check_messages.compile_all(tmp_path)

    assert any("defined twice: 'Sales are closed.'" in problem for problem in check_messages.check(tmp_path))


def test_english_entries_may_stay_untranslated(tmp_path: Path) -> None:
    write_po(tmp_path, "en", [polib.POEntry(msgid="Log out")])
    check_messages.compile_all(tmp_path)

    assert check_messages.check(tmp_path) == []


def test_a_missing_mo_fails(tmp_path: Path) -> None:
    write_po(tmp_path, "pt", [polib.POEntry(msgid="Log in", msgstr="Entrar")])

    assert any("django.mo: missing" in problem for problem in check_messages.check(tmp_path))


def test_a_mo_older_than_its_po_fails(tmp_path: Path) -> None:
    path = write_po(tmp_path, "pt", [polib.POEntry(msgid="Log in", msgstr="Entrar")])
    check_messages.compile_all(tmp_path)
    po = polib.pofile(str(path))
    po[0].msgstr = "Iniciar"
    po.save()

    assert any("out of date" in problem for problem in check_messages.check(tmp_path))


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext (msgfmt) is not installed")
def test_a_mo_compiled_by_msgfmt_counts_as_up_to_date(tmp_path: Path) -> None:
    path = write_po(tmp_path, "pt", [polib.POEntry(msgid="Log in", msgstr="Entrar")])
    subprocess.run(["msgfmt", "-o", str(path.with_suffix(".mo")), str(path)], check=True)

    assert check_messages.check(tmp_path) == []


def test_the_script_exits_1_with_a_clear_message_then_0_after_compile(tmp_path: Path) -> None:
    write_po(tmp_path, "pt", [polib.POEntry(msgid="Log in", msgstr="Entrar")])
    script = [sys.executable, str(ROOT / "scripts" / "check_messages.py"), "--locale-dir", str(tmp_path)]

    failed = subprocess.run(script, capture_output=True, text=True, check=False)
    compiled = subprocess.run([*script, "--compile"], capture_output=True, text=True, check=False)
    passed = subprocess.run(script, capture_output=True, text=True, check=False)

    assert failed.returncode == 1
    assert "Translation catalogues are not ready" in failed.stderr
    assert "--compile" in failed.stderr
    assert compiled.returncode == 0
    assert passed.returncode == 0
    assert "OK" in passed.stdout
