"""Screens for a hall's ball sets (R20-R26): register them, record the check of every ball at
the start and end of each session (R23), replace a ball or a whole set, retire a set.

Thin adapters (STYLE rule 3): parse with a form, call one service, redirect (POST-redirect-GET)
or render the page again with the service's errors. Who does what, per hall:

* a manager of the hall (or a superuser holding the manager role) does everything;
* a caller of the hall, who runs every ball through the mechanism at the start and end of each
  session (R23), sees the hall's ball sets and records those checks; registering, replacing
  and retiring sets stay with the managers (403 for a caller).

Any other hall, and its sets, answer 404, as if they did not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from bingo.ballsets import selectors
from bingo.ballsets.forms import (
    BallReplaceForm,
    BallSetCheckForm,
    BallSetForm,
    BallSetReplaceForm,
    BallSetRetireForm,
)
from bingo.common.forms import form_saved
from bingo.common.roles import Role, role_required, user_roles
from halls.access import hall_managed_or_404
from halls.models import BallSet, BallSetCheck, Hall
from halls.selectors import hall_get_for, hall_list_for, hall_roles_for

#: The most recent games drawn with a set that its page lists.
USES_SHOWN = 50

#: Who sees a hall's ball sets and records their checks (R23): its managers, and its callers,
#: who run the balls through the mechanism in the hall.
CHECKERS = (Role.MANAGER, Role.CALLER)


def _hall_checked_or_404(request: HttpRequest, hall_id: int) -> Hall:
    """Hall ``hall_id`` when the user manages it or calls there; 404 for any other."""
    try:
        return hall_get_for(request.user, *CHECKERS, hall_id=hall_id)
    except Hall.DoesNotExist:
        raise Http404 from None


def _ball_set_or_404(
    request: HttpRequest, hall_id: int, ball_set_id: int, *, managed: bool = True
) -> BallSet:
    """A ball set of hall ``hall_id``, which the user manages (``managed``) or may check sets of."""
    hall = hall_managed_or_404(request, hall_id) if managed else _hall_checked_or_404(request, hall_id)
    return get_object_or_404(selectors.ball_set_list(hall=hall).select_related("hall"), pk=ball_set_id)


def _manages(request: HttpRequest, hall: Hall) -> bool:
    """Whether the user may register, replace and retire the hall's sets (the forms shown)."""
    user: User = request.user  # type: ignore[assignment]
    if Role.MANAGER not in user_roles(user):  # the role that opens the managers' views
        return False
    return Role.MANAGER in hall_roles_for(user, hall_id=hall.pk)


def _user(request: HttpRequest) -> User:
    user: User = request.user  # type: ignore[assignment]
    return user


def _list_page(request: HttpRequest, hall: Hall, form: BallSetForm | None = None) -> HttpResponse:
    manages = _manages(request, hall)
    context = {
        "nav": "halls",
        "hall": hall,
        "manages": manages,
        "ball_sets": selectors.ball_set_list(hall=hall).order_by("state", "size", "serial_number"),
        "form": (form or BallSetForm()) if manages else None,
    }
    return render(request, "halls/ballset_list.html", context)


@require_GET
@role_required(*CHECKERS)
def ball_set_halls(request: HttpRequest) -> HttpResponse:
    """Where a caller or a manager finds the ball sets: the halls where they check them (R23),
    or straight that hall's sets when there is only one."""
    halls = list(hall_list_for(request.user, *CHECKERS).order_by("name"))
    if len(halls) == 1:
        return redirect("halls:ball_set_list", pk=halls[0].pk)
    return render(request, "halls/ballset_halls.html", {"nav": "halls", "halls": halls})


@require_GET
@role_required(*CHECKERS)
def ball_set_list(request: HttpRequest, pk: int) -> HttpResponse:
    """A hall's ball sets, their games played and left (R25), and for a manager the form to
    register one."""
    return _list_page(request, _hall_checked_or_404(request, pk))


