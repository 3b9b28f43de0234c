"""The manager screen of a hall's progressive jackpot (R9-R13): its state, its configuration
(base value R11, authorization R12), seeds and adjustments, and its ledger.

Contributions (R10) and wins (R11) come from the games, never from this screen. Thin adapters
(STYLE rule 3); only a manager of the hall (or a superuser holding the manager role) reaches it.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from bingo.common.roles import Role, role_required
from halls import services
from halls.ballset_views import hall_managed_or_404
from halls.jackpot_forms import JackpotConfigForm, JackpotMovementForm
from halls.models import Hall, Jackpot, JackpotMovement

#: Ledger lines per page, newest first.
MOVEMENTS_PER_PAGE = 50


def _page(
    request: HttpRequest,
    hall: Hall,
    config_form: JackpotConfigForm | None = None,
    movement_form: JackpotMovementForm | None = None,
) -> HttpResponse:
    jackpot = Jackpot.objects.filter(hall=hall).first()
    movements = (
        JackpotMovement.objects.filter(jackpot=jackpot)
        .select_related("game__session__room", "created_by")
        .order_by("-id")
    )
    context = {
        "nav": "halls",
        "hall": hall,
        "jackpot": jackpot,
        "state": services.jackpot_state(hall=hall),
        "config_form": config_form or JackpotConfigForm(jackpot=jackpot, prefix="config"),
        "movement_form": movement_form or JackpotMovementForm(prefix="movement"),
        "movements": Paginator(movements, MOVEMENTS_PER_PAGE).get_page(request.GET.get("page")),
    }
    return render(request, "halls/jackpot_detail.html", context)


@require_GET
@role_required(Role.MANAGER)
def jackpot_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The hall's jackpot: balance, base, authorization, the forms to change them, and its ledger."""
    return _page(request, hall_managed_or_404(request, pk))


@require_POST
@role_required(Role.MANAGER)
def jackpot_configure(request: HttpRequest, pk: int) -> HttpResponse:
    """Set the base value (R11) and the authorization's terms (R12)."""
    hall = hall_managed_or_404(request, pk)
    form = JackpotConfigForm(request.POST, prefix="config")
    if form.is_valid():
        try:
            form.save(hall=hall)
        except ValidationError:
            pass
        else:
            messages.success(request, _("Jackpot settings saved."))
            return redirect("halls:jackpot_detail", pk=hall.pk)
    return _page(request, hall, config_form=form)


@require_POST
@role_required(Role.MANAGER)
def jackpot_movement_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Add a seed (R11) or an adjustment to the jackpot's ledger."""
    hall = hall_managed_or_404(request, pk)
    form = JackpotMovementForm(request.POST, prefix="movement")
    if form.is_valid():
        user: User = request.user  # type: ignore[assignment]
        try:
            movement = form.save(hall=hall, user=user)
        except ValidationError:
            pass
        else:
            done = _(
                "%(kind)s of %(amount)s %(currency)s recorded; the jackpot is now %(balance)s %(currency)s."
            )
            messages.success(
                request,
                done
                % {
                    "kind": movement.get_kind_display(),
                    "amount": movement.amount,
                    "balance": movement.balance_after,
                    "currency": hall.currency,
                },
            )
            return redirect("halls:jackpot_detail", pk=hall.pk)
    return _page(request, hall, movement_form=form)
