"""bingo/common/forms.py: a screen's form saved or refused (``form_saved``), a service's
refusals put on the form by its ``save`` (``service_errors_on``) or shown as messages
(``refusal_flash``)."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms
from django.contrib.messages import constants, get_messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.exceptions import ValidationError
from django.test import RequestFactory

from bingo.common.forms import form_saved, refusal_flash, service_errors_on


class NameForm(forms.Form):
    name = forms.CharField(max_length=10)

    def save(self, *, refuse: ValidationError | None = None, **extra: Any) -> dict[str, Any]:
        with service_errors_on(self, aliases={"title": "name"}):
            if refuse is not None:
                raise refuse
            return {"name": self.cleaned_data["name"], **extra}


def test_a_valid_form_the_service_accepts_gives_what_save_returned() -> None:
    assert form_saved(NameForm({"name": "Sala"}), hall=3) == {"name": "Sala", "hall": 3}


def test_an_unbound_form_is_not_saved() -> None:
    assert form_saved(NameForm()) is None


def test_an_invalid_form_is_not_saved_and_keeps_its_errors() -> None:
    form = NameForm({"name": "x" * 11})
    assert form_saved(form) is None
    assert "name" in form.errors


def test_a_service_refusal_lands_on_the_field_it_names_or_its_alias() -> None:
    form = NameForm({"name": "Sala"})
    assert form_saved(form, refuse=ValidationError({"title": "Already used."})) is None
    assert form.errors == {"name": ["Already used."]}


def test_a_refusal_naming_no_field_lands_on_the_form() -> None:
    form = NameForm({"name": "Sala"})
    assert form_saved(form, refuse=ValidationError("Closed.")) is None
    assert form.non_field_errors() == ["Closed."]


def test_save_raises_the_refusal_on_after_putting_it_on_the_form() -> None:
    form = NameForm({"name": "Sala"})
    assert form.is_valid()
    with pytest.raises(ValidationError):
        form.save(refuse=ValidationError("Closed."))
    assert form.non_field_errors() == ["Closed."]


def test_other_errors_go_through_untouched() -> None:
    form = NameForm({"name": "Sala"})
    assert form.is_valid()
    with pytest.raises(ZeroDivisionError), service_errors_on(form):
        _ = 1 / 0
    assert not form.non_field_errors()


def test_each_message_of_a_refusal_is_shown_as_an_error() -> None:
    request = RequestFactory().post("/")
    request._messages = CookieStorage(request)  # type: ignore[attr-defined]
    refusal_flash(request, ValidationError({"name": ["Already used."], "hall": ["Closed."]}))
    shown = [(m.level, m.message) for m in get_messages(request)]
    assert shown == [(constants.ERROR, "Already used."), (constants.ERROR, "Closed.")]
