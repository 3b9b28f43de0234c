"""The print form on the series page: a range of a series' cards to print."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from cards.models import Series


class PrintForm(forms.Form):
    """A range of card numbers of one series to print."""

    first = forms.IntegerField(label=_("From card"), min_value=1, max_value=bounds.CARD_NUMBER_MAX, initial=1)
    last = forms.IntegerField(label=_("To card"), min_value=1, max_value=bounds.CARD_NUMBER_MAX)

    def __init__(self, *args: Any, series: Series, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.series = series
        for name in ("first", "last"):
            self.fields[name].widget.attrs["max"] = series.size
        self.fields["last"].initial = series.size

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        first, last = data.get("first"), data.get("last")
        if first is not None and last is not None:
            if last > self.series.size:
                self.add_error("last", _("This series has %(n)s cards.") % {"n": self.series.size})
            elif first > last:
                self.add_error("last", _("The last card must not come before the first."))
        return data
