"""Recording notes in the acta from the screens (R61 j), l), m)): the caller's console, the game's
page, and the session's own notes page.

Thin adapters (STYLE rule 3): a form parses, ``acta_note_record`` decides. The role comes first
(callers and managers; anyone else 403), then the session (one of a hall where the user holds
either role; any other 404); the service checks the hall again. Every write is a POST that
redirects back where its form was (``next``, a path of this site) on success; a refused one
shows its form again with the errors on the session's notes page, with what was typed, and the
way back. The panel the console and the game's page show is ``notes_panel``, rendered by
``actas/notes/_panel.html``; their templates show it with ``{% acta_notes_panel %}``
(actas/templatetags/acta_notes.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from actas import selectors
from actas.models import ActaNote
from actas.notes.forms import DecisionForm, NoteForm
from bingo.common.forms import form_saved
from bingo.common.roles import Role, role_required
from bingo.games import selectors as game_selectors
from bingo.models import Game, Session

#: Who records notes: the hall's callers and managers (the service checks the hall).
WRITERS = (Role.CALLER, Role.MANAGER)

#: Where the notes panel sits on a page, for the way back after a note is recorded.
ANCHOR = "#acta-notes"


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


def _session_or_404(request: HttpRequest, session_id: int) -> Session:
    """A session of a hall where the user is a caller or a manager; 404 for any other."""
    try:
        return game_selectors.session_list_for(request.user, *WRITERS).get(pk=session_id)
    except ObjectDoesNotExist:
        raise Http404 from None


def _next_url(request: HttpRequest, session: Session) -> str:
    """Where the form came from (a path of this site), else the session's notes page."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    if wanted and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return reverse("actas:session_notes", args=[session.pk])


def notes_panel(
    *,
    session: Session,
    next_url: str,
    game: Game | None = None,
    note_form: NoteForm | None = None,
    decision_form: DecisionForm | None = None,
) -> dict[str, Any]:
    """What ``actas/notes/_panel.html`` shows: the form to record a note (``game`` preselected),
    the session's notes so far with the pending complaints marked, and a form to decide each."""
    notes = list(selectors.acta_note_list(session=session))
    refused_for = decision_form.data.get("refers_to") if decision_form is not None else None
    pending = [
        (
            note,
            decision_form
            if decision_form is not None and str(refused_for) == str(note.pk)
            else DecisionForm(session=session, complaint=note),
        )
        for note in notes
        if getattr(note, "pending", False)
    ]
    return {
        "session": session,
        "game": game,
        "time_zone": session.room.hall.time_zone,
        "form": note_form or NoteForm(session=session, initial={"game": game.pk if game else None}),
        "notes": notes,
        "pending": pending,
        "next": next_url,
        "page_url": reverse("actas:session_notes", args=[session.pk]),
    }


def _notes_page(
    request: HttpRequest,
    session: Session,
    *,
    note_form: NoteForm | None = None,
    decision_form: DecisionForm | None = None,
    status: int = 200,
) -> HttpResponse:
    next_url = _next_url(request, session)
    game = None
    if (number := request.GET.get("jogo", "")).isdigit():
        game = session.games.filter(number=int(number)).first()
    panel = notes_panel(
        session=session, next_url=next_url, game=game, note_form=note_form, decision_form=decision_form
    )
    back = next_url if next_url != panel["page_url"] else None
    return render(
        request,
        "actas/notes/session_notes.html",
        {"nav": "sessions", "session": session, "panel": panel, "back": back},
        status=status,
    )


@require_GET
@role_required(*WRITERS)
def session_notes(request: HttpRequest, session_id: int) -> HttpResponse:
    """The session's notes so far and the form to record one (``?jogo=<n>``: that game chosen)."""
    return _notes_page(request, _session_or_404(request, session_id))


def _posted(request: HttpRequest, session: Session, form: NoteForm | DecisionForm) -> HttpResponse:
    """Save a note or a decision posted to the session's acta: back where the writer came from,
    saying what was recorded, or the notes page again (400) with the form's errors."""
    note = form_saved(form, user=_user(request))
    if note is not None:
        messages.success(request, _recorded(note))
        return redirect(_next_url(request, session) + ANCHOR)
    if isinstance(form, NoteForm):
        return _notes_page(request, session, note_form=form, status=400)
    return _notes_page(request, session, decision_form=form, status=400)


@require_POST
@role_required(*WRITERS)
def note_create(request: HttpRequest, session_id: int) -> HttpResponse:
    """Record a complaint and any decision taken on the spot (R61 j)), an equipment failure and
    what was done (R61 l)), or an occurrence that may involve an offence (R61 m))."""
    session = _session_or_404(request, session_id)
    return _posted(request, session, NoteForm(request.POST, session=session))


@require_POST
@role_required(*WRITERS)
def decision_create(request: HttpRequest, session_id: int) -> HttpResponse:
    """Record the decision taken later on a complaint of the session (R61 j))."""
    session = _session_or_404(request, session_id)
    return _posted(request, session, DecisionForm(request.POST, session=session))


def _recorded(note: ActaNote) -> str:
    if note.kind == ActaNote.Kind.DECISION and note.refers_to is not None:
        return gettext("The decision on complaint %(n)d is recorded in the acta.") % {
            "n": note.refers_to.position
        }
    return gettext("Recorded in the acta as note %(n)d.") % {"n": note.position}
