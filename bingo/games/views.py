"""Session and game screens: open sessions, add games, open and close their sales.

Thin adapters (STYLE rule 3): every state change goes through bingo.games.services, and a refused
change shows the service's message. Managers run everything here; callers may look. Each sees
only the sessions of the halls where they hold that role (halls/selectors.py): a session or
game of another hall answers 404, and so does a change to one the user may only look at.
Times show on the clock of the session's hall (templates: ``{% timezone %}``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bingo.ballsets import selectors as ballset_selectors
from bingo.common.forms import ReasonForm, form_saved, refusal_flash
from bingo.common.roles import Role, role_required, user_roles
from bingo.common.views import Confirmation, confirmation_page, confirmed
from bingo.draw import selectors as draw_selectors
from bingo.engine.prizes import PrizeKind
from bingo.games import doubles, selectors, services
from bingo.games.forms import GameForm, OpenSalesForm, SessionCloseForm, SessionForm
from bingo.models import ENDED_STATES, UNDER_WAY_STATES, Game, GameFault, GameState, OnlineRoom, Session
from halls.selectors import hall_list_for, hall_roles_for, room_list_for

#: The most recent sessions the list shows.
SESSIONS_SHOWN = 100

#: Who looks at sessions and games; only managers change them.
_READERS = (Role.MANAGER, Role.CALLER)

#: Who reads a game's results once it has ended: the hall's staff, each in any of their roles.
RESULT_READERS = (Role.MANAGER, Role.CALLER, Role.CASHIER, Role.INSPECTOR)


def _can_manage(request: HttpRequest, hall_id: int) -> bool:
    return (
        Role.MANAGER in user_roles(request.user)
        and hall_list_for(request.user, Role.MANAGER).filter(pk=hall_id).exists()
    )


def _plan_display(game: Game) -> list[tuple[str, str]]:
    """The game's prize plan as (prize name, share of sales) pairs, for display."""
    return [
        (str(services.PRIZE_NAMES.get(PrizeKind(kind), kind)), share)
        for kind, share in game.prize_plan.items()
    ]


_M = TypeVar("_M", bound=Model)


def _get_or_404(found: QuerySet[_M], pk: int) -> _M:
    try:
        return found.get(pk=pk)
    except ObjectDoesNotExist:
        raise Http404 from None


def _session_or_404(request: HttpRequest, pk: int, *roles: Role) -> Session:
    return _get_or_404(selectors.session_list_for(request.user, *(roles or _READERS)), pk)


def _game_or_404(request: HttpRequest, pk: int, *roles: Role) -> Game:
    return _get_or_404(selectors.game_list_for(request.user, *(roles or _READERS)), pk)


@require_GET
@role_required(*_READERS)
def session_list(request: HttpRequest) -> HttpResponse:
    """The latest sessions of the user's halls, each with its games and their states."""
    sessions = selectors.session_list_for(request.user, *_READERS)[:SESSIONS_SHOWN]
    return render(
        request,
        "bingo/session_list.html",
        {"nav": "sessions", "sessions": sessions, "can_manage": Role.MANAGER in user_roles(request.user)},
    )


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def session_create(request: HttpRequest) -> HttpResponse:
    """Open a session in a room of a hall the user manages, from its start to its scheduled end,
    both on the hall's clock."""
    form = SessionForm(request.POST or None, rooms=room_list_for(request.user, Role.MANAGER))
    session = form_saved(form, user=request.user)
    if session is None:
        return render(request, "bingo/session_form.html", {"nav": "sessions", "form": form})
    messages.success(request, _("Session opened."))
    return redirect("games:session_detail", pk=session.pk)


