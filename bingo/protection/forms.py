"""The player's limit, break and self-exclusion forms, and the manager's exclusion forms (R101)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.models import LimitKind, LimitPeriod
from bingo.protection.services import EXCLUSION_CHOICES, PAUSE_CHOICES


class LimitForm(forms.Form):
    """One limit asked for: deposits or losses, its period, and the amount (empty: no limit)."""

    kind = forms.ChoiceField(label=_("Limit of"), choices=LimitKind.choices)
    period = forms.ChoiceField(label=_("Period"), choices=LimitPeriod.choices)
    amount = forms.DecimalField(
        label=_("Amount (empty: no limit)"),
        required=False,
        min_value=0,
        max_value=bounds.AMOUNT_MAX,
        max_digits=14,
        decimal_places=2,
        widget=forms.NumberInput(attrs={"inputmode": "decimal", "step": "any", "min": "0"}),
    )


class SelfExclusionForm(forms.Form):
    """The player excludes themself: for how long, and that they understand it is final."""

    length = forms.ChoiceField(
        label=_("Exclude me for"), choices=EXCLUSION_CHOICES, widget=forms.RadioSelect, initial="1m"
    )
    confirmed = forms.BooleanField(
        label=_(
            "I understand that I cannot buy cards or deposit until it ends, and that it cannot be undone."
        ),
        required=False,
    )


class PauseForm(forms.Form):
    """«Fazer uma pausa»: the player's break, for how long, and that it cannot be ended early."""

    length = forms.ChoiceField(
        label=_("Take a break for"), choices=PAUSE_CHOICES, widget=forms.RadioSelect, initial="24h"
    )
    confirmed = forms.BooleanField(
        label=_(
            "I understand that I cannot buy cards or deposit until the break ends, and that it "
            "cannot be ended early."
        ),
        required=False,
    )


class OperatorExclusionForm(forms.Form):
    """A manager excludes a player of their hall, for how long and why."""

    username = forms.CharField(label=_("Player's username"), max_length=150)
    length = forms.ChoiceField(label=_("Length"), choices=EXCLUSION_CHOICES)
    reason = forms.CharField(label=_("Reason"), max_length=1000, widget=forms.Textarea(attrs={"rows": 2}))


class LiftForm(forms.Form):
    """A manager lifts an operator's exclusion, saying why."""

    reason = forms.CharField(
        label=_("Reason for lifting"),
        max_length=1000,
        error_messages={"required": _("Give the reason for lifting the exclusion.")},
    )
