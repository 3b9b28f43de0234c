"""Forms of the jackpot screens: the hall's jackpot (R9-R13), where they parse input and the services
decide (STYLE rule 3), and the odds calculator's question (R9)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.forms import service_errors_on
from bingo.engine import Variant, geometry
from bingo.jackpot import services
from cards.models import VARIANT_CHOICES
from halls.models import Hall, Jackpot, JackpotMovement


class JackpotConfigForm(forms.Form):
    """The jackpot's base value (R11) and the terms of its authorization (R12)."""

    base_value = forms.DecimalField(
        label=_("Base value (R11)"),
        max_digits=12,
        decimal_places=2,
        min_value=0,
        max_value=bounds.AMOUNT_MAX,
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
        with service_errors_on(self):
            return services.jackpot_configure(hall=hall, **self.cleaned_data)


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
        min_value=-bounds.AMOUNT_MAX,
        max_value=bounds.AMOUNT_MAX,
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
        with service_errors_on(self):
            if data["kind"] == JackpotMovement.Kind.SEED:
                return services.jackpot_seed(hall=hall, amount=data["amount"], note=data["note"], user=user)
            return services.jackpot_adjust(hall=hall, amount=data["amount"], note=data["note"], user=user)


#: Most cards the page simulates. Generating 80- and 75-ball sets, whose lines are made unique
#: (R14 adapted), takes about half a second at 6,000 cards and several seconds past 10,000.
MAX_CARDS = {Variant.B90: 100_000, Variant.B80: 6_000, Variant.B75: 6_000, Variant.B30: 100_000}
#: Most simulated games, and most (cards x games): about a second of work on one core.
MAX_DRAWS = 20_000
MAX_WORK = 200_000_000


class JackpotCalculatorForm(forms.Form):
    """What the manager asks: the variant, N, K, how many games to simulate, and a target."""

    variant = forms.TypedChoiceField(
        label=_("Variant"), choices=VARIANT_CHOICES, coerce=Variant, initial=Variant.B90.value
    )
    balls = forms.IntegerField(
        label=_("Balls drawn (N)"),
        min_value=0,
        max_value=90,
        initial=50,
        help_text=_("The jackpot goes to a bingo within this many balls (R9)."),
    )
    cards = forms.IntegerField(
        label=_("Cards in play (K)"), min_value=1, max_value=max(MAX_CARDS.values()), initial=1680
    )
    draws = forms.IntegerField(
        label=_("Games to simulate"), min_value=100, max_value=MAX_DRAWS, initial=10_000
    )
    target = forms.IntegerField(
        label=_("Target: jackpot won once in how many games"),
        min_value=1,
        max_value=1_000_000,
        initial=20,
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        variant, balls, cards, draws = (data.get(k) for k in ("variant", "balls", "cards", "draws"))
        if isinstance(variant, Variant):
            total = geometry(variant).balls
            if isinstance(balls, int) and balls > total:
                self.add_error(
                    "balls",
                    _("A %(variant)s-ball game has only %(total)s balls.")
                    % {"variant": variant, "total": total},
                )
            if isinstance(cards, int) and cards > MAX_CARDS[variant]:
                self.add_error(
                    "cards",
                    _("This page simulates at most %(max)s cards of %(variant)s balls.")
                    % {"max": number_format(MAX_CARDS[variant], force_grouping=True), "variant": variant},
                )
        if isinstance(cards, int) and isinstance(draws, int) and cards * draws > MAX_WORK:
            self.add_error(
                "draws",
                _("With %(cards)s cards, simulate at most %(draws)s games.")
                % {
                    "cards": number_format(cards, force_grouping=True),
                    "draws": number_format(MAX_WORK // cards, force_grouping=True),
                },
            )
        return data
