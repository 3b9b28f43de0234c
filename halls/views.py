"""Manager screens for halls: their settings, rooms, cash desks and staff.

Thin adapters (STYLE rule 3): parse with a form, call one service, redirect (POST-redirect-GET)
or render the form again with the service's errors. A manager sees and changes only the halls
they manage (halls/selectors.py); any other hall answers 404, as if it did not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bingo.common.forms import form_saved, refusal_flash
from bingo.common.roles import Role, role_required
from halls import selectors, services
from halls.access import hall_managed_or_404
from halls.forms import CashDeskForm, HallForm, RoomForm, StaffForm
from halls.models import Hall, StaffMembership


@require_GET
@role_required(Role.MANAGER)
def hall_list(request: HttpRequest) -> HttpResponse:
    """The halls the user manages, with their settings and how many rooms, desks and staff."""
    halls = selectors.hall_overview_list(user=request.user)
    return render(request, "halls/hall_list.html", {"nav": "halls", "halls": halls})


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def hall_create(request: HttpRequest) -> HttpResponse:
    """Create a hall; its creator becomes its manager."""
    form = HallForm(request.POST or None)
    hall = form_saved(form, user=request.user)
    if hall is None:
        return render(request, "halls/hall_form.html", {"nav": "halls", "form": form, "hall": None})
    messages.success(request, _("Hall %(name)s created.") % {"name": hall.name})
    return redirect("halls:hall_detail", pk=hall.pk)


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def hall_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """Change a hall's settings."""
    hall = hall_managed_or_404(request, pk)
    form = HallForm(request.POST or None, hall=hall)
    if request.method == "POST" and form.is_valid():
        try:
            form.save(user=request.user)  # type: ignore[arg-type]
        except ValidationError:
            hall.refresh_from_db()  # the page heading shows the saved hall, not the refused input
        else:
            messages.success(request, _("Hall %(name)s saved.") % {"name": hall.name})
            return redirect("halls:hall_detail", pk=hall.pk)
    return render(request, "halls/hall_form.html", {"nav": "halls", "form": form, "hall": hall})


def _detail(request: HttpRequest, hall: Hall, **forms: Any) -> HttpResponse:
    context = {
        "nav": "halls",
        "hall": hall,
        "rooms": selectors.room_list(hall=hall),
        "desks": selectors.cash_desk_list(hall=hall),
        "staff": selectors.staff_list(hall=hall),
        "room_form": forms.get("room_form") or RoomForm(prefix="room"),
        "desk_form": forms.get("desk_form") or CashDeskForm(prefix="desk"),
        "staff_form": forms.get("staff_form") or StaffForm(prefix="staff"),
    }
    return render(request, "halls/hall_detail.html", context)


@require_GET
@role_required(Role.MANAGER)
def hall_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A hall's settings, rooms, cash desks and staff, with the forms to add to them."""
    return _detail(request, hall_managed_or_404(request, pk))


def _hall_add(
    request: HttpRequest,
    pk: int,
    form_class: type[RoomForm | CashDeskForm | StaffForm],
    prefix: str,
    done: Callable[[Any], str],
) -> HttpResponse:
    """Post one of the hall page's forms that add to it (a room, a cash desk, a person's role):
    back to the page with ``done``'s message for what was added, or the page again with the
    form's errors (its context names the form ``<prefix>_form``)."""
    hall = hall_managed_or_404(request, pk)
    form = form_class(request.POST, prefix=prefix)
    added = form_saved(form, hall=hall)
    if added is None:
        return _detail(request, hall, **{f"{prefix}_form": form})
    messages.success(request, done(added))
    return redirect("halls:hall_detail", pk=hall.pk)


@require_POST
@role_required(Role.MANAGER)
def room_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Add a room to a hall."""
    return _hall_add(
        request, pk, RoomForm, "room", lambda room: _("Room %(name)s added.") % {"name": room.name}
    )


@require_POST
@role_required(Role.MANAGER)
def cash_desk_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Add a cash desk to a hall."""
    return _hall_add(
        request, pk, CashDeskForm, "desk", lambda desk: _("Cash desk %(name)s added.") % {"name": desk.name}
    )


@require_POST
@role_required(Role.MANAGER)
def staff_assign(request: HttpRequest, pk: int) -> HttpResponse:
    """Give an existing person a role in a hall."""
    return _hall_add(
        request,
        pk,
        StaffForm,
        "staff",
        lambda membership: (
            _("%(user)s is now %(role)s in this hall.")
            % {"user": membership.user.get_username(), "role": membership.get_role_display()}
        ),
    )


@require_POST
@role_required(Role.MANAGER)
def staff_remove(request: HttpRequest, pk: int, membership_pk: int) -> HttpResponse:
    """Take a role in a hall away from a person."""
    try:
        membership = selectors.staff_membership_get_for(request.user, hall_id=pk, membership_id=membership_pk)
    except StaffMembership.DoesNotExist:
        raise Http404 from None
    user: User = membership.user
    try:
        services.staff_remove(
            hall=membership.hall,
            user=user,
            role=Role(membership.role),
            by=request.user,  # type: ignore[arg-type]
        )
    except ValidationError as exc:
        refusal_flash(request, exc)
    else:
        messages.success(
            request,
            _("%(user)s is no longer %(role)s in this hall.")
            % {"user": user.get_username(), "role": membership.get_role_display()},
        )
    return redirect("halls:hall_detail", pk=pk)
