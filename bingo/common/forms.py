"""Form helpers every app uses, and the one reason form the games and the draw share."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds


class ReasonForm(forms.Form):
    """Why a game is suspended or annulled (R55, R57): always recorded."""

    reason = forms.CharField(label=_("Reason"), max_length=500)


#: The hidden key that makes a page's form idempotent (a purchase, a demo game): its refusals
#: name the key, whatever else the form holds (issue 20: a key too long was refused as if the
#: number of cards were wrong).
KEY_ERRORS = {
    "required": _("This request has no key: reload the page and try again."),
    "max_length": _(
        "The key of this request has at most %(limit_value)d characters (this one has %(show_value)d)."
    ),
}


_BALL_LIST = re.compile(r"^[\d\s,;]*$")


class BallListField(forms.CharField):
    """Ball numbers typed by hand, separated by commas (a ball-set check's faulty balls, R23):
    cleaned to a list of ints; blank is none. Bounded: no text past ``BALL_LIST_MAX_LENGTH``,
    no number past ``BALL_NUMBER_MAX`` (the service checks them against the set's size)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", bounds.BALL_LIST_MAX_LENGTH)
        super().__init__(**kwargs)

    def clean(self, value: Any) -> list[int]:
        text = super().clean(value)
        if not _BALL_LIST.match(text):
            raise ValidationError(_("Give the ball numbers separated by commas, e.g. 7, 23, 61."))
        numbers = re.findall(r"\d+", text)
        # The set's own range (1 to its size) is the service's to check; a number this long is none.
        if any(len(number) > 4 for number in numbers):
            raise ValidationError(_("A ball number is at most %(max)d.") % {"max": bounds.BALL_NUMBER_MAX})
        return [int(number) for number in numbers]


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


def form_errors_flash(request: HttpRequest, form: forms.Form) -> None:
    """Show each of a refused form's errors as a message, after its field's label when it has
    one: for forms posted from a page that redirects back, so the person reads what was wrong
    (a key too long is the key's fault, not the number of cards')."""
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else None
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else str(error))
