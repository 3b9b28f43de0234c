"""The inspector's portal: read-only pages over the halls they inspect (R58-R61).

The halls an inspector is assigned to, each hall's sessions, a session with its games and the
card sets to verify, and the audit trail of staff actions. A hall's managers may read it too.
Every page is GET only and changes nothing; access is per hall as everywhere else
(halls/selectors.py): a hall, session or filter of a hall the reader does not inspect or manage
answers 404, as if it did not exist. The acta itself (on screen, PDF, JSON, integrity check)
plugs into the session page's ``actas/_acta_links.html``.
"""

from __future__ import annotations

import io
import json

from django.core.exceptions import ObjectDoesNotExist
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.http import require_GET

from actas.audit.selectors import AuditCursor, audit_event_list, audit_people
from actas.forms import AuditFilterForm
from actas.pdf import render_acta_pdf
from actas.r61 import acta_r61_items
from actas.selectors import acta_document, acta_file_data, acta_receipt_get, acta_verify
from actas.signing import signing_identity
from bingo.common.roles import Role, role_required
from bingo.games import selectors as game_selectors
from bingo.games.exports import session_export_data
from bingo.models import Session
from halls.models import Hall
from halls.selectors import hall_list_for

#: Who reads the portal: the regulator's inspectors, and the hall's own managers.
READERS = (Role.INSPECTOR, Role.MANAGER)

#: Sessions per page of a hall's list, and actions per page of the audit trail.
SESSIONS_PER_PAGE = 25
AUDIT_PER_PAGE = 100


def _halls(request: HttpRequest) -> QuerySet[Hall]:
    return hall_list_for(request.user, *READERS).order_by("name")


def _hall_or_404(request: HttpRequest, hall_id: int) -> Hall:
    try:
        return _halls(request).get(pk=hall_id)
    except Hall.DoesNotExist:
        raise Http404 from None


@require_GET
@role_required(*READERS)
def hall_list(request: HttpRequest) -> HttpResponse:
    """The halls the reader inspects (or manages)."""
    return render(
        request,
        "actas/hall_list.html",
        {"nav": "halls", "halls": _halls(request), "signing": signing_identity()},
    )


@require_GET
@role_required(*READERS)
def session_list(request: HttpRequest, hall_id: int) -> HttpResponse:
    """A hall's sessions, newest first, a page at a time."""
    hall = _hall_or_404(request, hall_id)
    sessions = game_selectors.session_list_for(request.user, *READERS).filter(room__hall=hall)
    page = Paginator(sessions, SESSIONS_PER_PAGE).get_page(request.GET.get("pagina"))
    return render(request, "actas/session_list.html", {"nav": "halls", "hall": hall, "page": page})


def _session_or_404(request: HttpRequest, pk: int) -> Session:
    try:
        return game_selectors.session_list_for(request.user, *READERS).select_related("room__hall").get(pk=pk)
    except ObjectDoesNotExist:
        raise Http404 from None


@require_GET
@role_required(*READERS)
def acta_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The session's acta on screen (R58-R61), game by game as recorded, with its notes, the
    ball sets' checks and replacements, the cards' fate and the seal; ``?verificar=1`` recomputes
    every record's hash and chain and says whether it holds, naming the first that does not.
    First, every item R61 says the acta states, as the PDF lists them (``actas.r61``)."""
    session = _session_or_404(request, pk)
    verification = acta_verify(session=session) if request.GET.get("verificar") else None
    acta = acta_document(session=session)
    return render(
        request,
        "actas/acta_detail.html",
        {
            "nav": "halls",
            "session": session,
            "hall": session.room.hall,
            "acta": acta,
            "r61": acta_r61_items(acta),
            "verification": verification,
            "signing": signing_identity(),
        },
    )


def _file_name(session: Session, extension: str) -> str:
    return f"acta-sessao-{session.pk}.{extension}"


@require_GET
@role_required(*READERS)
def acta_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    """The session's acta as a PDF, in Portuguese (R54), to read, print and sign. Rendered here:
    a 200-game acta takes well under a second (bench/acta.py), no need for a background job."""
    session = _session_or_404(request, pk)
    out = io.BytesIO()
    with translation.override("pt"):
        render_acta_pdf(acta_document(session=session), out)
    response = HttpResponse(out.getvalue(), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{_file_name(session, "pdf")}"'
    return response


@require_GET
@role_required(*READERS)
def acta_json(request: HttpRequest, pk: int) -> HttpResponse:
    """The session's acta as JSON: the same data as the PDF, each game exactly as recorded."""
    session = _session_or_404(request, pk)
    body = json.dumps(acta_document(session=session), ensure_ascii=False, indent=2)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_file_name(session, "json")}"'
    return response


