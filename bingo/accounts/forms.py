"""The login form, the password reset request and the manager's unlock form."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from bingo.accounts.signals import login_checking


class LoginForm(AuthenticationForm):
    """Django's login form, with our own wording of its two refusals."""

    error_messages = {
        "invalid_login": _(
            "The username or the password is not right. Note that capital and small letters differ."
        ),
        "inactive": _("This account is disabled. Ask the hall manager."),
    }

    def confirm_login_allowed(self, user: User) -> None:
        """Django's check of an inactive account, then the features' (``login_checking``):
        a receiver refuses with a ValidationError saying why (R101's pause after a time limit)."""
        super().confirm_login_allowed(user)
        login_checking.send(sender=type(self), user=user)


class LoginLockoutResetForm(forms.Form):
    """Which login lockout a manager lifts: a staff account's or an address's."""

    username = forms.CharField(required=False, max_length=255)
    ip_address = forms.GenericIPAddressField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if bool(data.get("username")) == bool(data.get("ip_address")):
            raise ValidationError(_("Choose one account or one address to unlock."))
        return data


class ResetRequestForm(PasswordResetForm):
    """Django's password reset request: the e-mail address, and the mail sent to each active
    account that has it (nothing, and no word of it, when none has)."""

    email = forms.EmailField(
        label=_("E-mail"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )
