"""``manage.py session_export SESSION --output FILE.json``: a session as JSON (docs/session-export.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bingo.games.exports import session_export_data
from bingo.models import Session


class Command(BaseCommand):
    help = "Write a session, game by game, as JSON: the data the acta is built on."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("session", type=int, help="the session id")
        parser.add_argument(
            "--output", required=True, help="the JSON file to write ('-' for standard output)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        session = Session.objects.filter(pk=options["session"]).first()
        if session is None:
            raise CommandError(f"There is no session {options['session']}.")
        text = json.dumps(session_export_data(session=session), ensure_ascii=False, indent=2) + "\n"
        if options["output"] == "-":
            self.stdout.write(text, ending="")
            return
        path = Path(options["output"])
        if not path.parent.is_dir():
            raise CommandError(f"No such directory: {path.parent}")
        path.write_text(text, encoding="utf-8")
        self.stdout.write(str(path))