@require_GET
@role_required(*READERS)
def acta_receipt(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One receipt of the session's acta, exactly as the operator's key signed it (docs/acta.md,
    «Signed receipts»): a file the inspector keeps, which shows later whether the acta still
    holds what it held then (``python -m bingo.engine.acta_check``)."""
    session = _session_or_404(request, pk)
    receipt = acta_receipt_get(session=session, number=number)
    if receipt is None:
        raise Http404
    body = json.dumps(receipt.as_receipt(), ensure_ascii=False, indent=2)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="recibo-sessao-{session.pk}-{receipt.number}.json"'
    )
    return response


@require_GET
@role_required(*READERS)
def acta_file(request: HttpRequest, pk: int) -> HttpResponse:
    """The session's acta as a self-contained file (``bingo-acta/1``): every record exactly as
    hashed, with the seal and the signed receipts, to check away from the operator with
    ``python -m bingo.engine.acta_check`` (docs/acta.md)."""
    session = _session_or_404(request, pk)
    body = json.dumps(acta_file_data(session=session), ensure_ascii=False, indent=2)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_file_name(session, "verificavel.json")}"'
    return response


@require_GET
@role_required(*READERS)
def session_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A session and its games: state, times, cards sold, money collected, prizes awarded and
    paid; the card sets to regenerate and compare (R14); where the acta goes (R58-R61)."""
    session = _session_or_404(request, pk)
    data = session_export_data(session=session)
    paid = game_selectors.session_prizes_paid(session=session)
    games = list(session.games.all())
    return render(
        request,
        "actas/session_detail.html",
        {
            "nav": "halls",
            "session": session,
            "hall": session.room.hall,
            "data": data,
            "games": [
                {"game": game, "export": export, "paid": paid.get(game.pk)}
                for game, export in zip(games, data["games"], strict=True)
            ],
            "card_sets": game_selectors.session_card_set_list(session=session),
        },
    )


@require_GET
@role_required(*READERS)
def audit_trail(request: HttpRequest) -> HttpResponse:
    """Who did what and when in the reader's halls (R61), newest first, filtered by hall, person
    and days, a page at a time (``antes``: the cursor the previous page ended at)."""
    halls = _halls(request)
    form = AuditFilterForm(request.GET or None, halls=halls, people=audit_people(halls=halls))
    page = None
    if not form.is_bound or form.is_valid():
        data = form.cleaned_data if form.is_bound else {}
        try:
            before = AuditCursor.parse(request.GET["antes"]) if request.GET.get("antes") else None
        except ValueError:
            raise Http404 from None
        page = audit_event_list(
            halls=[data["sala"]] if data.get("sala") else halls,
            user_id=data["pessoa"].pk if data.get("pessoa") else None,
            since=form.since() if form.is_bound else None,
            until=form.until() if form.is_bound else None,
            before=before,
            limit=AUDIT_PER_PAGE,
        )
    elif "sala" in form.errors:
        raise Http404  # a hall the reader does not inspect: as if it did not exist
    query = request.GET.copy()
    query.pop("antes", None)
    first_query = query.urlencode() if "antes" in request.GET else None
    next_query = None
    if page is not None and page.next_cursor is not None:
        query["antes"] = str(page.next_cursor)
        next_query = query.urlencode()
    return render(
        request,
        "actas/audit_trail.html",
        {"nav": "audit", "form": form, "page": page, "next_query": next_query, "first_query": first_query},
    )
