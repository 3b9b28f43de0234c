"""Form helpers every app uses: the one reason form the games and the draw share, the fields
that read a date and time on the hall's clock (sessions, online rooms' schedules, and the API's
serializers), the card's series label the draw's and the desk's forms share, a service's
refusals on a form and a screen's form saved or refused."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, tzinfo
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.forms.fields import BaseTemporalField
from django.http import HttpRequest
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from bingo.common import bounds
from bingo.common.clock import CLOCK_FORMAT, zone_name

#: One card's series, as the claim form and the desk's prize payment name it.
SERIES_LABEL = pgettext_lazy("the series of one card", "Series")


class ReasonForm(forms.Form):
    """Why a game is suspended or annulled (R55, R57): always recorded."""

    reason = forms.CharField(label=_("Reason"), max_length=500)


def cash_field(label: Any, *, invalid: Any, help_text: Any = "") -> forms.DecimalField:
    """An amount of cash a cashier types (handed over, put in a drawer, counted): 0 to
    ``bounds.AMOUNT_MAX``, cents at most, written as the hall writes it (a comma)."""
    return forms.DecimalField(
        label=label,
        help_text=help_text,
        min_value=0,
        max_value=bounds.AMOUNT_MAX,
        max_digits=14,
        decimal_places=2,
        localize=True,
        error_messages={"invalid": invalid},
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )


#: The hidden key that makes a page's form idempotent (a purchase, a demo game): its refusals
#: name the key, whatever else the form holds (issue 20: a key too long was refused as if the
#: number of cards were wrong).
KEY_ERRORS = {
    "required": _("This request has no key: reload the page and try again."),
    "max_length": _(
        "The key of this request has at most %(limit_value)d characters (this one has %(show_value)d)."
    ),
}


_BALL_LIST = re.compile(r"^[\d\s,;]*$")


class BallListField(forms.CharField):
    """Ball numbers typed by hand, separated by commas (a ball-set check's faulty balls, R23):
    cleaned to a list of ints; blank is none. Bounded: no text past ``BALL_LIST_MAX_LENGTH``,
    no number past ``BALL_NUMBER_MAX`` (the service checks them against the set's size)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", bounds.BALL_LIST_MAX_LENGTH)
        super().__init__(**kwargs)

    def clean(self, value: Any) -> list[int]:
        text = super().clean(value)
        if not _BALL_LIST.match(text):
            raise ValidationError(_("Give the ball numbers separated by commas, e.g. 7, 23, 61."))
        numbers = re.findall(r"\d+", text)
        # The set's own range (1 to its size) is the service's to check; a number this long is none.
        if any(len(number) > 4 for number in numbers):
            raise ValidationError(_("A ball number is at most %(max)d.") % {"max": bounds.BALL_NUMBER_MAX})
        return [int(number) for number in numbers]


#: How a browser's ``datetime-local`` input sends a date and time (the hall's clock).
DATETIME_INPUT = "%Y-%m-%dT%H:%M"


class DateTimeLocalInput(forms.DateTimeInput):
    """The browser's date and time picker; what it shows is read on the hall's clock."""

    input_type = "datetime-local"

    def __init__(self) -> None:
        super().__init__(format=DATETIME_INPUT)


class WallClockField(forms.DateTimeField):
    """A date and time as the hall's clock shows it: left naive, so that the form can place it
    in the time zone of the hall it is about (the server's own zone plays no part)."""

    def to_python(self, value: Any) -> datetime | None:
        if value in self.empty_values:
            return None
        if isinstance(value, datetime):
            return value
        try:
            parsed = parse_datetime(str(value).strip())
        except ValueError:
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None
        if parsed is not None:
            return parsed
        # The input formats, without DateTimeField's placing in the current time zone.
        result: datetime | None = BaseTemporalField.to_python(self, value)
        return result


def _ambiguous_or_imaginary(value: datetime, zone: tzinfo) -> bool:
    # Across a clock change a wall time happens twice, or never (PEP 495's fold tells which).
    return zone.utcoffset(value.replace(fold=1 - value.fold)) != zone.utcoffset(value)


def in_hall_time(value: datetime, zone: tzinfo) -> datetime:
    """``value`` read on the hall's clock; ValidationError when a clock change makes it
    ambiguous or skips it. An aware ``value`` already says which instant it is."""
    if timezone.is_aware(value):
        return value
    if _ambiguous_or_imaginary(value, zone):
        raise ValidationError(
            _("%(time)s happens twice or not at all in %(zone)s (the clocks change); choose another time."),
            code="ambiguous_time",
            params={"time": value.strftime(CLOCK_FORMAT), "zone": zone_name(str(zone))},
        )
    return timezone.make_aware(value, zone)


def in_hall_times(values: dict[str, Any], zone: tzinfo, names: Iterable[str]) -> dict[str, list[str]]:
    """Read each of ``names`` in ``values`` on the hall's clock (``in_hall_time``), in place; the
    refusals by name (empty when every time was read)."""
    errors: dict[str, list[str]] = {}
    for name in names:
        try:
            values[name] = in_hall_time(values[name], zone)
        except ValidationError as exc:
            errors[name] = exc.messages
    return errors


def add_service_errors(
    form: forms.Form, exc: ValidationError, aliases: dict[str, str | None] | None = None
) -> None:
    """Put a service's ValidationError on the form: on the field it names, else on the form."""
    if not hasattr(exc, "error_dict"):
        for message in exc.messages:
            form.add_error(None, message)
        return
    for field, errors in exc.message_dict.items():
        target: str | None = field
        if aliases and field in aliases:
            target = aliases[field]
        if target not in form.fields:
            target = None
        for message in errors:
            form.add_error(target, message)


def form_saved(form: forms.Form, **save_kwargs: Any) -> Any:
    """What ``form.save(**save_kwargs)`` returns once the form is valid and the service behind its
    ``save`` accepts it; None when either refuses, the form then carrying the errors to show again
    (a form's ``save`` puts its service's refusals on it, ``add_service_errors``, and re-raises).

    For the screens' forms whose ``save`` returns what it wrote: a view posts, gets the saved
    object or None, and redirects or renders the form again. An unbound form (a GET) is not valid.
    """
    if not form.is_valid():
        return None
    try:
        return form.save(**save_kwargs)  # type: ignore[attr-defined]
    except ValidationError:
        return None


@contextmanager
def service_errors_on(form: forms.Form, aliases: dict[str, str | None] | None = None) -> Iterator[None]:
    """A form's ``save`` calls its service inside this: a ValidationError the service raises is
    put on the form's fields (``add_service_errors``) and raised on, so the view renders the form
    again with them (``form_saved``)."""
    try:
        yield
    except ValidationError as exc:
        add_service_errors(form, exc, aliases)
        raise


def refusal_flash(request: HttpRequest, exc: ValidationError) -> None:
    """Show each message of a service's refusal as an error message: for an action posted from a
    page that redirects back (or shows itself again) with no form to carry them."""
    for message in exc.messages:
        messages.error(request, message)


def form_errors_flash(request: HttpRequest, form: forms.Form) -> None:
    """Show each of a refused form's errors as a message, after its field's label when it has
    one: for forms posted from a page that redirects back, so the person reads what was wrong
    (a key too long is the key's fault, not the number of cards')."""
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else None
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else str(error))