def _session_page(
    request: HttpRequest, session: Session, close_form: SessionCloseForm | None = None
) -> HttpResponse:
    can_manage = _can_manage(request, session.room.hall_id)
    if can_manage and session.ended_at is None and close_form is None:
        close_form = SessionCloseForm(ball_sets=ballset_selectors.session_end_checks_awaited(session=session))
    return render(
        request,
        "bingo/session_detail.html",
        {
            "nav": "sessions",
            "session": session,
            "games": [(game, _plan_display(game)) for game in session.games.all()],
            "can_manage": can_manage,
            "close_form": close_form if can_manage and session.ended_at is None else None,
        },
    )


@require_GET
@role_required(*_READERS)
def session_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A session, its games with their states and prize plans, and (to its managers, while it is
    open) the form to close it with its end-of-session ball-set checks (R23)."""
    return _session_page(request, _session_or_404(request, pk))


@require_POST
@role_required(Role.MANAGER)
def session_close(request: HttpRequest, pk: int) -> HttpResponse:
    """Close the session (R61 h)): the end-of-session check of each ball set it awaits is
    recorded now, or the reason it could not be made goes into the acta as an occurrence (R23)."""
    session = _session_or_404(request, pk, Role.MANAGER)
    form = SessionCloseForm(
        request.POST, ball_sets=ballset_selectors.session_end_checks_awaited(session=session)
    )
    if form_saved(form, session=session, user=request.user) is None:
        return _session_page(request, session, close_form=form)
    messages.success(request, _("Session closed."))
    return redirect("games:session_detail", pk=session.pk)


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def game_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Add a game to a session, with the default prize plan or shares meeting R7."""
    session = _session_or_404(request, pk, Role.MANAGER)
    form = GameForm(request.POST or None)
    game = form_saved(form, session=session)
    if game is None:
        return render(request, "bingo/game_form.html", {"nav": "sessions", "session": session, "form": form})
    messages.success(request, _("Game %(number)s added.") % {"number": game.number})
    return redirect("games:game_detail", pk=game.pk)


def _game_page(request: HttpRequest, game: Game, open_form: OpenSalesForm | None = None) -> HttpResponse:
    can_manage = _can_manage(request, game.session.room.hall_id)
    # R15: after a game that sells double cards, this one plays them again and sells none.
    doubles_of = doubles.doubles_before(game) if game.state == GameState.PLANNED else None
    if open_form is None and can_manage and game.state == GameState.PLANNED and doubles_of is None:
        open_form = OpenSalesForm(game=game)
    online = OnlineRoom.serves(game.session.room_id)
    return render(
        request,
        "bingo/game_detail.html",
        {
            "nav": "sessions",
            "game": game,
            "plan": _plan_display(game),
            "session": game.session,
            "on_sale": game.on_sale.all(),
            "open_form": open_form,
            "doubles_of": doubles_of,
            "can_manage": can_manage,
            # R55, R57: a manager suspends, resumes and annuls here as the caller does at the console.
            "state_actions": draw_selectors.game_state_actions(game=game, balls_drawn=game.balls.count())
            if can_manage
            else None,
            "reason_form": ReasonForm(),
            # R98: its managers and callers (the page's readers) declare a system fault on an
            # online game not yet decided (under way: bingo.faults.services.FAULT_STATES); a
            # game made null by one shows why (its state_reason) and by whom.
            "can_declare_fault": online and game.state in UNDER_WAY_STATES,
            "fault": GameFault.objects.filter(game=game).select_related("declared_by").first(),
        },
    )


