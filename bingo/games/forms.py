"""Forms of the session and game screens: they parse input; the services decide (STYLE rule 3)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.clock import hall_zone
from bingo.common.forms import (
    DATETIME_INPUT,
    BallListField,
    DateTimeLocalInput,
    WallClockField,
    in_hall_time,
    service_errors_on,
)
from bingo.common.patterns import PatternCellsField, PatternPickerMixin, pattern_choices
from bingo.engine import Variant
from bingo.engine.prizes import PrizeKind
from bingo.games import services
from bingo.models import Game, OnlineRoom, Session
from cards.models import VARIANT_CHOICES, Series
from halls.models import BallSet, Room

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class RoomChoiceField(forms.ModelChoiceField):  # type: ignore[type-arg]
    """A choice of room, named with its hall."""

    def label_from_instance(self, obj: Room) -> str:
        return f"{obj.hall.name} · {obj.name}"


class SessionForm(forms.Form):
    """A new session: the room, when it starts and when it is scheduled to end, in the time
    zone of the room's hall (SPEC: times are in the hall's time zone)."""

    room = RoomChoiceField(label=_("Room"), queryset=Room.objects.none())
    starts_at = WallClockField(
        label=_("Starts at"),
        input_formats=[DATETIME_INPUT],
        widget=DateTimeLocalInput(),
        help_text=_("On the clock of the room's hall (its time zone)."),
    )
    scheduled_end = WallClockField(
        label=_("Scheduled end"), input_formats=[DATETIME_INPUT], widget=DateTimeLocalInput()
    )
    jackpot_balls = forms.IntegerField(
        label=_("Jackpot within balls (R9)"),
        required=False,
        min_value=1,
        max_value=90,
        help_text=_("With the hall's jackpot active: a bingo within this many balls wins it. Announced now."),
    )

    def __init__(self, *args: Any, rooms: QuerySet[Room], **kwargs: Any) -> None:
        """``rooms``: the rooms offered, those of the halls the user manages."""
        if "initial" not in kwargs:
            # Now on the hall's clock when every room offered is in one time zone.
            zones = set(rooms.order_by().values_list("hall__time_zone", flat=True).distinct())
            zone = hall_zone(zones.pop()) if len(zones) == 1 else timezone.get_current_timezone()
            start = timezone.localtime(timezone=zone).replace(second=0, microsecond=0, tzinfo=None)
            kwargs["initial"] = {"starts_at": start, "scheduled_end": start + timedelta(hours=4)}
        super().__init__(*args, **kwargs)
        field = self.fields["room"]
        assert isinstance(field, RoomChoiceField)
        field.queryset = rooms

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        room: Room | None = data.get("room")
        if room is not None:
            zone = hall_zone(room.hall)
            for name in ("starts_at", "scheduled_end"):
                if data.get(name) is not None:
                    try:
                        data[name] = in_hall_time(data[name], zone)
                    except ValidationError as exc:
                        self.add_error(name, exc)
        return data

    def save(self, *, user: User) -> Session:
        """Open the session; service errors become form errors (then re-raised)."""
        data = self.cleaned_data
        with service_errors_on(self):
            return services.session_open(
                room=data["room"],
                starts_at=data["starts_at"],
                scheduled_end=data["scheduled_end"],
                user=user,
                jackpot_balls=data.get("jackpot_balls"),
            )


def _share_field(label: StrOrPromise, help_text: StrOrPromise) -> forms.DecimalField:
    """A prize's share of sales in percent, 0 to 100 with two decimals; blank: the plan's own."""
    return forms.DecimalField(
        label=label,
        required=False,
        min_value=0,
        max_value=100,
        max_digits=5,
        decimal_places=2,
        help_text=help_text,
    )


class GameForm(PatternPickerMixin, forms.Form):
    """A new game: its variant and prize plan, the variant's default or line and bingo shares (R7)."""

    PLAN_DEFAULT = "default"
    PLAN_CUSTOM = "custom"

    variant = forms.ChoiceField(label=_("Variant"), choices=VARIANT_CHOICES, initial=Variant.B90.value)
    plan = forms.ChoiceField(
        label=_("Prize plan"),
        choices=[
            (PLAN_DEFAULT, _("The regulation's plan: line 20%, bingo 60% of sales")),
            (PLAN_CUSTOM, _("Other shares")),
        ],
        initial=PLAN_DEFAULT,
        widget=forms.RadioSelect,
    )
    line_share = _share_field(_("Line prize (% of sales)"), _("Blank or 0: no line prize."))
    bingo_share = _share_field(
        _("Bingo prize (% of sales)"),
        _("The prizes total 80% of sales, and the bingo never gets below 55% (R7)."),
    )
    line_kinds = forms.MultipleChoiceField(
        label=_("Lines that win the line prize (R67, R75)"),
        choices=[("row", _("Rows")), ("column", _("Columns")), ("diagonal", _("Diagonals"))],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None ticked: every kind of line the variant has (90-ball: rows only)."),
    )
    pattern = forms.ChoiceField(
        label=_("75-ball bingo (R73)"),
        choices=pattern_choices(),
        required=False,
        widget=forms.RadioSelect,
        help_text=_(
            "A pattern (R73 b)) is the game's only prize: choose «Other shares» with the bingo alone "
            "(R74). A bingo within a number of balls is the jackpot's (R9), set on the session."
        ),
    )
    custom_cells = PatternCellsField(
        label=_("Custom pattern (R73 b))"),
        required=False,
        help_text=_("Tick the cells of the pattern; the free centre counts as marked (R72)."),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("plan") == self.PLAN_CUSTOM and data.get("bingo_share") is None:
            self.add_error("bingo_share", _("Give the bingo prize's share of sales."))
        self.pattern_cells_check(data)
        return data

    def prize_plan(self) -> dict[str, str] | None:
        """The plan for ``game_create``: None for the variant's default, else the shares given."""
        data = self.cleaned_data
        if data["plan"] == self.PLAN_DEFAULT:
            return None
        plan: dict[str, str] = {}
        line: Decimal | None = data.get("line_share")
        if line:
            plan[PrizeKind.LINE.value] = str(line)
        plan[PrizeKind.BINGO.value] = str(data["bingo_share"])
        return plan

    def save(self, *, session: Session) -> Game:
        """Add the game; the service refuses a plan breaking R7, and its message goes on the form."""
        with service_errors_on(self):
            data = self.cleaned_data
            return services.game_create(
                session=session,
                variant=data["variant"],
                prize_plan=self.prize_plan(),
                line_kinds=data.get("line_kinds") or None,
                pattern_key=data.get("pattern") or None,
                pattern=data.get("custom_cells") or None,
            )


class SeriesChoiceField(forms.ModelChoiceField):  # type: ignore[type-arg]
    """A choice of series, with its price, sales cursor and size."""

    def label_from_instance(self, obj: Series) -> str:
        return f"{obj.label} · {obj.price} {obj.hall.currency} · {obj.last_sold}/{obj.size}"


class OpenSalesForm(forms.Form):
    """The series to put on sale: the first, and optionally a second of the same price (R38)."""

    first = SeriesChoiceField(label=_("Series to put on sale"), queryset=Series.objects.none())
    second = SeriesChoiceField(
        label=_("Second series (optional)"),
        queryset=Series.objects.none(),
        required=False,
        help_text=_("Of the same price: the sale continues in it when the first runs out (R38)."),
    )

    def __init__(self, *args: Any, game: Game, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game
        # Offer the hall's series that could be sold; the service still decides (R38). A hall
        # game sells only hall series, an online room's game only online ones (R85).
        online = OnlineRoom.serves(game.session.room_id)
        choices = (
            Series.objects.filter(hall=game.session.room.hall, card_set__variant=game.variant, online=online)
            .exclude(status__in=[Series.Status.RETIRED, Series.Status.EXHAUSTED])
            .select_related("hall")
            .order_by("order_number")
        )
        self.fields["first"].queryset = choices  # type: ignore[attr-defined]
        self.fields["second"].queryset = choices  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("first") and data.get("second") and data["first"] == data["second"]:
            self.add_error("second", _("Choose a different series to continue in."))
        return data

    def save(self, user: User | None = None) -> Game:
        """Open the sales as ``user``; service errors become form errors (then re-raised)."""
        chosen = [self.cleaned_data["first"]]
        if self.cleaned_data.get("second"):
            chosen.append(self.cleaned_data["second"])
        with service_errors_on(self):
            return services.game_open_sales(game=self.game, series=chosen, user=user)


class SessionCloseForm(forms.Form):
    """Close a session (R61 h)). R23: for each ball set whose end-of-session check it still
    awaits, the check made now — every ball OK, or the balls that failed — or, for the sets left
    unchecked, why it could not be made (an occurrence in the acta, R61 m))."""

    missing_check_reason = forms.CharField(
        label=_("Why the check could not be made"),
        required=False,
        max_length=bounds.REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_(
            "Only for the ball sets not checked now: the reason is written in the acta as an "
            "occurrence (R23)."
        ),
    )

    def __init__(self, *args: Any, ball_sets: Iterable[BallSet], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ball_sets = list(ball_sets)
        for ball_set in self.ball_sets:
            self.fields[f"check-{ball_set.pk}"] = forms.ChoiceField(
                label=_("Ball set %(serial)s (%(size)d balls)")
                % {"serial": ball_set.serial_number, "size": ball_set.size},
                choices=[
                    ("ok", _("Checked now: every ball OK")),
                    ("faulty", _("Checked now: some balls failed")),
                ],
                widget=forms.RadioSelect,
                required=False,
            )
            self.fields[f"faulty-{ball_set.pk}"] = BallListField(
                label=_("Faulty balls"),
                required=False,
                help_text=_("The numbers of the balls that failed, separated by commas."),
            )

    def rows(self) -> list[tuple[BallSet, forms.BoundField, forms.BoundField]]:
        """Each awaited set with its two fields, for the template."""
        return [(s, self[f"check-{s.pk}"], self[f"faulty-{s.pk}"]) for s in self.ball_sets]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        checks: dict[int, list[int]] = {}
        for ball_set in self.ball_sets:
            outcome = cleaned.get(f"check-{ball_set.pk}")
            balls = cleaned.get(f"faulty-{ball_set.pk}")
            if not outcome or balls is None:  # none chosen, or the list refused on its field
                continue
            if outcome == "faulty" and not balls:
                self.add_error(f"faulty-{ball_set.pk}", _("Name the balls that failed."))
                continue
            if outcome == "ok" and balls:
                self.add_error(
                    f"faulty-{ball_set.pk}", _("Every ball OK names no faulty ball: choose one or the other.")
                )
                continue
            checks[ball_set.pk] = balls if outcome == "faulty" else []
        cleaned["end_checks"] = checks
        return cleaned

    def save(self, *, session: Session, user: User) -> Session:
        """Close the session; service errors become form errors."""
        with service_errors_on(self):
            return services.session_close(
                session=session,
                user=user,
                end_checks=self.cleaned_data["end_checks"],
                missing_check_reason=self.cleaned_data["missing_check_reason"],
            )
