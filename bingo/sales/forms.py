"""The cash desk's forms: a winning card handed in for payment (R50)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.forms import SERIES_LABEL
from cards import selectors as card_selectors
from cards.models import Series


class PrizePayForm(forms.Form):
    """A winning card handed in at the desk (R50): its series, number and check code."""

    cash_desk = forms.IntegerField(widget=forms.HiddenInput)
    series = forms.ModelChoiceField(
        label=SERIES_LABEL, queryset=Series.objects.none(), widget=forms.Select(attrs={"autofocus": True})
    )
    card_number = forms.IntegerField(
        label=_("Card number"),
        min_value=1,
        max_value=bounds.CARD_NUMBER_MAX,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "autocomplete": "off", "min": 1}),
    )
    check_code = forms.CharField(
        label=_("Check code"),
        max_length=20,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )

    def __init__(self, *args: Any, hall_id: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        series = card_selectors.series_list(hall_id=hall_id).order_by("order_number")
        self.fields["series"].queryset = series  # type: ignore[attr-defined]
        only = list(series[:2])
        if not self.is_bound and len(only) == 1:  # one series in the hall: nothing to choose
            self.initial.setdefault("series", only[0].pk)
