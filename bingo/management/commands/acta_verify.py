"""``manage.py acta_verify SESSION`` or ``acta_verify --file acta.json``: recompute a session's acta,
from the database or from a downloaded file (with no database), check every signed receipt
(``--receipt``, repeatable, besides those it holds) against the operator's keys
(``--public-key``), and name the first record that does not hold (exit 1), or say it is intact
and print its seal (exit 0)."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from actas.selectors import acta_verify
from bingo.engine import acta_check
from bingo.engine.acta import acta_file_check, public_key_parse
from bingo.models import Session


class Command(BaseCommand):
    help = (
        "Check a session's acta — from the database (SESSION) or from a downloaded file (--file, no "
        "database): every record's SHA-256 over its content, the chain from one record to the next, "
        "no record missing or moved, every ended game recorded (R58-R61), every signed receipt's "
        "signature and that the acta still holds what each receipt signed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("session", type=int, nargs="?", help="the session id (or --file)")
        parser.add_argument(
            "--file", help="an acta file (acta_export, the portal's download): checked with no database"
        )
        parser.add_argument(
            "--receipt", action="append", default=[], help="a signed receipt kept apart (repeatable)"
        )
        parser.add_argument(
            "--public-key",
            action="append",
            default=[],
            help="the operator's registered public key, base64 or PEM, or a file holding it (repeatable)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if (options["session"] is None) == (options["file"] is None):
            raise CommandError(_("Name a session or an acta file (--file), one of the two."))
        try:
            receipts = acta_check.receipts_read(options["receipt"])
            keys = [public_key_parse(acta_check.key_text(k)) for k in options["public_key"]]
        except (OSError, ValueError) as error:
            raise CommandError(str(error)) from error
        trusted = keys or None
        if options["file"] is not None:
            self._file(options["file"], receipts, trusted)
        else:
            self._database(options["session"], receipts, trusted)

    def _file(self, path: str, receipts: list[object], trusted: list[Ed25519PublicKey] | None) -> None:
        try:
            data = acta_check.json_read(path)
        except (OSError, ValueError) as error:
            raise CommandError(str(error)) from error
        check = acta_file_check(data, receipts=receipts, trusted=trusted)
        language = (get_language() or "pt")[:2]
        status, lines = acta_check.report(check, trusted_given=trusted is not None, language=language)
        if status == 0:
            self.stdout.write("\n".join(lines))
            return
        for line in lines[1:]:
            self.stderr.write(line)
        # Exit status 1, naming the first record that does not hold.
        raise CommandError(f"{lines[0]} {acta_check.problem_text(check.problems[0], language)}")

    def _database(
        self, session_id: int, receipts: list[object], trusted: list[Ed25519PublicKey] | None
    ) -> None:
        session = Session.objects.filter(pk=session_id).first()
        if session is None:
            raise CommandError(_("There is no session %(id)d.") % {"id": session_id})
        result = acta_verify(session=session, receipts=receipts, trusted=trusted)
        if result.intact:
            self.stdout.write(
                _("The acta of session %(id)d is intact (games recorded: %(entries)d; notes: %(notes)d).")
                % {"id": session.pk, "entries": result.entries, "notes": result.notes}
            )
            self.stdout.write(_("Signed receipts checked: %(count)d.") % {"count": result.receipts})
            self.stdout.write(_("Seal: %(seal)s") % {"seal": result.seal})
            return
        for problem in result.problems:
            self.stderr.write(problem.describe())
        # Exit status 1, naming the first record that does not hold.
        raise CommandError(
            _("The acta of session %(id)d is not intact: %(first)s")
            % {"id": session.pk, "first": result.problems[0].describe()}
        )
