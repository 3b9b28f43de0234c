"""The drawer's pages: the cashier opens a desk's drawer with a float, sees what it should hold
live and closes it with the cash counted (the close-out and its over/short); the cashiers and
managers of a hall read its desks' close-outs (list, detail, PDF) and the cash of any desk over a
date and time range.

Thin adapters (STYLE rule 3): a form parses and calls one service, the selectors read. Only a
cashier of the desk's hall opens and closes its drawer; a close-out of another hall's desk answers
404, as if it did not exist (``bingo/drawers/access.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from bingo.common.clock import hall_day_start, hall_local, hall_today
from bingo.common.forms import DATETIME_INPUT, form_errors_flash, form_saved
from bingo.common.roles import Role, role_required, user_roles
from bingo.drawers import selectors
from bingo.drawers.access import DESK_SESSION_KEY, desk_remembered_id, drawer_shift_for
from bingo.drawers.forms import DrawerCloseForm, DrawerOpenForm, DrawerRangeForm
from bingo.drawers.pdf import DrawerDocument, drawer_pdf_bytes
from bingo.models import DrawerShift
from halls.models import CashDesk
from halls.selectors import cash_desk_list_for

#: How many of a desk's last close-outs the drawer page lists, and a page of the list.
RECENT = 10
LIST_PAGE = 50


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _cashier_desk(request: HttpRequest, desk_id: int | None) -> CashDesk | None:
    """The desk ``desk_id`` if the user is a cashier of its hall (404 for any other), else the
    desk they last worked at, or their halls' only desk; None when there is no telling."""
    desks = list(cash_desk_list_for(request.user, Role.CASHIER))
    if desk_id is not None:
        desk = next((d for d in desks if d.pk == desk_id), None)
        if desk is None:
            raise Http404
        return desk
    remembered = desk_remembered_id(request)
    desk = next((d for d in desks if d.pk == remembered), None)
    return desk if desk is not None or len(desks) != 1 else desks[0]


def _can_drawer(request: HttpRequest) -> bool:
    """Whether the user opens and closes drawers (a cashier somewhere): the pages link theirs."""
    return Role.CASHIER in user_roles(request.user)


def _drawer_url(desk: CashDesk) -> str:
    return f"{reverse('drawers:drawer')}?{urlencode({'caixa': desk.pk})}"


@require_GET
@role_required(Role.CASHIER)
def drawer(request: HttpRequest) -> HttpResponse:
    """«Fecho de caixa»: the desk's drawer, to open with a float, or open with its figures so far
    and the form to close it with the cash counted."""
    desk = _cashier_desk(request, _int(request.GET.get("caixa")))
    if desk is None:
        context = {
            "nav": "drawer",
            "desks": cash_desk_list_for(request.user, Role.CASHIER),
            "title": _("Close-out"),
            "action": reverse("drawers:drawer"),
        }
        return render(request, "bingo/desk_choose.html", context)
    return _drawer_page(request, desk)


def _drawer_page(
    request: HttpRequest,
    desk: CashDesk,
    *,
    open_form: DrawerOpenForm | None = None,
    close_form: DrawerCloseForm | None = None,
    status: int = 200,
) -> HttpResponse:
    request.session[DESK_SESSION_KEY] = desk.pk
    shift = selectors.drawer_open_get(cash_desk=desk)
    context: dict[str, Any] = {
        "nav": "drawer",
        "desk": desk,
        "desks": cash_desk_list_for(request.user, Role.CASHIER),
        "shift": shift,
        "recent": DrawerShift.objects.filter(cash_desk=desk, closed_at__isnull=False).select_related(
            "opened_by", "closed_by"
        )[:RECENT],
    }
    if shift is None:
        context["open_form"] = open_form or DrawerOpenForm()
    else:
        figures = selectors.shift_figures(shift=shift, now=timezone.now())
        context.update(
            figures=figures,
            lines=selectors.figure_lines(figures),
            close_form=close_form or DrawerCloseForm(),
        )
    return render(request, "drawers/drawer.html", context, status=status)


@require_POST
@role_required(Role.CASHIER)
def drawer_open(request: HttpRequest) -> HttpResponse:
    """Open the desk's drawer with the float put in it."""
    desk = _cashier_desk(request, _int(request.POST.get("cash_desk")))
    if desk is None:
        raise Http404
    form = DrawerOpenForm(request.POST)
    shift = form_saved(form, cash_desk=desk, cashier=request.user)
    if shift is None:
        if selectors.drawer_open_get(cash_desk=desk) is not None:  # open already: say so over it
            form_errors_flash(request, form)
            return redirect(_drawer_url(desk))
        return _drawer_page(request, desk, open_form=form, status=400)
    messages.success(request, _("The drawer of %(desk)s is open.") % {"desk": desk.name})
    return redirect(_drawer_url(desk))


