"""The page writer of the PDFs that read like a document (the acta, ``actas.pdf``; the player's
statement, ``bingo.players.pdf``): A4 pages with a running head, a running foot and "página N
de M", written a line at a time straight on a ReportLab canvas, a new page when the next block
does not fit. The printed cards (``cards.printing.pdf``) share its page size and fonts.

Nothing here reads the database: a PDF is rendered from plain data, with no lock held. The
labels go through gettext, so the caller renders in Portuguese (R54) with
``translation.override("pt")``.

Speed: one measuring call per wrapped paragraph; a 200-game acta renders in a fraction of a
second (bench/acta.py).
"""

from __future__ import annotations

from typing import Any, BinaryIO

from django.utils.translation import gettext as _
from reportlab import rl_config
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen.canvas import Canvas

# Every PDF of ours writes its compressed streams as binary (Flate only), not wrapped in
# ReportLab's default ASCII85: that wrapping, for 7-bit channels no reader of ours goes through,
# runs in pure Python here (the C accelerator is a separate package, not installed) and took a
# third of a 1,680-card print run, for files a fifth larger (issue 23, docs/printing.md). One
# process-wide setting, set once here: every PDF module of ours imports this one.
rl_config.useA85 = 0

PAGE_WIDTH, PAGE_HEIGHT = A4
MARGIN = 18 * mm
TOP = PAGE_HEIGHT - MARGIN - 10 * mm  # under the running head
BOTTOM = MARGIN + 10 * mm  # over the running foot
WIDTH = PAGE_WIDTH - 2 * MARGIN

FONT = "Helvetica"
FONT_BOLD = "Helvetica-Bold"
FONT_MONO = "Courier"
SIZE = 8.5
LEADING = 11.0
LABEL_WIDTH = 52 * mm


class NumberedCanvas(Canvas):  # type: ignore[misc]  # ReportLab has no type hints
    """A canvas that writes "página N de M" and ``foot`` on every page once it knows M (at save)."""

    def __init__(self, *args: Any, foot: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._foot = foot
        self._pages: list[dict[str, Any]] = []

    def showPage(self) -> None:  # noqa: N802 - ReportLab's name
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        for number, state in enumerate(self._pages, start=1):
            self.__dict__.update(state)
            self.setFont(FONT, 7)
            self.drawString(MARGIN, MARGIN, self._foot)
            self.drawRightString(
                PAGE_WIDTH - MARGIN,
                MARGIN,
                _("Page %(page)d of %(pages)d") % {"page": number, "pages": total},
            )
            super().showPage()
        super().save()


class PageWriter:
    """Lines down the page, a new page when the next block does not fit."""

    def __init__(self, canvas: Canvas, head: str) -> None:
        self.c = canvas
        self.head = head
        self.y = TOP
        self._head()

    def _head(self) -> None:
        self.c.setFont(FONT_BOLD, 8)
        self.c.drawString(MARGIN, PAGE_HEIGHT - MARGIN, self.head)
        self.c.setLineWidth(0.4)
        self.c.line(MARGIN, PAGE_HEIGHT - MARGIN - 3, PAGE_WIDTH - MARGIN, PAGE_HEIGHT - MARGIN - 3)

    def room(self, height: float) -> None:
        """Start a new page unless ``height`` more points fit on this one."""
        if self.y - height < BOTTOM:
            self.c.showPage()
            self._head()
            self.y = TOP

    def title(self, text: str, size: float = 13) -> None:
        self.room(size * 2.2)
        self.y -= size * 0.6
        self.c.setFont(FONT_BOLD, size)
        self.c.drawString(MARGIN, self.y - size, text)
        self.y -= size * 1.6

    def heading(self, text: str) -> None:
        self.room(LEADING * 3)  # never a heading alone at the foot of a page
        self.y -= 4
        self.c.setFont(FONT_BOLD, 10)
        self.c.drawString(MARGIN, self.y - 10, text)
        self.y -= 10 + 4

    def text(self, text: str, *, font: str = FONT, indent: float = 0) -> None:
        lines = simpleSplit(text, font, SIZE, WIDTH - indent) or [""]
        for line in lines:
            self.room(LEADING)
            self.c.setFont(font, SIZE)
            self.c.drawString(MARGIN + indent, self.y - SIZE, line)
            self.y -= LEADING

    def field(self, label: str, value: object, *, font: str = FONT) -> None:
        """``label``: ``value`` on one line, the value wrapped beside its label."""
        shown = "—" if value is None or value == "" else str(value)
        lines = simpleSplit(shown, font, SIZE, WIDTH - LABEL_WIDTH) or [""]
        self.room(LEADING * min(len(lines), 3))
        self.c.setFont(FONT_BOLD, SIZE)
        self.c.drawString(MARGIN, self.y - SIZE, label)
        for line in lines:
            self.room(LEADING)
            self.c.setFont(font, SIZE)
            self.c.drawString(MARGIN + LABEL_WIDTH, self.y - SIZE, line)
            self.y -= LEADING

    def gap(self, points: float = 5) -> None:
        self.y -= points

    def signature(self, label: str) -> None:
        self.room(LEADING * 5)
        self.y -= LEADING * 3
        self.c.setLineWidth(0.5)
        self.c.line(MARGIN, self.y, MARGIN + 80 * mm, self.y)
        self.c.setFont(FONT, SIZE)
        self.c.drawString(MARGIN, self.y - SIZE - 2, label)
        self.y -= LEADING * 2

    def finish(self) -> int:
        """Close the last page, number every page and write the PDF; return the number of pages."""
        self.c.showPage()
        pages = len(self.c._pages)
        self.c.save()
        return pages


def page_writer(out: BinaryIO, *, head: str, foot: str, author: str) -> PageWriter:
    """A document on A4 pages into ``out``, titled and headed ``head``, with ``foot`` and the
    page numbers at the foot of every page; ``finish`` it to write it."""
    canvas = NumberedCanvas(out, pagesize=A4, foot=foot)
    canvas.setTitle(head)
    canvas.setAuthor(author)
    return PageWriter(canvas, head)
