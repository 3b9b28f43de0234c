"""The player's session time limit and reminders (R101)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from bingo.playtime.services import LIMIT_MAX, LIMIT_MIN, REMINDER_CHOICES


class PlayLimitForm(forms.Form):
    """A session time limit in minutes (blank: none) and a reminder interval (or none)."""

    session_minutes = forms.IntegerField(
        label=_("Session time limit (minutes)"),
        required=False,
        min_value=LIMIT_MIN,
        max_value=LIMIT_MAX,
        help_text=_("Leave blank for no limit."),
    )
    reminder_minutes = forms.TypedChoiceField(
        label=_("Remind me of the time played"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=[],
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        every = [(str(m), _("Every %(n)d minutes") % {"n": m}) for m in REMINDER_CHOICES]
        self.fields["reminder_minutes"].choices = [("", _("Never")), *every]  # type: ignore[attr-defined]
