"""Check a downloaded acta away from the operator: ``python -m bingo.engine.acta_check``.

An inspector holding an acta file (``acta-sessao-N.json``, format ``bingo-acta/1``), the signed
receipts they downloaded along the way and the operator's registered public key proves on their
own machine that the acta is whole and unaltered, or learns which record is not::

    python -m bingo.engine.acta_check acta-sessao-12.json \\
        --receipt recibo-12-5.json --public-key chave-publica.txt

It needs Python 3.11 and the ``cryptography`` package, nothing else: no database, no settings,
no Django. This file and ``acta.py`` beside it are the whole checker; copied into one folder
they run as ``python acta_check.py …`` (docs/acta.md). Exit status 0 and the seal when the
acta holds; 1 naming the first record that does not; 2 when a file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

try:
    from bingo.engine import acta
except ImportError:  # the two files copied into a folder of their own
    import acta  # type: ignore[no-redef]

#: What each problem says, in Portuguese (the regulation's language, R54) and in English.
_RECORD = {
    "pt": {"entry": "O registo de jogada %(n)d", "note": "A nota %(n)d"},
    "en": {"entry": "Game entry %(n)d", "note": "Note %(n)d"},
}
_FAULT = {
    "pt": {
        "missing": "falta: foi apagado ou a acta foi cortada",
        "changed": "foi alterado depois de lavrado",
        "reordered": "foi mudado da posição em que foi lavrado",
        "unchained": "não segue o anterior: houve registos alterados ou baralhados",
        "foreign": "pertence à acta de outra sessão",
        "truncated": "falta: a acta termina antes do que o recibo %(r)d assinou",
        "rewritten": "não é o que o recibo %(r)d assinou: a acta foi reescrita desde então",
    },
    "en": {
        "missing": "is missing: it was deleted or the acta was cut short",
        "changed": "was changed after it was recorded",
        "reordered": "was moved from the position it was recorded at",
        "unchained": "does not follow the one before it: records were changed or shuffled",
        "foreign": "belongs to another session's acta",
        "truncated": "is missing: the acta ends before what receipt %(r)d signed",
        "rewritten": "is not what receipt %(r)d signed: the acta was rewritten since",
    },
}
_RECEIPT = {
    "pt": {
        "malformed": "O recibo %(r)d não é um recibo de acta legível.",
        "forged": "A assinatura do recibo %(r)d não confere: o recibo foi alterado ou forjado.",
        "untrusted_key": "O recibo %(r)d foi assinado com uma chave que não é a do operador.",
        "other_session": "O recibo %(r)d é da acta de outra sessão.",
    },
    "en": {
        "malformed": "Receipt %(r)d is not a readable acta receipt.",
        "forged": "Receipt %(r)d's signature does not match: the receipt was altered or forged.",
        "untrusted_key": "Receipt %(r)d was signed with a key that is not the operator's.",
        "other_session": "Receipt %(r)d is of another session's acta.",
    },
}
_FILE = {
    "pt": {
        "malformed": "O ficheiro não é uma acta (formato bingo-acta/1).",
        "seal": "O selo escrito no ficheiro não é o dos seus registos: o ficheiro foi alterado.",
    },
    "en": {
        "malformed": "The file is not an acta (format bingo-acta/1).",
        "seal": "The seal written in the file is not its records': the file was changed.",
    },
}
_GAME = {"pt": " Diz respeito à jogada %(g)d.", "en": " It concerns game %(g)d."}
_TEXT = {
    "pt": {
        "intact": (
            "A acta da sessão %(s)d está íntegra: "
            "%(e)d jogadas, %(n)d notas, %(r)d recibos assinados verificados."
        ),
        "broken": "A acta da sessão %(s)s NÃO está íntegra:",
        "seal": "Selo: %(seal)s",
        "keys": "Assinada com a(s) chave(s): %(keys)s",
        "untrusted": (
            "Nenhuma chave pública indicada (--public-key): "
            "compare estas chaves com a registada pelo regulador."
        ),
        "unreadable": "Não foi possível ler %(path)s: %(why)s",
        "bad_key": "Chave pública inválida: %(why)s",
    },
    "en": {
        "intact": (
            "The acta of session %(s)d is intact: %(e)d games, %(n)d notes, %(r)d signed receipts checked."
        ),
        "broken": "The acta of session %(s)s is NOT intact:",
        "seal": "Seal: %(seal)s",
        "keys": "Signed with key(s): %(keys)s",
        "untrusted": (
            "No public key given (--public-key): compare these keys with the one the regulator registered."
        ),
        "unreadable": "Could not read %(path)s: %(why)s",
        "bad_key": "Invalid public key: %(why)s",
    },
}


def problem_text(problem: acta.Problem, language: str = "pt") -> str:
    """One problem as a sentence, in Portuguese (``pt``) or English (``en``)."""
    lang = language if language in _TEXT else "pt"
    values = {"n": problem.position, "r": problem.receipt or 0, "g": problem.game or 0}
    if problem.record == "receipt":
        return _RECEIPT[lang][problem.fault] % values
    if problem.record == "file":
        return _FILE[lang][problem.fault] % values
    text = f"{_RECORD[lang][problem.record] % values} {_FAULT[lang][problem.fault] % values}."
    return text + (_GAME[lang] % values if problem.game is not None else "")


def json_read(path: str) -> object:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def key_text(value: str) -> str:
    """A public key given as its text (base64 or PEM) or as a file holding it."""
    path = Path(value)
    return path.read_text(encoding="utf-8") if path.is_file() else value


def receipts_read(paths: Sequence[str]) -> list[object]:
    """The receipts in those files: one receipt per file, or a list of them."""
    found: list[object] = []
    for path in paths:
        data = json_read(path)
        found.extend(data if isinstance(data, list) else [data])
    return found


def report(check: acta.FileCheck, *, trusted_given: bool, language: str = "pt") -> tuple[int, list[str]]:
    """The exit status and the lines to print for ``check``."""
    text = _TEXT[language if language in _TEXT else "pt"]
    if not check.intact:
        lines = [text["broken"] % {"s": check.session if check.session is not None else "?"}]
        return 1, lines + [f"- {problem_text(p, language)}" for p in check.problems]
    lines = [
        text["intact"] % {"s": check.session, "e": check.entries, "n": check.notes, "r": check.receipts},
        text["seal"] % {"seal": check.seal},
    ]
    if check.key_ids:
        lines.append(text["keys"] % {"keys": ", ".join(check.key_ids)})
        if not trusted_given:
            lines.append(text["untrusted"])
    return 0, lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="acta_check", description="Verifica uma acta descarregada, sem base de dados (docs/acta.md)."
    )
    parser.add_argument("file", help="o ficheiro da acta (acta-sessao-N.json)")
    parser.add_argument(
        "--receipt", action="append", default=[], help="um recibo assinado guardado à parte (repetível)"
    )
    parser.add_argument(
        "--public-key", action="append", default=[], help="a chave pública registada do operador (repetível)"
    )
    parser.add_argument("--language", choices=("pt", "en"), default="pt")
    args = parser.parse_args(argv)
    text = _TEXT[args.language]
    try:
        data = json_read(args.file)
        receipts = receipts_read(args.receipt)
    except (OSError, ValueError) as error:
        sys.stderr.write(text["unreadable"] % {"path": args.file, "why": error} + "\n")
        return 2
    try:
        trusted = [acta.public_key_parse(key_text(key)) for key in args.public_key] or None
    except (OSError, ValueError) as error:
        sys.stderr.write(text["bad_key"] % {"why": error} + "\n")
        return 2
    check = acta.acta_file_check(data, receipts=receipts, trusted=trusted)
    status, lines = report(check, trusted_given=trusted is not None, language=args.language)
    (sys.stdout if status == 0 else sys.stderr).write("\n".join(lines) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
