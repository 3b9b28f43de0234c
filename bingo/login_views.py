"""Login lockouts (django-axes): what a refused login sees, the log of it, and the manager's
unlock screen.

Axes counts the failures of every login that goes through ``authenticate(request, ...)`` —
/entrar/ (Django's LoginView with bingo.forms.LoginForm) and /admin/login/ — and, once an
account or an address is locked, answers with ``login_locked_out``
(``settings.AXES_LOCKOUT_CALLABLE``) and sends ``user_locked_out``, which ``log_lockout``
records (connected in bingo/apps.py).
"""

from __future__ import annotations

import logging
from typing import Any

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from bingo import login_selectors, login_services
from bingo.forms import LoginForm, LoginLockoutResetForm
from bingo.roles import Role, role_required

logger = logging.getLogger(__name__)


def _cool_off_minutes() -> int:
    return int(login_selectors.login_cool_off().total_seconds() // 60)


def login_locked_out(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """The login page saying the login is locked, until when, and who can unlock it (429)."""
    # Neither argument is read: axes's async middleware passes the credentials in the place of
    # the original response, and the username and address are on the request either way.
    username = request.POST.get("username", "")
    ip_address = getattr(request, "axes_ip_address", None) or get_client_ip_address(request)
    context = {
        "form": LoginForm(request, initial={"username": username}),
        # /admin/login/ posts where it came from: the login after the lock goes back there.
        "next": request.POST.get("next", ""),
        "locked_out": True,
        "locked_until": login_selectors.login_lockout_ends_at(username=username, ip_address=ip_address),
        "cool_off_minutes": _cool_off_minutes(),
    }
    return render(
        request, "registration/login.html", context, status=getattr(settings, "AXES_HTTP_RESPONSE_CODE", 429)
    )


def log_lockout(
    sender: object, request: HttpRequest, username: str | None, ip_address: str | None, **kwargs: Any
) -> None:
    """Log a lockout, and each login refused during one, as a WARNING for the operators."""
    # Axes logs too, but with the username and the address masked; the operator needs both.
    failures = getattr(request, "axes_failures_since_start", None)
    path = getattr(request, "path", "")
    if failures is None:
        logger.warning(
            "Login refused during a lockout: account %r from %s on %s.", username, ip_address, path
        )
    else:
        logger.warning(
            "Login locked out after %d failed attempts: account %r from %s on %s.",
            failures,
            username,
            ip_address,
            path,
        )


@require_GET
@role_required(Role.MANAGER)
def login_lockout_list(request: HttpRequest) -> HttpResponse:
    """The staff of the manager's halls, and the addresses, refused at login now."""
    context = {
        "nav": "lockouts",
        "accounts": login_selectors.account_lockout_list_for(request.user),
        "addresses": login_selectors.address_lockout_list(),
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "cool_off_minutes": _cool_off_minutes(),
    }
    return render(request, "bingo/login_lockouts.html", context)


@require_POST
@role_required(Role.MANAGER)
def login_lockout_reset(request: HttpRequest) -> HttpResponse:
    """Unlock one staff account or one address, then back to the list."""
    form = LoginLockoutResetForm(request.POST)
    if not form.is_valid():
        for error in form.non_field_errors() or [_("Choose one account or one address to unlock.")]:
            messages.error(request, str(error))
        return redirect("login_lockouts")
    username: str = form.cleaned_data["username"]
    ip_address: str = form.cleaned_data["ip_address"]
    try:
        login_services.login_lockout_reset(
            by=request.user,  # type: ignore[arg-type]
            username=username,
            ip_address=ip_address,
        )
    except User.DoesNotExist:
        raise Http404 from None  # another hall's staff: as if there were no such lockout
    still_until = ip_address and login_selectors.login_lockout_ends_at(username=None, ip_address=ip_address)
    if still_until:
        messages.error(
            request,
            _(
                "Address %(address)s stays locked until %(time)s: its failed logins were on accounts "
                "outside your halls. An administrator can unlock it."
            )
            % {"address": ip_address, "time": timezone.localtime(still_until).strftime("%H:%M")},
        )
    else:
        messages.success(request, _("%(who)s can log in again.") % {"who": username or ip_address})
    return redirect("login_lockouts")
