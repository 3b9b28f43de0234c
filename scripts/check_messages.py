#!/usr/bin/env python
"""Check, or compile, the translation catalogues under locale/ without GNU gettext.

    scripts/check_messages.py            fail (exit 1) if a Portuguese entry is untranslated
                                         or fuzzy, or if any .mo differs from its .po
    scripts/check_messages.py --compile  write every .mo from its .po

The msgids are English (the source language), so only non-English catalogues must be
complete; R54 requires the Portuguese one to be. The compiled .mo files are committed because
msgfmt is not guaranteed on a fresh machine; this script keeps them honest.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

import polib

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
SOURCE_LANGUAGE = "en"

# What a catalogue means to gettext: (context, msgid) -> (msgid_plural, translations).
Meaning = dict[tuple[str | None, str], tuple[str | None, tuple[str, ...]]]
# The header fields gettext reads. Others (dates, translator) may differ: msgfmt drops some.
HEADER_FIELDS_USED = ("Language", "Content-Type", "Plural-Forms")


def catalogues(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Every .po file under ``locale_dir``, in a stable order."""
    return sorted(locale_dir.glob("*/LC_MESSAGES/*.po"))


def _language(po_path: Path) -> str:
    return po_path.parent.parent.name


def _translations(entry: polib.POEntry | polib.MOEntry) -> tuple[str, ...]:
    if entry.msgid_plural:
        return tuple(entry.msgstr_plural[index] for index in sorted(entry.msgstr_plural))
    return (entry.msgstr,)


def _meaning(entries: Iterable[polib.POEntry | polib.MOEntry]) -> Meaning:
    return {
        (entry.msgctxt, entry.msgid): (entry.msgid_plural or None, _translations(entry))
        for entry in entries
        if entry.msgid and any(_translations(entry))
    }


def _compiled_entries(po: polib.POFile) -> list[polib.POEntry]:
    """The entries gettext would use: translated, not fuzzy, not obsolete."""
    return [entry for entry in po.translated_entries() if not entry.fuzzy]


def problems(po_path: Path) -> list[str]:
    """What is wrong with one catalogue and its compiled .mo (an empty list when nothing)."""
    po = polib.pofile(str(po_path))
    found: list[str] = []
    if po.metadata_is_fuzzy:
        found.append(f"{po_path}: the header is marked fuzzy")
    # msgfmt refuses a catalogue with a message twice (two branches adding the same one).
    seen: set[tuple[str | None, str]] = set()
    for entry in po:
        if (entry.msgctxt, entry.msgid) in seen and not entry.obsolete:
            found.append(f"{po_path}: defined twice: {entry.msgid!r}")
        seen.add((entry.msgctxt, entry.msgid))
    if _language(po_path) != SOURCE_LANGUAGE:
        found += [f"{po_path}: untranslated: {entry.msgid!r}" for entry in po.untranslated_entries()]
        found += [f"{po_path}: fuzzy: {entry.msgid!r}" for entry in po.fuzzy_entries()]
    mo_path = po_path.with_suffix(".mo")
    if not mo_path.exists():
        found.append(f"{mo_path}: missing; run scripts/check_messages.py --compile")
        return found
    mo = polib.mofile(str(mo_path))
    header_used = {field: po.metadata.get(field) for field in HEADER_FIELDS_USED}
    if _meaning(_compiled_entries(po)) != _meaning(mo) or header_used != {
        field: mo.metadata.get(field) for field in HEADER_FIELDS_USED
    }:
        found.append(f"{mo_path}: out of date with {po_path.name}; run scripts/check_messages.py --compile")
    return found


def check(locale_dir: Path = LOCALE_DIR) -> list[str]:
    """Every problem in every catalogue under ``locale_dir``."""
    paths = catalogues(locale_dir)
    if not paths:
        return [f"{locale_dir}: no .po catalogue found"]
    return [problem for path in paths for problem in problems(path)]


def compile_all(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Write the .mo of every catalogue under ``locale_dir``; return the files written."""
    written = []
    for po_path in catalogues(locale_dir):
        po = polib.pofile(str(po_path))
        # Like msgfmt: fuzzy entries are left out of the compiled catalogue.
        compiled = polib.POFile()
        compiled.metadata = po.metadata
        compiled.extend(_compiled_entries(po))
        mo_path = po_path.with_suffix(".mo")
        compiled.save_as_mofile(str(mo_path))
        written.append(mo_path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", action="store_true", help="write the .mo files from the .po files")
    parser.add_argument("--locale-dir", type=Path, default=LOCALE_DIR, help="default: the project's locale/")
    args = parser.parse_args(argv)
    if args.compile:
        for path in compile_all(args.locale_dir):
            sys.stdout.write(f"compiled {path}\n")
    found = check(args.locale_dir)
    if found:
        sys.stderr.write("Translation catalogues are not ready:\n")
        for problem in found:
            sys.stderr.write(f"  {problem}\n")
        return 1
    sys.stdout.write(f"Translation catalogues OK ({len(catalogues(args.locale_dir))} checked).\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
