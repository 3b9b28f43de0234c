"""The caller's forms: starting the draw, a ball, manual extraction (R55), a claim and a prize."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.forms import SERIES_LABEL
from bingo.draw import selectors as draw_selectors
from bingo.models import DrawMode, Game, PrizeKind
from cards.models import Series
from halls.models import BallSet


class StartDrawForm(forms.Form):
    """How the balls come out (SPEC §4), and for a physical draw the hall's ball set (R22-R25)."""

    mode = forms.ChoiceField(
        label=_("Draw"), choices=DrawMode.choices, initial=DrawMode.ELECTRONIC, widget=forms.RadioSelect
    )
    ball_set = forms.ModelChoiceField(
        label=_("Ball set"),
        queryset=BallSet.objects.none(),
        required=False,
        empty_label=_("(none)"),
        help_text=_("Needed for a physical draw; an electronic draw may name one for a failure (R55)."),
    )

    def __init__(self, *args: Any, ball_sets: QuerySet[BallSet], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ball_set"].queryset = ball_sets  # type: ignore[attr-defined]


class BallForm(forms.Form):
    """One ball: which one (``position``, 1 for the first: pressing twice draws once) and, when
    keyed in from the blower, its number."""

    position = forms.IntegerField(min_value=1, max_value=bounds.BALL_NUMBER_MAX, widget=forms.HiddenInput)
    number = forms.IntegerField(
        label=_("Ball number"),
        min_value=1,
        max_value=bounds.BALL_NUMBER_MAX,
        required=False,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "autocomplete": "off", "min": 1}),
    )


class ManualForm(forms.Form):
    """R55: the electronic mechanism failed after the first ball; the game goes on by hand."""

    reason = forms.CharField(label=_("What failed"), max_length=500)


class ClaimForm(forms.Form):
    """A claimed card (R43): series and number, and the prize claimed."""

    series = forms.ModelChoiceField(label=SERIES_LABEL, queryset=Series.objects.none(), empty_label=None)
    card_number = forms.IntegerField(
        label=_("Card number"),
        min_value=1,
        max_value=bounds.CARD_NUMBER_MAX,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "autocomplete": "off", "min": 1}),
    )
    kind = forms.ChoiceField(label=_("Prize"), choices=())

    def __init__(self, *args: Any, game: Game, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["series"].queryset = Series.objects.filter(  # type: ignore[attr-defined]
            games__game=game
        ).order_by("games__position")
        self.fields["kind"].choices = [  # type: ignore[attr-defined]
            (kind.value, PrizeKind(kind.value).label) for kind in draw_selectors.prize_kinds_in_order(game)
        ]


class AwardForm(forms.Form):
    """Confirm a prize: it goes to every card holding it now (R46, R49)."""

    kind = forms.ChoiceField(choices=PrizeKind.choices)
