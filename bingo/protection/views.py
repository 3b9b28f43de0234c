"""Responsible gaming's pages (R101): the player's «Jogo responsável» (limits and self-exclusion)
and the managers' list of exclusions."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from bingo.common.clock import hall_clock_text
from bingo.common.forms import add_service_errors, form_errors_flash, refusal_flash
from bingo.common.roles import Role, role_required
from bingo.models import Player, PlayerExclusion
from bingo.players.access import player_from_request, player_required
from bingo.protection import selectors, services
from bingo.protection.forms import LiftForm, LimitForm, OperatorExclusionForm, PauseForm, SelfExclusionForm


@player_required
@require_http_methods(["GET", "POST"])
def my_protection(request: HttpRequest) -> HttpResponse:
    """«Jogo responsável» (R101): the player's limits in force, pending and used; a form to set
    one (tighter at once, looser after 24 hours); a break («fazer uma pausa», 24 hours, 7 or 30
    days) and self-exclusion, confirmed, for a period or for good. A refused form shows why (400)
    and changes nothing."""
    player = player_from_request(request)
    limit_form = LimitForm(prefix="limit")
    exclusion_form = SelfExclusionForm(prefix="exclusion")
    pause_form = PauseForm(prefix="pause")
    status = 200
    if request.method == "POST":
        if request.POST.get("action") == "limit":
            limit_form = LimitForm(request.POST, prefix="limit")
            if limit_form.is_valid():
                data = limit_form.cleaned_data
                try:
                    row = services.player_limit_set(
                        player=player, kind=data["kind"], period=data["period"], amount=data["amount"]
                    )
                except ValidationError as exc:
                    add_service_errors(limit_form, exc)
                else:
                    if row.effective_at > row.requested_at:
                        messages.success(
                            request,
                            _(
                                "Limit change recorded. As it loosens the limit, it takes effect "
                                "at %(at)s (R101)."
                            )
                            % {"at": hall_clock_text(row.effective_at, player.hall)},
                        )
                    else:
                        messages.success(request, _("Limit recorded: it is in force now."))
                    return redirect("protection:mine")
        elif request.POST.get("action") == "exclude":
            exclusion_form = SelfExclusionForm(request.POST, prefix="exclusion")
            if exclusion_form.is_valid():
                data = exclusion_form.cleaned_data
                try:
                    services.player_self_exclude(
                        player=player, length=data["length"], confirmed=data["confirmed"]
                    )
                except ValidationError as exc:
                    add_service_errors(exclusion_form, exc)
                else:
                    messages.success(request, _("You are excluded from play (R101)."))
                    return redirect("protection:mine")
        elif request.POST.get("action") == "pause":
            pause_form = PauseForm(request.POST, prefix="pause")
            if pause_form.is_valid():
                data = pause_form.cleaned_data
                try:
                    pause = services.player_pause_take(
                        player=player, length=data["length"], confirmed=data["confirmed"]
                    )
                except ValidationError as exc:
                    add_service_errors(pause_form, exc)
                else:
                    assert pause.ends_at is not None  # a break always ends (its CheckConstraint)
                    messages.success(
                        request,
                        _("Your break has started: you can play again at %(until)s (R101).")
                        % {"until": hall_clock_text(pause.ends_at, player.hall)},
                    )
                    return redirect("protection:mine")
        status = 400
    exclusion = selectors.exclusion_active(player=player)
    context: dict[str, Any] = {
        "player": player,
        "lines": selectors.limit_overview(player=player),
        "limit_form": limit_form,
        "exclusion_form": exclusion_form,
        "pause_form": pause_form,
        "exclusion": exclusion,
        "exclusion_text": selectors.exclusion_text(exclusion=exclusion, player=player) if exclusion else "",
        "history": selectors.exclusion_history(player=player),
    }
    return render(request, "protection/mine.html", context, status=status)


@role_required(Role.MANAGER)
@require_http_methods(["GET", "POST"])
def exclusion_list(request: HttpRequest) -> HttpResponse:
    """The operator's list of exclusions (R101): every self- and operator exclusion of the players
    of the manager's halls, newest first; a form to exclude a player, with the reason."""
    form = OperatorExclusionForm()
    status = 200
    if request.method == "POST":
        form = OperatorExclusionForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                player = selectors.player_find_for_manager(user=request.user, username=data["username"])
            except Player.DoesNotExist:
                form.add_error("username", _("No player of your halls has this username."))
            else:
                try:
                    services.player_exclude(
                        player=player,
                        staff=request.user,  # type: ignore[arg-type]
                        length=data["length"],
                        reason=data["reason"],
                    )
                except ValidationError as exc:
                    add_service_errors(form, exc)
                else:
                    messages.success(request, _("%(player)s is excluded from play.") % {"player": player})
                    return redirect("protection:exclusions")
        status = 400
    rows = [
        (e, selectors.exclusion_is_active(exclusion=e))
        for e in selectors.exclusion_list_for_staff(user=request.user)
    ]
    return render(
        request,
        "protection/exclusions.html",
        {"form": form, "rows": rows},
        status=status,
    )


@role_required(Role.MANAGER)
@require_POST
def exclusion_lift(request: HttpRequest, exclusion_id: int) -> HttpResponse:
    """A manager lifts an operator's exclusion, with the reason; a self-exclusion never (R101)."""
    try:
        exclusion = selectors.exclusion_get_for_staff(user=request.user, exclusion_id=exclusion_id)
    except PlayerExclusion.DoesNotExist:
        raise Http404 from None
    form = LiftForm(request.POST)
    if not form.is_valid():
        form_errors_flash(request, form)  # no reason, or one too long
        return redirect("protection:exclusions")
    try:
        services.player_exclusion_lift(
            exclusion=exclusion,
            staff=request.user,  # type: ignore[arg-type]
            reason=form.cleaned_data["reason"],
        )
    except ValidationError as exc:
        refusal_flash(request, exc)
    else:
        messages.success(request, _("Exclusion lifted."))
    return redirect("protection:exclusions")
