"""The cash desk's forms: a winning card handed in for payment (R50), scanned or typed; a payout
slip's code typed to find it again."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.forms import SERIES_LABEL
from cards import selectors as card_selectors
from cards.models import Series
from cards.payload import card_payload_parse

#: The fields a card typed by hand needs when nothing was scanned.
_TYPED = ("series", "card_number", "check_code")


class ScanInput(forms.TextInput):
    """The field a USB scanner types a card's QR code into (its keystrokes, then Enter, which
    submits the form). It never shows what was scanned: after a refusal the next scan starts in
    an empty field instead of being typed after the last one."""

    def format_value(self, value: Any) -> str | None:
        return None


class PrizePayForm(forms.Form):
    """A winning card handed in at the desk (R50): its QR code as the scanner types it, or its
    series, number and check code typed by hand. A scan, when there is one, names the card."""

    cash_desk = forms.IntegerField(widget=forms.HiddenInput)
    scan = forms.CharField(
        label=_("Scan the card's QR code"),
        required=False,
        strip=True,
        help_text=_("Point the scanner at the card's QR code: it types it here and pays."),
        widget=ScanInput(
            attrs={
                "autofocus": True,
                "autocomplete": "off",
                "autocapitalize": "off",
                "spellcheck": "false",
                "data-scan": "",
            }
        ),
    )
    series = forms.ModelChoiceField(label=SERIES_LABEL, queryset=Series.objects.none(), required=False)
    card_number = forms.IntegerField(
        label=_("Card number"),
        required=False,
        min_value=1,
        max_value=bounds.CARD_NUMBER_MAX,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "autocomplete": "off", "min": 1}),
    )
    check_code = forms.CharField(
        label=_("Check code"),
        required=False,
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

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("scan"):
            return self._clean_scan(data)
        for name in _TYPED:
            if data.get(name) in (None, "") and name not in self.errors:
                self.add_error(name, self.fields[name].error_messages["required"])
        return data

    def _clean_scan(self, data: dict[str, Any]) -> dict[str, Any]:
        """The card the scanned QR code names (cards/payload.py, the code the cards print with)."""
        card = card_payload_parse(data["scan"])
        if card is None:
            raise ValidationError(
                {"scan": _("Not a card's QR code: scan the card again, or type its series, number and code.")}
            )
        queryset = self.fields["series"].queryset  # type: ignore[attr-defined]
        series = queryset.filter(pk=card.series_id).first()
        if series is None:
            # Another hall's card, or no series at all: either way not paid at this desk (R50).
            raise ValidationError(
                {"scan": _("This card is not of a series of this hall: it is not paid here.")}
            )
        # The scan names the card: what the typed fields hold is left aside.
        self.errors.pop("card_number", None)
        self.errors.pop("check_code", None)
        self.errors.pop("series", None)
        return {**data, "series": series, "card_number": card.number, "check_code": card.code}


class SlipFindForm(forms.Form):
    """A payout slip's code, as printed on it, typed to find the slip again."""

    codigo = forms.CharField(
        label=_("Slip code"),
        max_length=40,
        widget=forms.TextInput(
            attrs={
                "autofocus": True,
                "autocomplete": "off",
                "autocapitalize": "characters",
                "spellcheck": "false",
            }
        ),
    )
