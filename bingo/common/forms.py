"""Form helpers every app uses, and the one reason form the games and the draw share."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _


class ReasonForm(forms.Form):
    """Why a game is suspended or annulled (R55, R57): always recorded."""

    reason = forms.CharField(label=_("Reason"), max_length=500)


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
