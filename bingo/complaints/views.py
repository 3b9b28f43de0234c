"""Pages of the players' complaints (R61 j)): the player files one from a game of their history;
the hall's managers list them and record their decision."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from bingo.common.forms import add_service_errors
from bingo.common.roles import Role, role_required
from bingo.complaints import selectors, services
from bingo.complaints.forms import ComplaintForm, DecisionForm
from bingo.models import Game, PlayerComplaint
from bingo.players.access import player_from_request, player_required


@player_required
@require_http_methods(["GET", "POST"])
def complaint_file(request: HttpRequest, game_id: int) -> HttpResponse:
    """«Reclamar»: the player's complaint about one game of their history (one they bought cards
    in; any other is not found); their earlier complaints about it and the answers."""
    player = player_from_request(request)
    try:
        game = selectors.complaint_game_get(player=player, game_id=game_id)
    except Game.DoesNotExist:
        raise Http404 from None
    status = 200
    if request.method == "POST":
        form = ComplaintForm(request.POST)
        if form.is_valid():
            try:
                services.complaint_file(player=player, game=game, text=form.cleaned_data["text"])
            except ValidationError as exc:
                add_service_errors(form, exc)
            else:
                messages.success(
                    request,
                    _("Your complaint was sent to the hall's managers and written in the session's acta."),
                )
                return redirect("players:history")
        status = 400
    else:
        form = ComplaintForm()
    context = {
        "player": player,
        "game": game,
        "form": form,
        "complaints": selectors.complaint_by_game(player=player, game_ids=[game.pk]).get(game.pk, []),
    }
    return render(request, "complaints/file.html", context, status=status)


@role_required(Role.MANAGER)
def complaint_staff_list(request: HttpRequest) -> HttpResponse:
    """«Reclamações dos jogadores»: the open complaints of the halls one manages, oldest first,
    then the decided ones."""
    context = {
        "open": selectors.complaint_list_for_staff(user=request.user, open_only=True),
        "decided": selectors.complaint_list_for_staff(user=request.user, open_only=False)[:50],
    }
    return render(request, "complaints/staff_list.html", context)


@role_required(Role.MANAGER)
@require_http_methods(["GET", "POST"])
def complaint_staff_decide(request: HttpRequest, complaint_id: int) -> HttpResponse:
    """One complaint and the manager's decision on it, recorded once in the acta (R61 j))."""
    try:
        complaint = selectors.complaint_get_for_staff(user=request.user, complaint_id=complaint_id)
    except PlayerComplaint.DoesNotExist:
        raise Http404 from None
    status = 200
    if request.method == "POST" and not complaint.decided:
        form = DecisionForm(request.POST)
        if form.is_valid():
            try:
                services.complaint_decide(
                    complaint=complaint,
                    user=request.user,  # type: ignore[arg-type]
                    decision=form.cleaned_data["decision"],
                )
            except ValidationError as exc:
                add_service_errors(form, exc)
            else:
                messages.success(
                    request, _("Decision recorded in the session's acta; the player can read it.")
                )
                return redirect("complaints:staff_list")
        status = 400
    else:
        form = DecisionForm()
        status = 409 if request.method == "POST" else 200
    return render(
        request, "complaints/staff_decide.html", {"complaint": complaint, "form": form}, status=status
    )
