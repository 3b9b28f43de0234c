"""The player's complaint form and the manager's decision form."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from bingo.models import COMPLAINT_MAX_LENGTH


class ComplaintForm(forms.Form):
    """What the player complains about, in their words."""

    text = forms.CharField(
        label=_("Your complaint"),
        max_length=COMPLAINT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_("Say what happened in this game and what you ask for."),
    )


class DecisionForm(forms.Form):
    """The manager's decision on a complaint, as the acta records it (R61 j)."""

    decision = forms.CharField(
        label=_("Decision"),
        max_length=COMPLAINT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("What was decided and why: the player reads it, and it goes into the session's acta."),
    )
