"""Forms of demo mode (R102)."""

from __future__ import annotations

import secrets
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from bingo.common.forms import KEY_ERRORS
from bingo.demo import services
from bingo.demo.selectors import DEMO_MAX_CARDS


class DemoStartForm(forms.Form):
    """How many demo cards to play, and the game's key: a page renders a new one, so the same
    form sent twice starts one game."""

    cards = forms.IntegerField(label=_("Demo cards"), min_value=1, max_value=DEMO_MAX_CARDS, initial=1)
    key = forms.CharField(widget=forms.HiddenInput, max_length=services.KEY_MAX, error_messages=KEY_ERRORS)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {"cards": 1, "key": secrets.token_urlsafe(18)})
        super().__init__(*args, **kwargs)
