"""The drawer's forms: the opening float, the cash counted at the close, a date and time range."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from bingo.common.clock import hall_zone
from bingo.common.forms import (
    DateTimeLocalInput,
    WallClockField,
    cash_field,
    in_hall_times,
    service_errors_on,
)
from bingo.drawers import services
from bingo.models import DrawerShift
from bingo.models.drawers import NOTE_MAX_LENGTH
from halls.models import CashDesk

#: A cash field's refusal of what is not an amount.
NOT_AMOUNT = _("Give the amount as a number.")


class DrawerOpenForm(forms.Form):
    """Open a desk's drawer: the cash put in it to give change (the opening float)."""

    opening_float = cash_field(
        _("Opening float"), invalid=NOT_AMOUNT, help_text=_("The cash in the drawer before the first sale.")
    )

    def save(self, *, cash_desk: CashDesk, cashier: User) -> DrawerShift:
        """Open the drawer; the service's refusals go on the form."""
        with service_errors_on(self):
            return services.drawer_open(
                cash_desk=cash_desk, cashier=cashier, opening_float=self.cleaned_data["opening_float"]
            )


class DrawerCloseForm(forms.Form):
    """Close a drawer: the cash counted in it, and why it differs, if it does."""

    counted_cash = cash_field(
        _("Cash counted"),
        invalid=NOT_AMOUNT,
        help_text=_("All the cash in the drawer now, the float included."),
    )
    note = forms.CharField(
        label=_("Note"),
        max_length=NOTE_MAX_LENGTH,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def save(self, *, shift: DrawerShift, cashier: User) -> DrawerShift:
        """Close the drawer; the service's refusals go on the form."""
        with service_errors_on(self):
            return services.drawer_close(shift=shift, cashier=cashier, **self.cleaned_data)


class DrawerRangeForm(forms.Form):
    """A desk and a date and time range on its hall's clock: the cash that went through it."""

    cash_desk = forms.ModelChoiceField(
        label=_("Cash desk"), queryset=CashDesk.objects.none(), empty_label=None
    )
    start = WallClockField(label=_("From"), widget=DateTimeLocalInput())
    end = WallClockField(label=_("To"), widget=DateTimeLocalInput())

    def __init__(self, *args: Any, desks: QuerySet[CashDesk], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["cash_desk"].queryset = desks  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        desk = data.get("cash_desk")
        if desk is None or data.get("start") is None or data.get("end") is None:
            return data
        errors = in_hall_times(data, hall_zone(desk.hall), ("start", "end"))
        if errors:
            raise ValidationError(errors)
        start: datetime = data["start"]
        if data["end"] <= start:
            raise ValidationError({"end": _("The end comes after the start.")})
        return data
