"""``manage.py acta_pdf SESSION --output FILE.pdf``: the session's acta as a PDF, in Portuguese."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation
from django.utils.translation import gettext as _

from actas.pdf import render_acta_pdf
from actas.selectors import acta_document
from bingo.models import Session


class Command(BaseCommand):
    help = "Write a session's acta (R58-R61) as a PDF, in Portuguese, with the seal on every page."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("session", type=int, help="the session id")
        parser.add_argument("--output", required=True, help="the PDF file to write")
        parser.add_argument("--language", default="pt", help="the acta's language (default: pt, R54)")

    def handle(self, *args: Any, **options: Any) -> None:
        session = Session.objects.filter(pk=options["session"]).first()
        if session is None:
            raise CommandError(_("There is no session %(id)d.") % {"id": options["session"]})
        document = acta_document(session=session)
        output = Path(options["output"])
        with output.open("wb") as out, translation.override(options["language"]):
            pages = render_acta_pdf(document, out)
        self.stdout.write(
            _("Acta of session %(id)d: %(pages)d pages written to %(file)s; seal %(seal)s.")
            % {"id": session.pk, "pages": pages, "file": output, "seal": document["final_hash"]}
        )
