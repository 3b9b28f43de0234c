"""Forms of the jackpot screen (R9-R13): they parse input; the services decide (STYLE rule 3)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from bingo.common.forms import add_service_errors
from halls import services
from halls.models import Hall, Jackpot, JackpotMovement


class JackpotConfigForm(forms.Form):
    """The jackpot's base value (R11) and the terms of its authorization (R12)."""

    base_value = forms.DecimalField(
        label=_("Base value (R11)"),
        max_digits=12,
        decimal_places=2,
        min_value=0,
        initial=0,
        help_text=_("Put back into the jackpot every time it is won."),
    )
    authorization_reference = forms.CharField(label=_("Authorization (R12)"), max_length=200, required=False)
    conditions = forms.CharField(
        label=_("Form and conditions of the award (R12)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    valid_until = forms.DateField(
        label=_("Authorized until (R12)"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )

    def __init__(self, *args: Any, jackpot: Jackpot | None = None, **kwargs: Any) -> None:
        if jackpot is not None and "initial" not in kwargs:
            kwargs["initial"] = {name: getattr(jackpot, name) for name in self.base_fields}
        super().__init__(*args, **kwargs)

    def save(self, *, hall: Hall) -> Jackpot:
        """Configure the jackpot; service errors become form errors."""
        try:
            return services.jackpot_configure(hall=hall, **self.cleaned_data)
        except ValidationError as exc:
            add_service_errors(self, exc)
            raise


class JackpotMovementForm(forms.Form):
    """A seed the operator adds (R11), or an adjustment either way with its reason."""

    kind = forms.ChoiceField(
        label=_("Movement"),
        choices=[
            (JackpotMovement.Kind.SEED.value, JackpotMovement.Kind.SEED.label),
            (JackpotMovement.Kind.ADJUSTMENT.value, JackpotMovement.Kind.ADJUSTMENT.label),
        ],
        widget=forms.RadioSelect,
        initial=JackpotMovement.Kind.SEED.value,
    )
    amount = forms.DecimalField(
        label=_("Amount"),
        max_digits=14,
        decimal_places=2,
        help_text=_("A seed adds; an adjustment may be negative."),
    )
    note = forms.CharField(
        label=_("Note"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Required for an adjustment."),
    )

    def save(self, *, hall: Hall, user: User) -> JackpotMovement:
        """Record the seed or the adjustment; service errors become form errors."""
        data = self.cleaned_data
        try:
            if data["kind"] == JackpotMovement.Kind.SEED:
                return services.jackpot_seed(hall=hall, amount=data["amount"], note=data["note"], user=user)
            return services.jackpot_adjust(hall=hall, amount=data["amount"], note=data["note"], user=user)
        except ValidationError as exc:
            add_service_errors(self, exc)
            raise
