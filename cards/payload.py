"""What a printed card's QR code carries, written and read in one place.

The QR code is the address of the public card check with the card filled in:
``{BINGO_PUBLIC_URL}/verificar/?serie={series id}&cartao={number}&codigo={check code}``. The
printed cards write it (``card_check_url``, cards/printing/pdf.py); the card check page reads
its query with ``CardCheckForm`` (cards/views.py ``card_check``); and the cash desk reads the
whole payload as a USB scanner types it (``card_payload_parse``, the prize payment's form,
R50) with the same form, so the three never disagree on the format.

Not an adapter (views, api, forms, urls are a feature's own, docs/architecture.md «Layers»):
other features' forms import the parser from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds

#: The path of the public card check, which every printed QR code points at.
CHECK_PATH = "/verificar/"

#: The longest payload read: the address with a series id, a card number and a code is far shorter.
PAYLOAD_MAX_LENGTH = 300


def card_check_url(*, series_id: int, number: int, code: str) -> str:
    """The address a printed card's QR code carries: the public card check with the card filled in."""
    return f"{settings.BINGO_PUBLIC_URL}{CHECK_PATH}?serie={series_id}&cartao={number}&codigo={code}"


class CardCheckForm(forms.Form):
    """The public card check: series, card number and check code, as in the card's QR code."""

    serie = forms.IntegerField(
        label=_("Series reference (“ref.” on the card)"), min_value=1, max_value=bounds.ID_MAX
    )
    cartao = forms.IntegerField(label=_("Card number"), min_value=1, max_value=bounds.CARD_NUMBER_MAX)
    codigo = forms.CharField(
        label=_("Check code"),
        max_length=20,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )


@dataclass(frozen=True)
class CardReference:
    """A card as its QR code names it: the series' id, the card's number and its check code (as
    printed; whether it is the card's code is cards.selectors ``card_check``'s to say)."""

    series_id: int
    number: int
    code: str


def card_payload_parse(payload: str) -> CardReference | None:
    """The card a QR code's ``payload`` names (as a scanner types it, spaces around ignored);
    None when it is not a card check address with one series, number and code."""
    text = payload.strip()
    if not text or len(text) > PAYLOAD_MAX_LENGTH:
        return None
    try:
        parts = urlsplit(text)
        query = parse_qs(parts.query, keep_blank_values=True, max_num_fields=3)
    except ValueError:  # a malformed address, or more fields than a card's
        return None
    if not parts.path.endswith(CHECK_PATH) or any(len(values) != 1 for values in query.values()):
        return None
    form = CardCheckForm({name: values[0] for name, values in query.items()})
    if not form.is_valid():
        return None
    data = form.cleaned_data
    return CardReference(series_id=data["serie"], number=data["cartao"], code=data["codigo"].strip())
