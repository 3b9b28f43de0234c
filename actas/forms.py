"""The inspector's filters of the audit trail: hall, person, dates (a GET form, nothing saved)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from halls.models import Hall


class PersonChoiceField(forms.ModelChoiceField):  # type: ignore[type-arg]
    def label_from_instance(self, obj: Any) -> str:
        full = obj.get_full_name()
        return f"{full} ({obj.username})" if full else str(obj.username)


class AuditFilterForm(forms.Form):
    """Which actions to show: of one hall (or every hall the reader sees), one person, between two
    days (both included, on the site's clock)."""

    sala = forms.ModelChoiceField(label=_("Hall"), queryset=Hall.objects.none(), required=False)
    pessoa = PersonChoiceField(label=_("Person"), queryset=User.objects.none(), required=False)
    desde = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    ate = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args: Any, halls: QuerySet[Hall], people: QuerySet[User], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["sala"].queryset = halls  # type: ignore[attr-defined]
        self.fields["pessoa"].queryset = people  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("desde") and data.get("ate") and data["ate"] < data["desde"]:
            self.add_error("ate", _("The last day comes after the first."))
        return data

    def since(self) -> datetime | None:
        day = self.cleaned_data.get("desde")
        return timezone.make_aware(datetime.combine(day, time.min)) if day else None

    def until(self) -> datetime | None:
        day = self.cleaned_data.get("ate")
        return timezone.make_aware(datetime.combine(day + timedelta(days=1), time.min)) if day else None
