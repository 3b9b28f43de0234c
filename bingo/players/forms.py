"""The player's registration form and the desk's wallet movement form."""

from __future__ import annotations

import uuid
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.models import WalletEntry
from bingo.players.selectors import player_register_hall_list
from halls.models import CashDesk, Hall
from halls.selectors import cash_desk_list


class RegistrationForm(forms.Form):
    """A new online player: who they are, their password, and that they are of age."""

    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    email = forms.EmailField(
        label=_("E-mail"), max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    first_name = forms.CharField(
        label=_("Name"), max_length=150, widget=forms.TextInput(attrs={"autocomplete": "given-name"})
    )
    last_name = forms.CharField(
        label=_("Surname"), max_length=150, widget=forms.TextInput(attrs={"autocomplete": "family-name"})
    )
    birth_date = forms.DateField(
        label=_("Date of birth"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    password1 = forms.CharField(
        label=_("Password"), strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    hall = forms.ModelChoiceField(label=_("Operator (hall)"), queryset=player_register_hall_list())
    adult_confirmed = forms.BooleanField(label="", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["adult_confirmed"].label = _("I am %(age)d or older.") % {"age": settings.PLAYER_MIN_AGE}
        halls = list(player_register_hall_list()[:2])
        self.only_hall: Hall | None = None
        if len(halls) == 1:  # one operator: nothing to choose
            self.fields["hall"].required = False
            self.fields["hall"].widget = forms.HiddenInput()
            self.only_hall = halls[0]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password1") and data.get("password2") and data["password1"] != data["password2"]:
            self.add_error("password2", _("The two passwords differ."))
        if self.only_hall is not None:
            data["hall"] = self.only_hall
        return data


def parse_amount(text: str) -> Decimal:
    """An amount keyed in as text: "1234.50", "1 234,50" or "1234" (ValidationError otherwise)."""
    cleaned = text.strip().replace(" ", "").replace("\u00a0", "")
    if "," in cleaned and "." in cleaned:
        cleaned = (
            cleaned.replace(".", "").replace(",", ".")
            if cleaned.rfind(",") > cleaned.rfind(".")
            else cleaned.replace(",", "")
        )
    else:
        cleaned = cleaned.replace(",", ".")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise ValidationError(_("Write the amount as a number, such as 500 or 1250,50.")) from None
    if not value.is_finite() or value <= 0:
        raise ValidationError(_("The amount must be more than zero."))
    if value.as_tuple().exponent < -2:  # type: ignore[operator]
        raise ValidationError(_("An amount has at most two decimals."))
    if value > bounds.AMOUNT_MAX:
        raise ValidationError(_("The amount is at most %(max)s.") % {"max": bounds.AMOUNT_MAX})
    return value


class WalletMovementForm(forms.Form):
    """Money handed in or paid out at the desk: kind, amount, identity document checked, and the
    idempotency key the page drew (a form sent twice counts once)."""

    kind = forms.ChoiceField(
        label=_("Movement"),
        choices=[
            (WalletEntry.Kind.DEPOSIT.value, _("Deposit")),
            (WalletEntry.Kind.WITHDRAWAL.value, _("Withdrawal")),
        ],
        widget=forms.RadioSelect,
    )
    amount = forms.CharField(
        label=_("Amount"),
        max_length=20,
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )
    reference = forms.CharField(
        label=_("Identity document checked"),
        max_length=120,
        help_text=_("The kind and number of the document you saw, e.g. CNI 1234567."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    cash_desk = forms.ModelChoiceField(
        label=_("Cash desk"),
        queryset=CashDesk.objects.none(),
        required=False,
        empty_label=_("None (counted in no drawer)"),
        help_text=_("The desk whose drawer the cash goes into or comes out of: its close-out counts it."),
    )
    key = forms.CharField(max_length=80, widget=forms.HiddenInput)

    def __init__(self, *args: Any, hall: Hall, desk_id: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        desks = cash_desk_list(hall=hall)
        self.fields["cash_desk"].queryset = desks  # type: ignore[attr-defined]
        if not self.is_bound:
            self.initial.setdefault("key", uuid.uuid4().hex)
            self.initial.setdefault("kind", WalletEntry.Kind.DEPOSIT.value)
            # The desk the cashier works at (if it is of this hall), or the hall's only desk.
            if desk_id is not None and desks.filter(pk=desk_id).exists():
                self.initial.setdefault("cash_desk", desk_id)
            elif len(only := list(desks[:2])) == 1:
                self.initial.setdefault("cash_desk", only[0].pk)

    def clean_amount(self) -> Decimal:
        return parse_amount(self.cleaned_data["amount"])


class PlayerSearchForm(forms.Form):
    """Find a player by username, e-mail or name."""

    q = forms.CharField(label=_("Username, e-mail or name"), max_length=100, required=False)


class HistoryFilterForm(forms.Form):
    """«O meu histórico»'s dates (the hall's), both optional, the first not after the second."""

    date_from = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start is not None and end is not None and start > end:
            raise forms.ValidationError(_("The first date is after the second."))
        return data
