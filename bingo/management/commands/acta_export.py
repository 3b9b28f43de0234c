"""``manage.py acta_export SESSION --output acta.json``: the session's acta as a self-contained file
(``bingo-acta/1``) that ``acta_verify --file`` and ``python -m bingo.engine.acta_check`` check with
no database (docs/acta.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from actas.selectors import acta_file_data
from bingo.models import Session


class Command(BaseCommand):
    help = (
        "Write a session's acta as a self-contained JSON file: every record as hashed, its hash and "
        "the previous one, the seal and the signed receipts, to check away from the database."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("session", type=int, help="the session id")
        parser.add_argument("--output", required=True, help="the JSON file to write ('-': standard output)")

    def handle(self, *args: Any, **options: Any) -> None:
        session = Session.objects.filter(pk=options["session"]).first()
        if session is None:
            raise CommandError(_("There is no session %(id)d.") % {"id": options["session"]})
        data = acta_file_data(session=session)
        text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
        if options["output"] == "-":
            self.stdout.write(text, ending="")
            return
        output = Path(options["output"])
        output.write_text(text, encoding="utf-8")
        self.stderr.write(
            _(
                "Acta of session %(id)d: %(entries)d games, %(notes)d notes, %(receipts)d receipts "
                "written to %(file)s; seal %(seal)s."
            )
            % {
                "id": session.pk,
                "entries": len(data["entries"]),
                "notes": len(data["notes"]),
                "receipts": len(data["receipts"]),
                "file": output,
                "seal": data["seal"],
            }
        )
