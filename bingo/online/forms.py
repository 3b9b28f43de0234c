"""Forms of online play: an online room's setup and a session's schedule (managers), buying
cards and the marking (players). Each ``save`` calls one service and shows its refusals on
the fields."""

from __future__ import annotations

import re
import secrets
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.clock import hall_zone
from bingo.common.forms import (
    DATETIME_INPUT,
    KEY_ERRORS,
    DateTimeLocalInput,
    WallClockField,
    in_hall_time,
    service_errors_on,
)
from bingo.common.patterns import PatternCellsField, PatternPickerMixin, pattern_choices
from bingo.engine.prizes import PrizeKind
from bingo.models import Marking, OnlineRoom, RoomMode, Session
from bingo.online import services
from bingo.online.selectors import STRIP_CARDS, OrderTerms
from cards.models import VARIANT_CHOICES
from halls.models import Hall

_PLAN_PART = re.compile(r"^\s*([a-z_]+)\s*[=:]\s*([0-9]+(?:[.,][0-9]+)?)\s*%?\s*$")
#: The prizes' names in a plan as a Portuguese operator writes them (issue 25), beside the codes.
PLAN_WORDS = {"linha": "line", "bingo": "bingo", "quatro_cantos": "four_corners", "coluna": "column"}


def plan_parse(text: str) -> dict[str, str] | None:
    """``"line=20, bingo=60"`` as a prize plan (shares of sales in percent); None when blank
    (the variant's default). ValidationError when it does not read."""
    text = (text or "").strip()
    if not text:
        return None
    plan: dict[str, str] = {}
    for part in re.split(r"[;,]\s*(?=[a-z_])", text):
        match = _PLAN_PART.match(part.lower())
        kind = PLAN_WORDS.get(match.group(1), match.group(1)) if match else None
        if match is None or kind not in PrizeKind._value2member_map_:
            raise ValidationError(
                _("Write the plan as prize=percent, e.g. line=20, bingo=60 (prizes: %(kinds)s).")
                % {"kinds": ", ".join(_plan_words())}
            )
        plan[str(kind)] = match.group(2).replace(",", ".")
    return plan


def _plan_words() -> list[str]:
    """The prizes' names a plan is written with, in the language of the page."""
    if (get_language() or "").startswith("pt"):
        return list(PLAN_WORDS)
    return [kind.value for kind in PrizeKind]


def plan_text(plan: dict[str, str] | None) -> str:
    """A plan as its form shows it: «linha=20, bingo=60» on a Portuguese page."""
    words = (
        {code: word for word, code in PLAN_WORDS.items()} if (get_language() or "").startswith("pt") else {}
    )
    return ", ".join(f"{words.get(kind, kind)}={share}" for kind, share in (plan or {}).items())


def _ticked(drawn: str | None) -> list[str]:
    """A custom figure's cells (rows of X and .) as the grid's checkboxes ticked, "row,column"."""
    rows = (drawn or "").split("/") if drawn else []
    return [f"{r},{c}" for r, row in enumerate(rows) for c, mark in enumerate(row) if mark == "X"]


def _interval_check(value: Decimal | None) -> Decimal | None:
    if value is not None and value < 1:
        raise ValidationError(
            _("Balls are drawn at least one second apart (R88): %(s)s s is too fast.") % {"s": value}
        )
    return value


