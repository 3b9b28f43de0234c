"""Forms of the entry pages."""

from __future__ import annotations

from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _


class LoginForm(AuthenticationForm):
    """Django's login form, with our own wording of its two refusals."""

    error_messages = {
        "invalid_login": _(
            "The username or the password is not right. Note that capital and small letters differ."
        ),
        "inactive": _("This account is disabled. Ask the hall manager."),
    }
