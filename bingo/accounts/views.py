"""The home router (to one dashboard per role: bingo/common/views.py ``DashboardView``), the
login lockouts (django-axes): what a refused login sees, the log of it, and the manager's unlock
screen; and the password reset by e-mail (Django's own views and tokens, rate-limited).

Axes counts the failures of every login that goes through ``authenticate(request, ...)`` —
/entrar/ (Django's LoginView with bingo.accounts.forms.LoginForm) and /admin/login/ — and, once an
account or an address is locked, answers with ``login_locked_out``
(``settings.AXES_LOCKOUT_CALLABLE``) and sends ``user_locked_out``, which ``log_lockout``
records (connected in bingo/apps.py).
"""

from __future__ import annotations

import hashlib
import logging
import math
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from bingo.accounts import selectors, services
from bingo.accounts.forms import LoginForm, LoginLockoutResetForm, ResetRequestForm
from bingo.common.clients import client_address
from bingo.common.roles import Role, role_required, roles_in_order, user_roles
from bingo.common.throttling import SlidingWindowThrottle

logger = logging.getLogger(__name__)


# --- entry pages ---------------------------------------------------------------------------------


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Send a user to their dashboard; with several roles let them choose; with none, say so."""
    roles = roles_in_order(user_roles(request.user))
    if len(roles) == 1:
        return redirect(roles[0].dashboard_url_name)
    if not roles:
        return render(request, "bingo/home_no_role.html")
    return render(request, "bingo/home_choose.html", {"roles": roles})


# --- login lockouts ------------------------------------------------------------------------------


def _cool_off_minutes() -> int:
    return int(selectors.login_cool_off().total_seconds() // 60)


def login_locked_out(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """The login page saying the login is locked, until when, and who can unlock it (429)."""
    # Neither argument is read: axes's async middleware passes the credentials in the place of
    # the original response, and the username and address are on the request either way.
    username = request.POST.get("username", "")
    # axes reads the address with our client_address too (settings.AXES_CLIENT_IP_CALLABLE).
    ip_address = getattr(request, "axes_ip_address", None) or client_address(request)
    context = {
        "form": LoginForm(request, initial={"username": username}),
        # /admin/login/ posts where it came from: the login after the lock goes back there.
        "next": request.POST.get("next", ""),
        "locked_out": True,
        "locked_until": selectors.login_lockout_ends_at(username=username, ip_address=ip_address),
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
        "accounts": selectors.account_lockout_list_for(request.user),
        "addresses": selectors.address_lockout_list(),
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
        services.login_lockout_reset(
            by=request.user,  # type: ignore[arg-type]
            username=username,
            ip_address=ip_address,
        )
    except User.DoesNotExist:
        raise Http404 from None  # another hall's staff: as if there were no such lockout
    still_until = ip_address and selectors.login_lockout_ends_at(username=None, ip_address=ip_address)
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


# --- password reset by e-mail --------------------------------------------------------------------


class PasswordResetThrottle(SlidingWindowThrottle):
    """Reset requests per client address ("password_reset", settings.PASSWORD_RESET_RATE)."""

    scope = "password_reset"


class PasswordResetEmailThrottle(SlidingWindowThrottle):
    """Reset requests per e-mail address asked about ("password_reset_email"): a mailbox gets a
    few reset mails an hour at most, however many addresses ask."""

    scope = "password_reset_email"

    def get_ident(self, request: Any) -> str:
        email = str(getattr(request, "reset_email", "")).strip().lower()
        return hashlib.sha256(email.encode()).hexdigest()


class PasswordResetView(auth_views.PasswordResetView):
    """«Recuperar a palavra-passe»: Django's reset request, whose answer is the same page whether
    or not an account has the address (nothing tells who is registered). Limited per client
    address (429 beyond, the form kept) and per e-mail address (beyond, no mail, the same page)."""

    form_class = ResetRequestForm
    template_name = "registration/password_reset_form.html"
    subject_template_name = "registration/password_reset_subject.txt"
    email_template_name = "registration/password_reset_email.txt"
    success_url = reverse_lazy("password_reset_done")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        throttle = PasswordResetThrottle()
        if not throttle.allow(request):
            context = self.get_context_data(form=self.get_form(), throttled=True)
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(math.ceil(throttle.wait() or 1))
            return response
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        self.request.reset_email = form.cleaned_data["email"]  # type: ignore[attr-defined]
        if not PasswordResetEmailThrottle().allow(self.request):
            logger.warning("Password reset mail not sent: too many asked for one address lately.")
            return HttpResponseRedirect(self.get_success_url())
        self.extra_email_context = {"hours": max(settings.PASSWORD_RESET_TIMEOUT // 3600, 1)}
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The link of the mail: a new password, twice. Setting it forgives the failed logins of the
    account (a person locked out by them is who resets), and the link then stops working."""

    template_name = "registration/password_reset_confirm.html"
    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        services.login_failures_forgive(user=form.user)
        return response
