"""``manage.py acta_verify SESSION``: recompute a session's acta and name the first record that
does not hold (exit 1), or say it is intact (exit 0)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from actas.selectors import acta_verify
from bingo.models import Session


class Command(BaseCommand):
    help = (
        "Check a session's acta: every record's SHA-256 over its content, the chain from one "
        "record to the next, no record missing or moved, every ended game recorded (R58-R61)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("session", type=int, help="the session id")

    def handle(self, *args: Any, **options: Any) -> None:
        session = Session.objects.filter(pk=options["session"]).first()
        if session is None:
            raise CommandError(_("There is no session %(id)d.") % {"id": options["session"]})
        result = acta_verify(session=session)
        if result.intact:
            self.stdout.write(
                _("The acta of session %(id)d is intact (games recorded: %(entries)d; notes: %(notes)d).")
                % {"id": session.pk, "entries": result.entries, "notes": result.notes}
            )
            self.stdout.write(_("Seal: %(seal)s") % {"seal": result.seal})
            return
        for problem in result.problems:
            self.stderr.write(problem.describe())
        # Exit status 1, naming the first record that does not hold.
        raise CommandError(
            _("The acta of session %(id)d is not intact: %(first)s")
            % {"id": session.pk, "first": result.problems[0].describe()}
        )