class OnlineRoomForm(PatternPickerMixin, forms.Form):
    """An online room's setup (R88-R93), with the pattern its 75-ball games' bingo is, chosen
    with the game form's picker (R73 b)). ``hall`` only when the room is new."""

    hall = forms.ModelChoiceField(label=_("Hall"), queryset=Hall.objects.none(), empty_label=None)
    name = forms.CharField(label=_("Name"), max_length=80)
    mode = forms.ChoiceField(label=_("Mode"), choices=RoomMode.choices, widget=forms.RadioSelect)
    ball_interval = forms.DecimalField(
        label=_("Seconds between balls (R88)"),
        max_digits=5,
        decimal_places=2,
        max_value=bounds.BALL_INTERVAL_MAX,
        initial=Decimal("4"),
        help_text=_("Never under one second (R88)."),
        widget=forms.NumberInput(attrs={"step": "0.5", "inputmode": "decimal"}),
    )
    sales_seconds = forms.IntegerField(
        label=_("Sales window (seconds)"),
        min_value=bounds.SALES_SECONDS_MIN,
        max_value=bounds.SALES_SECONDS_MAX,
        initial=60,
        help_text=_("Continuous mode: how long each game sells cards, whatever the number of players (R90)."),
    )
    pause_seconds = forms.IntegerField(
        label=_("Pause between games (seconds)"),
        min_value=0,
        max_value=bounds.PAUSE_SECONDS_MAX,
        initial=10,
        help_text=_("Continuous mode."),
    )
    sales_after_first_seconds = forms.IntegerField(
        label=_("Minimum sales time after the first purchase (seconds)"),
        min_value=0,
        max_value=bounds.SALES_AFTER_FIRST_SECONDS_MAX,
        initial=30,
        required=False,
        help_text=_(
            "Continuous mode: a game's sales stay open at least this long after its first card is "
            "bought, so other players have time to join (0: the sales window alone decides)."
        ),
    )
    variant = forms.ChoiceField(label=_("Variant"), choices=VARIANT_CHOICES, initial="90")
    strips = forms.BooleanField(
        label=_("Sell strips of six"),
        required=False,
        help_text=_(
            "90-ball only: players buy whole strips, six cards holding every number from 1 to 90 "
            "once, from online series whose card set was generated as strips."
        ),
    )
    prize_plan = forms.CharField(
        label=_("Prize plan"),
        required=False,
        help_text=_(
            "Continuous mode: shares of sales in percent, e.g. line=20, bingo=60 (R7); "
            "blank: the variant's default."
        ),
    )
    pattern = forms.ChoiceField(
        label=_("75-ball bingo (R73)"),
        choices=pattern_choices(),
        required=False,
        widget=forms.RadioSelect,
        help_text=_(
            "75-ball rooms: the bingo of every game created from now on; a game already created "
            "keeps its own (R36, R93). A pattern (R73 b)) is the game's only prize: write the plan "
            "as bingo=80 (R74); a session's 75-ball games given no plan take the room's."
        ),
    )
    custom_cells = PatternCellsField(
        label=_("Custom pattern (R73 b))"),
        required=False,
        help_text=_("Tick the cells of the pattern; the free centre counts as marked (R72)."),
    )
    active = forms.BooleanField(label=_("Open to players"), required=False, initial=True)

    def __init__(
        self, *args: Any, halls: QuerySet[Hall] | None = None, room: OnlineRoom | None = None, **kwargs: Any
    ) -> None:
        if room is not None:
            pattern_key, drawn = room.pattern_choice()
            kwargs.setdefault(
                "initial",
                {
                    "name": room.room.name,
                    "mode": room.mode,
                    "ball_interval": room.ball_interval,
                    "sales_seconds": room.sales_seconds,
                    "pause_seconds": room.pause_seconds,
                    "sales_after_first_seconds": room.sales_after_first_seconds,
                    "variant": room.variant,
                    "strips": room.strips,
                    "prize_plan": plan_text(room.prize_plan),
                    "pattern": pattern_key or "",
                    "custom_cells": _ticked(drawn),
                    "active": room.active,
                },
            )
        super().__init__(*args, **kwargs)
        self.room = room
        if room is not None or halls is None:
            del self.fields["hall"]
        else:
            field = self.fields["hall"]
            assert isinstance(field, forms.ModelChoiceField)
            field.queryset = halls.order_by("name")

    def clean_ball_interval(self) -> Decimal | None:
        return _interval_check(self.cleaned_data.get("ball_interval"))

    def clean_prize_plan(self) -> dict[str, str] | None:
        return plan_parse(self.cleaned_data.get("prize_plan", ""))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        self.pattern_cells_check(data)
        return data

    def save(self) -> OnlineRoom:
        data = dict(self.cleaned_data)
        data["pattern"] = data.get("pattern") or None
        data["custom_pattern"] = data.pop("custom_cells", None) or None
        if data.get("sales_after_first_seconds") is None:
            data.pop("sales_after_first_seconds", None)  # blank: as it was (0 for a new room)
        with service_errors_on(self):
            if self.room is None:
                return services.online_room_create(**data)
            return services.online_room_update(online_room=self.room, **data)


