"""Forms of the ball-set screens (R20-R26): they parse input; the services decide (STYLE rule 3)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from bingo.ballsets import selectors, services
from bingo.common.clock import hall_local
from bingo.common.forms import BallListField, service_errors_on
from bingo.models import Session
from halls.models import BALL_SET_MAX_GAMES, BALL_SET_SIZES, BallReplacement, BallSet, BallSetCheck, Hall


class SessionChoiceField(forms.ModelChoiceField):  # type: ignore[type-arg]
    """A session of the hall, shown by room and start in the hall's time zone."""

    def label_from_instance(self, obj: Session) -> str:
        starts = hall_local(obj.starts_at, obj.room.hall)
        return f"{obj.room.name} · {starts:%Y-%m-%d %H:%M}"


def _during_session() -> SessionChoiceField:
    """The session a ball or a set was replaced during, if any: its acta reports it (R61 k))."""
    return SessionChoiceField(
        label=_("During session"),
        queryset=Session.objects.none(),
        required=False,
        help_text=_("The session whose acta reports it, if it happened during one (R61 k)."),
    )


class BallSetForm(forms.Form):
    """A new ball set of a hall (R22), with the games it already played (R25)."""

    serial_number = forms.CharField(label=_("Serial number"), max_length=40)
    size = forms.TypedChoiceField(
        label=_("Number of balls"), coerce=int, choices=[(size, size) for size in BALL_SET_SIZES]
    )
    games_played = forms.IntegerField(
        label=_("Games already played"),
        min_value=0,
        max_value=BALL_SET_MAX_GAMES - 1,
        initial=0,
        help_text=_("A set draws at most 2 000 games (R25): count those it drew before."),
    )
    notes = forms.CharField(label=_("Notes"), required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def save(self, *, hall: Hall, user: User) -> BallSet:
        """Register the set; service errors become form errors."""
        with service_errors_on(self):
            return services.ball_set_create(hall=hall, user=user, **self.cleaned_data)


class _OfBallSetForm(forms.Form):
    """What happened to one ball set (a check, a ball or the set replaced), perhaps during a
    session: the subclass's ``session`` field offers the sessions of the set's hall."""

    def __init__(self, *args: Any, ball_set: BallSet, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ball_set = ball_set
        self.fields["session"].queryset = selectors.session_list_of_hall(hall_id=ball_set.hall_id)  # type: ignore[attr-defined]


class BallSetCheckForm(_OfBallSetForm):
    """The check of every ball at the start or the end of a session (R23)."""

    session = SessionChoiceField(label=_("Session"), queryset=Session.objects.none())
    phase = forms.ChoiceField(
        label=_("When"), choices=BallSetCheck.Phase.choices, widget=forms.RadioSelect, initial="start"
    )
    faulty_balls = BallListField(
        label=_("Faulty balls"),
        required=False,
        help_text=_("The numbers of the balls that failed, separated by commas. Blank: every ball OK."),
    )
    notes = forms.CharField(label=_("Notes"), required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def save(self, *, user: User) -> BallSetCheck:
        """Record the check; service errors become form errors."""
        with service_errors_on(self):
            return services.ball_set_check_record(ball_set=self.ball_set, user=user, **self.cleaned_data)


class BallReplaceForm(_OfBallSetForm):
    """One damaged ball replaced by a new one with the same number (R26)."""

    ball_number = forms.IntegerField(
        label=_("Ball number"),
        min_value=1,
        max_value=max(BALL_SET_SIZES),
        error_messages={"max_value": _("The balls of a set are numbered 1 to %(limit_value)s at most.")},
    )
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 2}))
    session = _during_session()
    repeat_reason = forms.CharField(
        label=_("Why again"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Only when this ball was already replaced in the same session: the acta flags it (R26)."),
    )

    def save(self, *, user: User) -> BallReplacement:
        """Record the replaced ball; service errors become form errors."""
        with service_errors_on(self):
            return services.ball_replace(ball_set=self.ball_set, user=user, **self.cleaned_data)


class BallSetReplaceForm(_OfBallSetForm):
    """The whole set replaced by another active set of the same hall and size (R25)."""

    replacement = forms.ModelChoiceField(label=_("Replacement set"), queryset=BallSet.objects.none())
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 2}))
    session = _during_session()

    def __init__(self, *args: Any, ball_set: BallSet, **kwargs: Any) -> None:
        super().__init__(*args, ball_set=ball_set, **kwargs)
        self.fields["replacement"].queryset = (  # type: ignore[attr-defined]
            BallSet.objects.filter(hall_id=ball_set.hall_id, size=ball_set.size, state=BallSet.State.ACTIVE)
            .exclude(pk=ball_set.pk)
            .order_by("serial_number")
        )

    def save(self, *, user: User) -> BallReplacement:
        """Record the replaced set; service errors become form errors."""
        with service_errors_on(self):
            return services.ball_set_replace(ball_set=self.ball_set, user=user, **self.cleaned_data)


class BallSetRetireForm(forms.Form):
    """Take a set out of use for good (R25)."""

    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 2}))

    def save(self, *, ball_set: BallSet, user: User) -> BallSet:
        """Retire the set; service errors become form errors."""
        with service_errors_on(self):
            return services.ball_set_retire(ball_set=ball_set, user=user, **self.cleaned_data)
