"""The forms that record a note in the acta (R61 j), l), m)): they parse, ``acta_note_record``
decides, and its refusals show on the form."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from actas import selectors, services
from actas.models import ActaNote
from bingo.common.forms import service_errors_on
from bingo.models import Game, Session

#: The longest text or decision a note takes: a paragraph or two, not a report.
NOTE_MAX_LENGTH = 2000

#: What a person records by hand, as the form names it.
KIND_CHOICES = [
    (ActaNote.Kind.COMPLAINT.value, _("Player's complaint")),
    (ActaNote.Kind.EQUIPMENT_FAILURE.value, _("Equipment failure")),
    (ActaNote.Kind.OCCURRENCE.value, _("Occurrence that may involve an offence")),
]


class GameChoiceField(forms.ModelChoiceField):  # type: ignore[type-arg]
    def label_from_instance(self, obj: Game) -> str:
        return str(_("Game %(n)d") % {"n": obj.number})


class NoteForm(forms.Form):
    """A complaint, an equipment failure or an occurrence, with what was decided or done, about one
    game of the session or the session as a whole."""

    kind = forms.ChoiceField(label=_("Kind"), choices=KIND_CHOICES, initial=ActaNote.Kind.COMPLAINT.value)
    text = forms.CharField(
        label=_("What happened"),
        max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    decision = forms.CharField(
        label=_("Decision or measure taken"),
        max_length=NOTE_MAX_LENGTH,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("A complaint recorded without a decision stays pending until one is recorded."),
    )
    game = GameChoiceField(
        label=_("Game"),
        queryset=Game.objects.none(),
        required=False,
        empty_label=_("The session as a whole"),
    )

    def __init__(self, *args: Any, session: Session, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "note_%s")
        super().__init__(*args, **kwargs)
        self.session = session
        self.fields["game"].queryset = Game.objects.filter(session=session).order_by("number")  # type: ignore[attr-defined]

    def save(self, *, user: User) -> ActaNote:
        """Record the note; a refusal of the service lands on the form and is raised again."""
        data = self.cleaned_data
        with service_errors_on(self):
            return services.acta_note_record(
                session=self.session,
                kind=data["kind"],
                user=user,
                text=data["text"],
                decision=data["decision"],
                game=data["game"],
            )


class DecisionForm(forms.Form):
    """The decision taken later on a complaint of the session (R61 j)): a note of its own."""

    refers_to = forms.ModelChoiceField(
        label=_("Complaint"), queryset=ActaNote.objects.none(), widget=forms.HiddenInput
    )
    decision = forms.CharField(label=_("Decision taken"), max_length=NOTE_MAX_LENGTH)

    def __init__(
        self, *args: Any, session: Session, complaint: ActaNote | None = None, **kwargs: Any
    ) -> None:
        if complaint is not None:
            kwargs.setdefault("initial", {"refers_to": complaint.pk})
            kwargs.setdefault("auto_id", f"decision_{complaint.pk}_%s")
        super().__init__(*args, **kwargs)
        self.session = session
        # A complaint of another session is as unknown here as one that is not there.
        self.fields["refers_to"].queryset = selectors.acta_note_list(session=session).filter(  # type: ignore[attr-defined]
            kind=ActaNote.Kind.COMPLAINT
        )

    def save(self, *, user: User) -> ActaNote:
        """Record the decision; a refusal of the service lands on the form and is raised again."""
        data = self.cleaned_data
        with service_errors_on(self):
            return services.acta_note_record(
                session=self.session,
                kind=ActaNote.Kind.DECISION,
                user=user,
                decision=data["decision"],
                refers_to=data["refers_to"],
                game=data["refers_to"].game,
            )