@require_POST
@role_required(Role.CASHIER)
def drawer_close(request: HttpRequest, pk: int) -> HttpResponse:
    """Close a drawer with the cash counted: its close-out is frozen and shown."""
    shift = drawer_shift_for(request, pk)
    form = DrawerCloseForm(request.POST)
    if form_saved(form, shift=shift, cashier=request.user) is not None:
        messages.success(request, _("The drawer is closed."))
        return redirect("drawers:closeout_detail", pk=pk)
    shift.refresh_from_db(fields=["closed_at"])  # another close may have won the drawer's lock
    if shift.closed_at is not None:  # closed before: the refusal says when, over its close-out
        form_errors_flash(request, form)
        return redirect("drawers:closeout_detail", pk=pk)
    return _drawer_page(request, shift.cash_desk, close_form=form, status=400)


# --- reading the close-outs ----------------------------------------------------------------------


@require_GET
@role_required(Role.CASHIER, Role.MANAGER)
def closeout_list(request: HttpRequest) -> HttpResponse:
    """Every drawer of the desks of the user's halls, newest first, one desk's when chosen."""
    desks = list(cash_desk_list_for(request.user, *selectors.DRAWER_ROLES))
    shifts = selectors.drawer_shift_list_for(request.user)
    desk = next((d for d in desks if d.pk == _int(request.GET.get("caixa"))), None)
    if desk is not None:
        shifts = shifts.filter(cash_desk=desk)
    page = Paginator(shifts, LIST_PAGE).get_page(request.GET.get("pagina"))
    context = {
        "nav": "closeouts",
        "desks": desks,
        "desk": desk,
        "page": page,
        "can_drawer": _can_drawer(request),
    }
    return render(request, "drawers/closeout_list.html", context)


def _document(shift: DrawerShift, now: datetime) -> DrawerDocument:
    return DrawerDocument(
        cash_desk=shift.cash_desk,
        start=shift.opened_at,
        end=shift.closed_at or now,
        figures=selectors.shift_figures(shift=shift, now=now),
        opened_by=shift.opened_by,
        closed_by=shift.closed_by,
        note=shift.note,
    )


@require_GET
@role_required(Role.CASHIER, Role.MANAGER)
def closeout_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One drawer: its figures (frozen once closed, live while open), who opened and closed it,
    when, and the over/short."""
    shift = drawer_shift_for(request, pk)
    document = _document(shift, timezone.now())
    context = {
        "nav": "closeouts",
        "shift": shift,
        "document": document,
        "lines": selectors.figure_lines(document.figures),
        "over_short": document.figures.over_short,
        "over_short_amount": abs(document.figures.over_short or 0),
        "can_drawer": _can_drawer(request),
    }
    return render(request, "drawers/closeout_detail.html", context)


def _pdf_response(document: DrawerDocument, filename: str) -> HttpResponse:
    with translation.override("pt"):  # R54: the printed record is in Portuguese
        body = drawer_pdf_bytes(document, now=timezone.now())
    response = HttpResponse(body, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


@require_GET
@role_required(Role.CASHIER, Role.MANAGER)
def closeout_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    """One drawer's close-out as a PDF to print and sign."""
    shift = drawer_shift_for(request, pk)
    return _pdf_response(_document(shift, timezone.now()), f"fecho-de-caixa-{shift.pk}.pdf")


@require_GET
@role_required(Role.CASHIER, Role.MANAGER)
def range_report(request: HttpRequest) -> HttpResponse:
    """The cash that went through one desk between two moments of its hall's clock: the figures
    of a close-out without a float or a count; on screen or as a PDF (``formato=pdf``)."""
    desks = cash_desk_list_for(request.user, *selectors.DRAWER_ROLES)
    form = DrawerRangeForm(request.GET if "caixa" in request.GET else None, desks=desks)
    if not form.is_bound:
        form.initial = _range_initial(request, list(desks))
    figures = None
    status = 200
    if form.is_bound:
        if form.is_valid():
            data = form.cleaned_data
            figures = selectors.drawer_figures(
                cash_desk=data["cash_desk"], start=data["start"], end=data["end"]
            )
            if request.GET.get("formato") == "pdf":
                document = DrawerDocument(data["cash_desk"], data["start"], data["end"], figures)
                return _pdf_response(document, "caixa-periodo.pdf")
        else:
            status = 400
    context = {
        "nav": "range",
        "form": form,
        "figures": figures,
        "lines": selectors.figure_lines(figures, with_float=False) if figures else [],
        "pdf_query": urlencode({**request.GET.dict(), "formato": "pdf"}),
        "can_drawer": _can_drawer(request),
    }
    return render(request, "drawers/range.html", context, status=status)


def _range_initial(request: HttpRequest, desks: list[CashDesk]) -> dict[str, Any]:
    """Today so far, at the desk the user last worked at (or the first)."""
    remembered = desk_remembered_id(request)
    desk = next((d for d in desks if d.pk == remembered), desks[0] if desks else None)
    if desk is None:
        return {}
    now = timezone.now()
    start = hall_day_start(desk.hall, hall_today(desk.hall, now))
    return {
        "cash_desk": desk.pk,
        "start": hall_local(start, desk.hall).strftime(DATETIME_INPUT),
        "end": hall_local(now, desk.hall).strftime(DATETIME_INPUT),
    }
