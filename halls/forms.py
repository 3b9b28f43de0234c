"""Forms of the halls screens: they parse input; the services decide (STYLE rule 3)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.forms import service_errors_on
from bingo.common.roles import STAFF_ROLES, Role
from halls import services
from halls.models import CashDesk, Hall, Room, StaffMembership


class HallForm(forms.Form):
    """A hall's settings: name, currency, time zone, card limit (R35), prize tax, jackpot (R9), the
    operator and its concession (R17), the players' break after their session time limit (R101)."""

    name = forms.CharField(label=_("Name"), max_length=120)
    currency = forms.CharField(
        label=_("Currency"),
        max_length=3,
        initial="CVE",
        help_text=_("Three letters (ISO 4217): CVE for the Cabo Verde escudo."),
    )
    time_zone = forms.CharField(label=_("Time zone"), max_length=64, initial="Atlantic/Cape_Verde")
    card_limit_per_player = forms.IntegerField(
        label=_("Cards per player and game (R35)"),
        required=False,
        min_value=1,
        max_value=bounds.CARD_LIMIT_MAX,
        help_text=_("The most cards one player may buy in a game. Blank: no limit."),
    )
    tax_rate = forms.DecimalField(
        label=_("Tax on prizes (%)"),
        max_digits=5,
        decimal_places=2,
        min_value=0,
        max_value=100,
        initial=0,
    )
    tax_threshold = forms.DecimalField(
        label=_("Prizes taxed from"),
        max_digits=12,
        decimal_places=2,
        min_value=0,
        max_value=bounds.AMOUNT_MAX,
        initial=0,
        help_text=_("Prizes above this value pay the tax, in the hall's currency."),
    )
    # R17: the hall is run under a concession; receipts and payout slips print who holds it.
    operator_name = forms.CharField(
        label=_("Operator (concession holder)"),
        max_length=160,
        required=False,
        help_text=_("The company that runs the hall under its concession, as printed on receipts and slips."),
    )
    licence_number = forms.CharField(
        label=_("Concession or licence n.º"),
        max_length=60,
        required=False,
        help_text=_("The number of the hall's concession or licence from the Regulatory Authority."),
    )
    play_cooloff_minutes = forms.IntegerField(
        label=_("Mandatory break after the session time limit (minutes)"),
        required=False,
        min_value=0,
        max_value=bounds.PLAY_COOLOFF_MINUTES_MAX,
        initial=0,
        help_text=_(
            "R101: when a player's session ends at the time limit they set, they cannot log in or buy "
            "cards again for this long. 0 or blank: no break."
        ),
    )
    jackpot_active = forms.BooleanField(
        label=_("Progressive jackpot active (R9)"),
        required=False,
        help_text=_("With the jackpot authorized, 3% of each game's prize money goes to it (R10)."),
    )

    def __init__(self, *args: Any, hall: Hall | None = None, **kwargs: Any) -> None:
        self.hall = hall
        if hall is not None and "initial" not in kwargs:
            kwargs["initial"] = {name: getattr(hall, name) for name in self.base_fields}
        super().__init__(*args, **kwargs)

    def clean_play_cooloff_minutes(self) -> int:
        return self.cleaned_data.get("play_cooloff_minutes") or 0

    def save(self, *, user: User) -> Hall:
        """Create the hall with ``user`` (who asks) as its manager, or update the one given;
        service errors become form errors."""
        with service_errors_on(self):
            if self.hall is None:
                return services.hall_create(**self.cleaned_data, manager=user)
            return services.hall_update(hall=self.hall, **self.cleaned_data)


class RoomForm(forms.Form):
    """A new room of a hall."""

    name = forms.CharField(label=_("Room name"), max_length=80)

    def save(self, *, hall: Hall) -> Room:
        """Create the room; service errors become form errors."""
        with service_errors_on(self):
            return services.room_create(hall=hall, name=self.cleaned_data["name"])


class CashDeskForm(forms.Form):
    """A new cash desk of a hall."""

    name = forms.CharField(label=_("Cash desk name"), max_length=80)

    def save(self, *, hall: Hall) -> CashDesk:
        """Create the cash desk; service errors become form errors."""
        with service_errors_on(self):
            return services.cash_desk_create(hall=hall, name=self.cleaned_data["name"])


class UserChoiceField(forms.ModelChoiceField):  # type: ignore[type-arg]
    """A choice of person, shown by full name and user name."""

    def label_from_instance(self, obj: User) -> str:
        full_name = obj.get_full_name()
        return f"{full_name} ({obj.get_username()})" if full_name else obj.get_username()


class StaffForm(forms.Form):
    """Give an existing person a role in a hall."""

    user = UserChoiceField(
        label=_("Person"), queryset=User.objects.filter(is_active=True).order_by("username")
    )
    role = forms.ChoiceField(label=_("Role"), choices=[(role.value, role.label) for role in STAFF_ROLES])

    def save(self, *, hall: Hall) -> StaffMembership:
        """Assign the role; service errors become form errors."""
        with service_errors_on(self):
            return services.staff_assign(
                hall=hall, user=self.cleaned_data["user"], role=Role(self.cleaned_data["role"])
            )
