"""Print a series' cards to an A4 PDF file."""

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from cards.models import Series
from cards.printing.pdf import render_series_pdf
from cards.printing.services import print_range_check


class Command(BaseCommand):
    help = "Print cards of a series to a PDF: hall, series, number, price, colours, check code and QR code."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--series", type=int, required=True, help="the series' id")
        parser.add_argument("--output", required=True, help="the PDF file to write")
        parser.add_argument("--from", dest="first", type=int, help="first card (default 1)")
        parser.add_argument("--to", dest="last", type=int, help="last card (default the series' last)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            series = Series.objects.select_related("hall", "card_set").get(pk=options["series"])
        except Series.DoesNotExist:
            raise CommandError(f"there is no series with id {options['series']}") from None
        first = options["first"] if options["first"] is not None else 1
        last = options["last"] if options["last"] is not None else series.size
        try:
            print_range_check(series=series, first=first, last=last)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None

        path = Path(options["output"])
        if path.is_dir():
            raise CommandError(f"{path} is a folder: give a file name")
        # Written next to the target, then renamed over it: never a half-written PDF.
        try:
            handle, temp_name = tempfile.mkstemp(
                dir=path.parent or ".", prefix=f".{path.name}.", suffix=".tmp"
            )
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None
        try:
            with os.fdopen(handle, "wb") as out:
                pages = render_series_pdf(series, first, last, out)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temp_name, 0o666 & ~umask)  # mkstemp's file is private; a PDF need not be
            os.replace(temp_name, path)
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp_name)
        self.stdout.write(
            f"{path}: series {series.label}, cards {first}-{last} ({last - first + 1}) on {pages} pages"
        )
