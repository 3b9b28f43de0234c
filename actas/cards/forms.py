"""R51: the form that records a game's cards destroyed, naming those kept as evidence."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from bingo.engine.cards_kept import Card

#: One card: its series' order number and its number, "3/15" (or "3-15", "3 15").
_CARD = re.compile(r"^(\d+)\s*[/\-\s]\s*(\d+)$")


def parse_cards(text: str) -> list[Card]:
    """``"3/15, 3/27; 4/2"`` (commas, semicolons or lines between cards) as ``[(3, 15), (3, 27),
    (4, 2)]``; ValueError naming the first piece that is not a card."""
    cards: list[Card] = []
    for piece in re.split(r"[,;\n]+", text):
        piece = piece.strip()
        if not piece:
            continue
        match = _CARD.match(piece)
        if match is None:
            raise ValueError(piece)
        cards.append((int(match[1]), int(match[2])))
    return cards


class CardsDestroyedForm(forms.Form):
    """The cards kept as evidence of an offence (R51), if any, and why; the rest are destroyed."""

    provas = forms.CharField(
        label=_("Cards kept as evidence"),
        help_text=_("Series order number / card number, separated by commas: 3/15, 3/27. Empty if none."),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    motivo = forms.CharField(
        label=_("Why they may prove an offence"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def clean_provas(self) -> list[Card]:
        try:
            return parse_cards(self.cleaned_data.get("provas", ""))
        except ValueError as exc:
            raise forms.ValidationError(
                _("“%(piece)s” is not a card: write series/number, such as 3/15.") % {"piece": exc.args[0]}
            ) from None

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("provas") and not (data.get("motivo") or "").strip():
            self.add_error("motivo", _("Say why the cards kept as evidence may prove an offence (R51)."))
        return data
