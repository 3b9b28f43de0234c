"""A drawer's close-out, or the cash of a desk over a date and time range, as a PDF on the
common A4 pages (``bingo.common.pdf``): the figures ``drawer_figures`` gives, who opened and
closed it and when, and lines for the cashier's and the manager's signatures. Rendered from plain
data, with no lock held."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from bingo.common.clock import hall_clock_text, zone_name
from bingo.common.pdf import FONT_BOLD, page_writer
from bingo.drawers.selectors import DrawerFigures, figure_lines
from halls.models import CashDesk

#: How the PDF writes a moment on the hall's clock.
WHEN = "%d/%m/%Y %H:%M"


@dataclass(frozen=True)
class DrawerDocument:
    """What one PDF shows: a desk's drawer (``opened_by`` set) or a range (``opened_by`` None)."""

    cash_desk: CashDesk
    start: datetime
    end: datetime
    figures: DrawerFigures
    opened_by: User | None = None
    closed_by: User | None = None
    note: str = ""


def _person(user: User | None) -> str:
    return "—" if user is None else (user.get_full_name() or user.get_username())


def drawer_pdf_bytes(document: DrawerDocument, *, now: datetime) -> bytes:
    """``document`` as PDF bytes, issued at ``now``."""
    desk = document.cash_desk
    hall = desk.hall
    closeout = document.opened_by is not None
    title = _("Cash desk close-out") if closeout else _("Cash desk report")
    out = io.BytesIO()
    w = page_writer(
        out,
        head=f"{title} — {hall.name} · {desk.name}",
        foot=_("Issued %(when)s (%(tz)s)")
        % {"when": hall_clock_text(now, hall, WHEN), "tz": zone_name(hall.time_zone)},
        author=hall.name,
    )
    w.title(title)
    w.field(_("Hall"), hall.name)
    w.field(_("Cash desk"), desk.name)
    if closeout:
        w.field(_("Opened"), f"{hall_clock_text(document.start, hall, WHEN)} · {_person(document.opened_by)}")
        closed = document.closed_by is not None
        w.field(
            _("Closed"),
            f"{hall_clock_text(document.end, hall, WHEN)} · {_person(document.closed_by)}"
            if closed
            else _("Still open: figures up to %(when)s")
            % {"when": hall_clock_text(document.end, hall, WHEN)},
        )
    else:
        w.field(_("From"), hall_clock_text(document.start, hall, WHEN))
        w.field(_("To"), hall_clock_text(document.end, hall, WHEN))
    w.gap()
    w.heading(_("Cash"))
    figures = document.figures
    for line in figure_lines(figures, with_float=closeout):
        font = FONT_BOLD if line.key in ("expected_cash", "over_short") else None
        w.field(line.label, line.display, **({"font": font} if font else {}))
    if figures.sales is not None:
        w.gap()
        w.heading(_("Movements"))
        w.field(_("Sales"), figures.sales)
        w.field(_("Cards sold"), figures.cards)
        w.field(_("Prizes paid"), figures.payments)
        w.field(_("Wallet deposits"), figures.deposit_count)
        w.field(_("Wallet withdrawals"), figures.withdrawal_count)
    if document.note:
        w.gap()
        w.field(_("Note"), document.note)
    w.signature(_("The cashier"))
    w.signature(_("The manager"))
    w.finish()
    return out.getvalue()