@require_GET
@role_required(*_READERS)
def game_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A game: state, prize plan, series on sale, and the announcements of R33 and R40."""
    return _game_page(request, _game_or_404(request, pk))


@require_POST
@role_required(Role.MANAGER)
def game_open_sales(request: HttpRequest, pk: int) -> HttpResponse:
    """Put the chosen series on sale; the page then shows the announcement of R33."""
    game = _game_or_404(request, pk, Role.MANAGER)
    form = OpenSalesForm(request.POST, game=game)
    if form_saved(form, user=request.user) is None:
        return _game_page(request, game, open_form=form)
    messages.success(request, _("Sales are open."))
    return redirect("games:game_detail", pk=game.pk)


def _game_change(
    request: HttpRequest, game: Game, change: Callable[[Game, User], object], done: str
) -> HttpResponse:
    """Make ``change`` to ``game`` (one the user manages), as them; back to its page with ``done``
    or the refusal."""
    user: User = request.user  # type: ignore[assignment]  # role_required: logged in
    try:
        change(game, user)
    except ValidationError as exc:
        refusal_flash(request, exc)
    else:
        messages.success(request, done)
    return redirect("games:game_detail", pk=game.pk)


def _close_sales_confirmation(game: Game) -> Confirmation:
    """What closing ``game``'s sales does, for its confirmation step: the cards sold so far of
    each series (R38), and that nothing more sells once the announcement is made (R40)."""
    facts = [_("No card of game %(number)d can be sold after this.") % {"number": game.number}]
    for entry in selectors.game_series_sold(game=game):
        if entry.cards:
            facts.append(
                ngettext(
                    "Series %(series)s: card %(first)d sold (%(cards)d card).",
                    "Series %(series)s: cards %(first)d to %(last)d sold (%(cards)d cards).",
                    entry.cards,
                )
                % {"series": entry.label, "first": entry.first, "last": entry.last, "cards": entry.cards}
            )
        else:
            facts.append(_("Series %(series)s: no card sold.") % {"series": entry.label})
    facts.append(_("The announcement of the cards sold and the prize values is recorded (R40)."))
    return Confirmation(
        title=_("Close the sales of game %(number)d?") % {"number": game.number},
        facts=facts,
        button=_("Yes, close sales"),
        back_url=reverse("games:game_detail", args=[game.pk]),
    )


@require_POST
@role_required(Role.MANAGER)
def game_close_sales(request: HttpRequest, pk: int) -> HttpResponse:
    """Close the sales once confirmed (a POST without the confirmation shows what closes and
    changes nothing); the page then shows the announcement of R40 as recorded."""
    game = _game_or_404(request, pk, Role.MANAGER)
    if not confirmed(request):
        return confirmation_page(request, _close_sales_confirmation(game))
    return _game_change(
        request,
        game,
        lambda game, user: services.game_close_sales(game=game, user=user),
        _("Sales are closed."),
    )


@require_POST
@role_required(Role.MANAGER)
def game_play_doubles(request: HttpRequest, pk: int) -> HttpResponse:
    """R15: this game plays again the double cards the previous one sold; its sales close at once."""
    return _game_change(
        request,
        _game_or_404(request, pk, Role.MANAGER),
        lambda game, user: services.game_play_doubles(game=game, user=user),
        _("The double cards play this game; it is ready to draw."),
    )


@require_GET
@role_required(*RESULT_READERS)
def game_results(request: HttpRequest, pk: int) -> HttpResponse:
    """A finished or annulled game's results, for the staff of its hall: the balls in drawing
    order (R42), each prize with its winning cards, equal shares and rounding remainder (R6),
    the jackpot's movements (R9-R11, R57), the payments made (where, by whom, when; R50, R97)
    and the shares still due. 404 before the game has ended, and for another hall's game."""
    game = _game_or_404(request, pk, *RESULT_READERS)
    if game.state not in ENDED_STATES:
        raise Http404
    roles = hall_roles_for(request.user, hall_id=game.session.room.hall_id)
    return render(
        request,
        "bingo/game_results.html",
        {
            "results": selectors.game_results_get(game=game),
            "session": game.session,
            "hall": game.session.room.hall,
            # Where the reader goes back to: the pages their roles in this hall open.
            "reads_sessions": bool(roles & set(_READERS)),
            "is_caller": Role.CALLER in roles,
            "reads_portal": bool(roles & {Role.INSPECTOR, Role.MANAGER}),
        },
    )
