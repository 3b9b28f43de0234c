"""Session and game screens: open sessions, add games, open and close their sales.

Thin adapters (STYLE rule 3): every state change goes through bingo.services, and a refused
change shows the service's message. Managers run everything here; callers may look.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bingo import services
from bingo.engine.prizes import PrizeKind
from bingo.game_forms import GameForm, OpenSalesForm, SessionForm
from bingo.models import Game, GameSeries, GameState, Session
from bingo.roles import Role, role_required, user_roles

#: The most recent sessions the list shows.
SESSIONS_SHOWN = 100


def _can_manage(request: HttpRequest) -> bool:
    return Role.MANAGER in user_roles(request.user)


def _plan_display(game: Game) -> list[tuple[str, str]]:
    """The game's prize plan as (prize name, share of sales) pairs, for display."""
    return [
        (str(services.PRIZE_NAMES.get(PrizeKind(kind), kind)), share)
        for kind, share in game.prize_plan.items()
    ]


def _session_or_404(pk: int) -> Session:
    return get_object_or_404(Session.objects.select_related("room__hall", "opened_by"), pk=pk)


def _game_or_404(pk: int) -> Game:
    return get_object_or_404(
        Game.objects.select_related("session__room__hall").prefetch_related(
            Prefetch("on_sale", queryset=GameSeries.objects.select_related("series").order_by("position"))
        ),
        pk=pk,
    )


@require_GET
@role_required(Role.MANAGER, Role.CALLER)
def session_list(request: HttpRequest) -> HttpResponse:
    """The latest sessions, each with its games and their states."""
    sessions = Session.objects.select_related("room__hall").prefetch_related(
        Prefetch("games", queryset=Game.objects.order_by("number"))
    )[:SESSIONS_SHOWN]
    return render(
        request,
        "bingo/session_list.html",
        {"nav": "sessions", "sessions": sessions, "can_manage": _can_manage(request)},
    )


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def session_create(request: HttpRequest) -> HttpResponse:
    """Open a session in a room, from its start to its scheduled end."""
    form = SessionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            session = form.save(user=request.user)  # type: ignore[arg-type]
        except ValidationError:
            pass  # the form now carries the service's errors
        else:
            messages.success(request, _("Session opened."))
            return redirect("games:session_detail", pk=session.pk)
    return render(request, "bingo/session_form.html", {"nav": "sessions", "form": form})


@require_GET
@role_required(Role.MANAGER, Role.CALLER)
def session_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A session, its games with their states and prize plans, and the form to add a game."""
    session = _session_or_404(pk)
    return render(
        request,
        "bingo/session_detail.html",
        {
            "nav": "sessions",
            "session": session,
            "games": [(game, _plan_display(game)) for game in session.games.order_by("number")],
            "can_manage": _can_manage(request),
        },
    )


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def game_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Add a game to a session, with the default prize plan or shares meeting R7."""
    session = _session_or_404(pk)
    form = GameForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            game = form.save(session=session)
        except ValidationError:
            pass
        else:
            messages.success(request, _("Game %(number)s added.") % {"number": game.number})
            return redirect("games:game_detail", pk=game.pk)
    return render(request, "bingo/game_form.html", {"nav": "sessions", "session": session, "form": form})


def _game_page(request: HttpRequest, game: Game, open_form: OpenSalesForm | None = None) -> HttpResponse:
    can_manage = _can_manage(request)
    if open_form is None and can_manage and game.state == GameState.PLANNED:
        open_form = OpenSalesForm(game=game)
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
            "can_manage": can_manage,
        },
    )


@require_GET
@role_required(Role.MANAGER, Role.CALLER)
def game_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A game: state, prize plan, series on sale, and the announcements of R33 and R40."""
    return _game_page(request, _game_or_404(pk))


@require_POST
@role_required(Role.MANAGER)
def game_open_sales(request: HttpRequest, pk: int) -> HttpResponse:
    """Put the chosen series on sale; the page then shows the announcement of R33."""
    game = _game_or_404(pk)
    form = OpenSalesForm(request.POST, game=game)
    if form.is_valid():
        try:
            form.save()
        except ValidationError:
            pass
        else:
            messages.success(request, _("Sales are open."))
            return redirect("games:game_detail", pk=game.pk)
    return _game_page(request, game, open_form=form)


@require_POST
@role_required(Role.MANAGER)
def game_close_sales(request: HttpRequest, pk: int) -> HttpResponse:
    """Close the sales; the page then shows the announcement of R40 as recorded."""
    game = _game_or_404(pk)
    try:
        services.game_close_sales(game=game)
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
    else:
        messages.success(request, _("Sales are closed."))
    return redirect("games:game_detail", pk=game.pk)
