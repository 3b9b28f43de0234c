"""Forms of the card-stock screens: they parse input; the services decide (STYLE rule 3)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import Max, QuerySet
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.forms import service_errors_on
from bingo.engine import SERIES_SIZES, Variant, algorithm_for, parse_seed
from bingo.engine.sales import format_count  # "1 680", as a Portuguese reader groups thousands
from cards import services
from cards.models import VARIANT_CHOICES, CardSet, Series
from halls.models import Hall

CUSTOM_SIZE = "custom"
SIZE_CHOICES = [(letter, f"{letter} ({format_count(size)})") for letter, size in SERIES_SIZES.items()]
DEFAULT_BACK_COLOUR = "#1E88E5"
DEFAULT_FACE_COLOUR = "#FDD835"


def _size_choices() -> list[tuple[str, Any]]:
    return [*SIZE_CHOICES, (CUSTOM_SIZE, _("Other size (authorization, R19)"))]


class CardSetForm(forms.Form):
    """A card-set request: variant, size (a letter A-K or a number), seed, strips."""

    variant = forms.ChoiceField(label=_("Variant"), choices=VARIANT_CHOICES, initial=Variant.B90.value)
    size_letter = forms.ChoiceField(
        label=_("Size"),
        choices=_size_choices,
        initial="K",
        help_text=_("Standard series sizes A to K (R16); another number of cards needs an authorization."),
    )
    custom_size = forms.IntegerField(
        label=_("Number of cards (other size)"),
        required=False,
        min_value=1,
        max_value=bounds.CARD_NUMBER_MAX,
        help_text=_("Only when the size is 'Other size'."),
    )
    seed = forms.CharField(
        label=_("Seed"),
        required=False,
        max_length=80,
        help_text=_("A whole number. Leave blank to have one drawn by the secure generator."),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    strips = forms.BooleanField(
        label=_("Strips of six (90-ball only)"),
        required=False,
        help_text=_("Six cards that hold every number from 1 to 90 once."),
    )

    def clean_seed(self) -> int | None:
        text: str = self.cleaned_data["seed"].strip()
        if not text:
            return None
        try:
            return parse_seed(text)
        except ValueError:
            raise ValidationError(
                _("The seed must be a whole number from 0 to 2^256 - 1."), code="seed"
            ) from None

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        letter = data.get("size_letter")
        if letter == CUSTOM_SIZE:
            if not data.get("custom_size"):
                self.add_error("custom_size", _("Give the number of cards of the set."))
            else:
                data["size"] = data["custom_size"]
        elif letter:
            data["size"] = SERIES_SIZES[letter]
        if data.get("strips") and data.get("variant") not in (None, Variant.B90.value):
            self.add_error("strips", _("Strips of six exist only for 90-ball cards."))
        return data

    def save(self, *, user: User) -> CardSet:
        """Request the card set; service errors become form errors (then re-raised)."""
        data = self.cleaned_data
        with service_errors_on(self):
            return services.card_set_request(
                variant=data["variant"],
                size=data["size"],
                seed=data["seed"],
                algorithm=algorithm_for(strips=data["strips"]),
                user=user,
            )


class CardSetChoiceField(forms.ModelChoiceField):  # type: ignore[type-arg]
    """A choice of card set, each named by card_set_label."""

    def label_from_instance(self, obj: CardSet) -> str:
        return card_set_label(obj)


class SeriesForm(forms.Form):
    """A new series: hall, order number, card set (existing or new), price, colours, R15, R19."""

    SOURCE_EXISTING = "existing"
    SOURCE_NEW = "new"

    hall = forms.ModelChoiceField(label=_("Hall"), queryset=Hall.objects.none(), empty_label=None)
    order_number = forms.IntegerField(
        label=_("Order number"),
        min_value=1,
        max_value=bounds.SERIES_ORDER_NUMBER_MAX,
        help_text=_("The series' number in this hall, printed on every card (R18)."),
    )
    source = forms.ChoiceField(
        label=_("Cards"),
        choices=[
            (SOURCE_EXISTING, _("Use an existing card set")),
            (SOURCE_NEW, _("Generate a new card set")),
        ],
        initial=SOURCE_EXISTING,
        widget=forms.RadioSelect,
    )
    card_set = CardSetChoiceField(
        label=_("Card set"),
        queryset=CardSet.objects.none(),
        required=False,
        help_text=_("Series of the same size usually share a card set (R38 c)."),
    )
    new_variant = forms.ChoiceField(
        label=_("Variant of the new set"), choices=VARIANT_CHOICES, initial=Variant.B90.value, required=False
    )
    new_size_letter = forms.ChoiceField(
        label=_("Size of the new set"), choices=SIZE_CHOICES, initial="K", required=False
    )
    price = forms.DecimalField(
        label=_("Card price"),
        max_digits=12,
        decimal_places=2,
        max_value=bounds.CARD_PRICE_MAX,
        help_text=_("The face value of each card, in the hall's currency."),
        widget=forms.NumberInput(attrs={"step": "0.01"}),
    )
    back_colour = forms.CharField(
        label=_("Back colour (the series)"),
        initial=DEFAULT_BACK_COLOUR,
        max_length=7,
        widget=forms.TextInput(attrs={"type": "color"}),
    )
    face_colour = forms.CharField(
        label=_("Face colour (the price)"),
        initial=DEFAULT_FACE_COLOUR,
        max_length=7,
        widget=forms.TextInput(attrs={"type": "color"}),
    )
    authorization = forms.CharField(
        label=_("Authorization reference"),
        required=False,
        max_length=200,
        help_text=_("Required for a size other than A to K (R19)."),
    )
    double = forms.BooleanField(
        label=_("Double cards"),
        required=False,
        help_text=_("Valid for two consecutive games; prizes paid after the second (R15, R45)."),
    )
    online = forms.BooleanField(
        label=_("Online play"),
        required=False,
        help_text=_(
            "Set aside for the hall's online rooms, sold from players' wallets, never at a desk (R85)."
        ),
    )

    def __init__(self, *args: Any, halls: QuerySet[Hall], **kwargs: Any) -> None:
        """``halls``: the halls offered, those the user manages."""
        super().__init__(*args, **kwargs)
        hall = self.fields["hall"]
        assert isinstance(hall, forms.ModelChoiceField)
        hall.queryset = halls.order_by("name")
        card_sets = CardSet.objects.filter(status=CardSet.Status.READY).order_by("size", "-created_at")
        field = self.fields["card_set"]
        assert isinstance(field, CardSetChoiceField)
        field.queryset = card_sets
        if not card_sets.exists():
            self.fields["source"].initial = self.SOURCE_NEW

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("source") == self.SOURCE_EXISTING and not data.get("card_set"):
            self.add_error("card_set", _("Choose a ready card set, or generate a new one."))
        if data.get("source") == self.SOURCE_NEW:
            if not data.get("new_variant"):
                self.add_error("new_variant", _("Choose the variant of the new card set."))
            if not data.get("new_size_letter"):
                self.add_error("new_size_letter", _("Choose the size of the new card set."))
        return data

    def save(self, *, user: User) -> Series:
        """Create the series, and first its new card set when asked: both or neither
        (cards.services.series_create_with_new_card_set). ValidationError, also added to the
        form, when the services refuse."""
        data = self.cleaned_data
        common = {
            "hall": data["hall"],
            "order_number": data["order_number"],
            "price": data["price"],
            "back_colour": data["back_colour"],
            "face_colour": data["face_colour"],
            "authorization": data["authorization"],
            "double": data["double"],
            "online": data["online"],
            "user": user,
        }
        with service_errors_on(self, aliases={"card_set": self._card_set_field()}):
            if data["source"] == self.SOURCE_NEW:
                return services.series_create_with_new_card_set(
                    variant=data["new_variant"], size=SERIES_SIZES[data["new_size_letter"]], **common
                )
            return services.series_create(card_set=data["card_set"], **common)

    def _card_set_field(self) -> str | None:
        return "card_set" if self.cleaned_data.get("source") == self.SOURCE_EXISTING else None


def card_set_label(card_set: CardSet) -> str:
    """How a card set reads in a list: number, variant, size (with its letter) and fingerprint."""
    letter = next((k for k, v in SERIES_SIZES.items() if v == card_set.size), "")
    size = f"{letter} ({format_count(card_set.size)})" if letter else format_count(card_set.size)
    return _("#%(id)s · %(variant)s balls · %(size)s cards · %(fingerprint)s") % {
        "id": card_set.pk,
        "variant": card_set.variant,
        "size": size,
        "fingerprint": card_set.fingerprint[:12],
    }


def next_order_numbers(*, halls: QuerySet[Hall]) -> dict[int, int]:
    """For each of ``halls``, the order number after its highest one (the form suggests it)."""
    highest = dict(
        Series.objects.filter(hall__in=halls)
        .values("hall")
        .annotate(top=Max("order_number"))
        .values_list("hall", "top")
    )
    return {pk: (highest.get(pk) or 0) + 1 for pk in halls.values_list("pk", flat=True)}