class SessionScheduleForm(forms.Form):
    """A session of a session-mode room (R91-R93): when it starts (sales open for every game),
    when sales close for every game together, when it ends, and its games, one a line."""

    # On the clock of the room's hall, as a hall session's times (bingo/games/forms.py): sales
    # open and close (R93) at the hall's hour, whatever the server's time zone.
    starts_at = WallClockField(
        label=_("Starts (sales open) at"),
        input_formats=[DATETIME_INPUT],
        widget=DateTimeLocalInput(),
        help_text=_("On the clock of the room's hall (its time zone)."),
    )
    sales_close_at = WallClockField(
        label=_("Sales close for every game at (R93)"),
        input_formats=[DATETIME_INPUT],
        widget=DateTimeLocalInput(),
    )
    scheduled_end = WallClockField(
        label=_("Ends at"), input_formats=[DATETIME_INPUT], widget=DateTimeLocalInput()
    )
    ball_interval = forms.DecimalField(
        label=_("Seconds between balls (R88)"),
        max_digits=5,
        decimal_places=2,
        max_value=bounds.BALL_INTERVAL_MAX,
        required=False,
        help_text=_("Blank: the room's. Never under one second (R88)."),
    )
    games = forms.CharField(
        label=_("Games"),
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_(
            "One game a line: variant; card price; prize plan (optional), e.g. "
            "«90; 10.00; line=20, bingo=60». Several variants and prices at once (R92)."
        ),
    )

    def __init__(self, *args: Any, room: OnlineRoom, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.room = room

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        zone = hall_zone(self.room.room.hall)
        for name in ("starts_at", "sales_close_at", "scheduled_end"):
            if data.get(name) is not None:
                try:
                    data[name] = in_hall_time(data[name], zone)
                except ValidationError as exc:
                    self.add_error(name, exc)
        return data

    def clean_ball_interval(self) -> Decimal | None:
        return _interval_check(self.cleaned_data.get("ball_interval"))

    def clean_games(self) -> list[services.SessionGame]:
        games = []
        variants = {value for value, _label in VARIANT_CHOICES}
        for n, line in enumerate(self.cleaned_data.get("games", "").splitlines(), start=1):
            if not line.strip():
                continue
            parts = [p.strip() for p in line.split(";")]
            if len(parts) < 2 or parts[0] not in variants:
                raise ValidationError(
                    _("Line %(n)d: write the variant (%(variants)s) and the card price, separated by «;».")
                    % {"n": n, "variants": ", ".join(sorted(variants))}
                )
            try:
                price = Decimal(parts[1].replace(",", "."))
            except InvalidOperation:
                raise ValidationError(_("Line %(n)d: the card price must be an amount.") % {"n": n}) from None
            games.append(services.SessionGame(parts[0], price, plan_parse(";".join(parts[2:]))))
        if not games:
            raise ValidationError(_("A session has at least one game."))
        if len(games) > bounds.SESSION_MAX_GAMES:
            raise ValidationError(
                _("A session has at most %(n)d games (R92).") % {"n": bounds.SESSION_MAX_GAMES}
            )
        return games

    def save(self, *, user: User) -> Session:
        data = self.cleaned_data
        with service_errors_on(self):
            return services.online_session_schedule(
                online_room=self.room,
                starts_at=data["starts_at"],
                sales_close_at=data["sales_close_at"],
                scheduled_end=data["scheduled_end"],
                games=data["games"],
                ball_interval=data["ball_interval"],
                user=user,
            )


def _count_field(label: Any, most: int, initial: int, missing: Any) -> forms.IntegerField:
    """A count from 1 to ``most`` a player types; ``missing`` says what to give when it is not."""
    return forms.IntegerField(
        label=label,
        min_value=1,
        max_value=most,
        initial=initial,
        error_messages={"required": missing, "invalid": missing},
    )


class BuyForm(forms.Form):
    """Cards to buy, and the purchase's key: a page renders a new one, so the same form sent
    twice buys once."""

    quantity = _count_field(_("Cards"), bounds.SALE_MAX_CARDS, 1, _("Say how many cards to buy."))
    key = forms.CharField(widget=forms.HiddenInput, max_length=services.KEY_MAX, error_messages=KEY_ERRORS)

    def __init__(self, *args: Any, strips: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {"quantity": 1, "key": secrets.token_urlsafe(18)})
        super().__init__(*args, **kwargs)
        self.strips = strips
        if strips:
            self.fields["quantity"].label = _("Strips of six")

    def cards(self) -> int:
        """The cards asked for: in a room selling strips the player counts strips of six."""
        quantity: int = self.cleaned_data["quantity"]
        return quantity * STRIP_CARDS if self.strips else quantity


class BuyAheadForm(BuyForm):
    """Cards (or strips) in each of a room's next games, in one action; its key names each game's
    purchase and the standing order for the games not selling yet (``services.online_buy_ahead``).
    Each room's form has a key of its own, and carries the card price and variant the lobby showed
    for the room's next games (``terms``): the order pins them, and is refused if they changed."""

    games = _count_field(_("Games"), bounds.BUY_AHEAD_GAMES_MAX, 2, _("Say for how many games."))
    key = forms.CharField(
        widget=forms.HiddenInput, max_length=services.AHEAD_KEY_MAX, error_messages=KEY_ERRORS
    )
    price = forms.DecimalField(
        widget=forms.HiddenInput, required=False, max_digits=12, decimal_places=2, min_value=Decimal("0.01")
    )
    variant = forms.ChoiceField(widget=forms.HiddenInput, required=False, choices=VARIANT_CHOICES)

    def __init__(
        self, *args: Any, strips: bool = False, terms: OrderTerms | None = None, **kwargs: Any
    ) -> None:
        initial: dict[str, Any] = {"quantity": 1, "games": 2, "key": secrets.token_urlsafe(15)}
        if terms is not None:
            initial.update(price=terms.price, variant=terms.variant)
        kwargs.setdefault("initial", initial)
        super().__init__(*args, strips=strips, **kwargs)

    def seen(self) -> dict[str, Any]:
        """The card price and variant the player saw (None each when the page carried none)."""
        return {
            "price": self.cleaned_data.get("price"),
            "variant": self.cleaned_data.get("variant") or None,
        }


class MarkingForm(forms.Form):
    """Automatic marking or by hand (R96)."""

    marking = forms.ChoiceField(label=_("Marking"), choices=Marking.choices)
