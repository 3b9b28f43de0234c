"""The login form and the manager's unlock form."""

from __future__ import annotations

from typing import Any

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


class LoginLockoutResetForm(forms.Form):
    """Which login lockout a manager lifts: a staff account's or an address's."""

    username = forms.CharField(required=False, max_length=255)
    ip_address = forms.GenericIPAddressField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if bool(data.get("username")) == bool(data.get("ip_address")):
            raise ValidationError(_("Choose one account or one address to unlock."))
        return data