@require_POST
@role_required(Role.MANAGER)
def ball_set_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Register a ball set of the hall (R22)."""
    hall = hall_managed_or_404(request, pk)
    form = BallSetForm(request.POST)
    ball_set = form_saved(form, hall=hall, user=_user(request))
    if ball_set is None:
        return _list_page(request, hall, form)
    messages.success(request, _("Ball set %(serial)s registered.") % {"serial": ball_set.serial_number})
    return redirect("halls:ball_set_detail", pk=hall.pk, ball_set_pk=ball_set.pk)


def _detail_page(request: HttpRequest, ball_set: BallSet, **forms: Any) -> HttpResponse:
    manages = _manages(request, ball_set.hall)
    context = {
        "nav": "halls",
        "hall": ball_set.hall,
        "manages": manages,
        "ball_set": ball_set,
        "checks": selectors.ball_set_check_list(ball_set=ball_set),
        "replacements": selectors.ball_replacement_list(ball_set=ball_set),
        "uses": selectors.ball_set_use_list(ball_set=ball_set)[:USES_SHOWN],
        "uses_shown": USES_SHOWN,
        "active": ball_set.state == BallSet.State.ACTIVE,
        "check_form": forms.get("check_form") or BallSetCheckForm(ball_set=ball_set, prefix="check"),
    }
    if manages:
        context |= {
            "ball_form": forms.get("ball_form") or BallReplaceForm(ball_set=ball_set, prefix="ball"),
            "replace_form": forms.get("replace_form") or BallSetReplaceForm(ball_set=ball_set, prefix="set"),
            "retire_form": forms.get("retire_form") or BallSetRetireForm(prefix="retire"),
        }
    return render(request, "halls/ballset_detail.html", context)


@require_GET
@role_required(*CHECKERS)
def ball_set_detail(request: HttpRequest, pk: int, ball_set_pk: int) -> HttpResponse:
    """A ball set with its checks, replacements and games drawn, and the forms to record them
    (a caller: the checks only)."""
    return _detail_page(request, _ball_set_or_404(request, pk, ball_set_pk, managed=False))


def _recorded(
    request: HttpRequest,
    ball_set: BallSet,
    form: forms.Form,
    form_key: str,
    done: Callable[[Any], str],
    /,
    **save: Any,
) -> HttpResponse:
    """Post one of a ball set's forms, saved with the user and ``save``: back to the set's page
    with ``done``'s message for what was recorded, or the page again with ``form``'s errors
    (``form_key``, its name in the page's context)."""
    recorded = form_saved(form, user=_user(request), **save)
    if recorded is None:
        return _detail_page(request, ball_set, **{form_key: form})
    messages.success(request, done(recorded))
    return redirect("halls:ball_set_detail", pk=ball_set.hall_id, ball_set_pk=ball_set.pk)


@require_POST
@role_required(*CHECKERS)
def ball_set_check_record(request: HttpRequest, pk: int, ball_set_pk: int) -> HttpResponse:
    """Record the check of every ball at the start or end of a session (R23): a manager or a
    caller of the hall."""
    ball_set = _ball_set_or_404(request, pk, ball_set_pk, managed=False)
    form = BallSetCheckForm(request.POST, ball_set=ball_set, prefix="check")
    check = form_saved(form, user=_user(request))
    if check is None:
        return _detail_page(request, ball_set, check_form=form)
    if check.result == BallSetCheck.Result.OK:
        messages.success(request, _("Check recorded: every ball OK."))
    else:
        messages.error(
            request,
            _("Check recorded with faulty balls: %(balls)s.")
            % {"balls": ", ".join(str(ball) for ball in check.faulty_balls)},
        )
    return redirect("halls:ball_set_detail", pk=pk, ball_set_pk=ball_set.pk)


@require_POST
@role_required(Role.MANAGER)
def ball_replace(request: HttpRequest, pk: int, ball_set_pk: int) -> HttpResponse:
    """Record one damaged ball replaced (R26)."""
    ball_set = _ball_set_or_404(request, pk, ball_set_pk)
    form = BallReplaceForm(request.POST, ball_set=ball_set, prefix="ball")
    return _recorded(
        request,
        ball_set,
        form,
        "ball_form",
        lambda replacement: _("Ball %(ball)s replaced.") % {"ball": replacement.ball_number},
    )


@require_POST
@role_required(Role.MANAGER)
def ball_set_replace(request: HttpRequest, pk: int, ball_set_pk: int) -> HttpResponse:
    """Record the whole set replaced by another (R25)."""
    ball_set = _ball_set_or_404(request, pk, ball_set_pk)
    form = BallSetReplaceForm(request.POST, ball_set=ball_set, prefix="set")
    return _recorded(
        request,
        ball_set,
        form,
        "replace_form",
        lambda replacement: (
            _("Ball set %(old)s replaced by %(new)s.")
            % {"old": ball_set.serial_number, "new": replacement.replacement_set}
        ),
    )


@require_POST
@role_required(Role.MANAGER)
def ball_set_retire(request: HttpRequest, pk: int, ball_set_pk: int) -> HttpResponse:
    """Take a set out of use for good (R25)."""
    ball_set = _ball_set_or_404(request, pk, ball_set_pk)
    form = BallSetRetireForm(request.POST, prefix="retire")
    return _recorded(
        request,
        ball_set,
        form,
        "retire_form",
        lambda retired: _("Ball set %(serial)s retired.") % {"serial": retired.serial_number},
        ball_set=ball_set,
    )
