"""Forms of the entry pages."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _


class LoginForm(AuthenticationForm):
    """Django's login form, with our own wording of its two refusals."""

    error_messages = {
        "invalid_login": _(
            "The username or the password is not right. Note that capital and small letters differ."
        ),
        "inactive": _("This account is disabled. Ask the hall manager."),
    }


def add_service_errors(
    form: forms.Form, exc: ValidationError, aliases: dict[str, str | None] | None = None
) -> None:
    """Put a service's ValidationError on the form: on the field it names, else on the form."""
    if not hasattr(exc, "error_dict"):
        for message in exc.messages:
            form.add_error(None, message)
        return
    for field, errors in exc.message_dict.items():
        target: str | None = field
        if aliases and field in aliases:
            target = aliases[field]
        if target not in form.fields:
            target = None
        for message in errors:
            form.add_error(target, message)
