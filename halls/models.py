"""Halls, their rooms and cash desks, and who works where in which role."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.common.roles import Role


class Hall(models.Model):
    """A licensed bingo hall: the operator's unit that owns series, rooms, desks and ball sets."""

    name = models.CharField(_("name"), max_length=120, unique=True)
    currency = models.CharField(_("currency"), max_length=3, default="CVE")
    time_zone = models.CharField(_("time zone"), max_length=64, default="Atlantic/Cape_Verde")
    # The hall is run under a concession by an operator (the regulation speaks of «salas de jogo
    # concessionadas», R17, without asking for more): receipts and payout slips name both, so
    # a player knows who paid. Blank until the manager fills them in.
    operator_name = models.CharField(_("operator (concession holder)"), max_length=160, blank=True)
    licence_number = models.CharField(_("concession or licence n.º"), max_length=60, blank=True)
    # R35: the regulator may cap the cards one player buys in a game; blank = no cap.
    card_limit_per_player = models.PositiveIntegerField(
        _("cards per player and game (R35)"), null=True, blank=True
    )
    # Tax withheld on prizes (R61 g): a rate applied to a prize above the threshold.
    tax_rate = models.DecimalField(
        _("tax on prizes (%)"), max_digits=5, decimal_places=2, default=Decimal("0")
    )
    tax_threshold = models.DecimalField(
        _("prizes taxed from"), max_digits=12, decimal_places=2, default=Decimal("0")
    )
    # R9-R10: with a progressive jackpot authorized, 3% of each game's prize money goes to it.
    jackpot_active = models.BooleanField(_("progressive jackpot active (R9)"), default=False)
    # R101: after a play session ended by the player's own time limit, how long they may not log
    # in nor buy again (0: at once, as before). The operator's setting (bingo/playtime).
    play_cooloff_minutes = models.PositiveIntegerField(
        _("mandatory break after the session time limit (minutes)"), default=0
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("hall")
        verbose_name_plural = _("halls")
        ordering = ("name",)
        constraints = [
            models.CheckConstraint(
                condition=Q(tax_rate__gte=0, tax_rate__lte=100), name="hall_tax_rate_percent"
            ),
            models.CheckConstraint(condition=Q(tax_threshold__gte=0), name="hall_tax_threshold_not_negative"),
            models.CheckConstraint(
                condition=Q(card_limit_per_player__isnull=True) | Q(card_limit_per_player__gt=0),
                name="hall_card_limit_positive",
            ),
            # Bounds of what the manager sets (bingo.common.bounds).
            models.CheckConstraint(
                condition=Q(card_limit_per_player__isnull=True)
                | Q(card_limit_per_player__lte=bounds.CARD_LIMIT_MAX),
                name="hall_card_limit_at_most_max",
            ),
            models.CheckConstraint(
                condition=Q(tax_threshold__lte=bounds.AMOUNT_MAX), name="hall_tax_threshold_at_most_max"
            ),
            models.CheckConstraint(
                condition=Q(play_cooloff_minutes__lte=bounds.PLAY_COOLOFF_MINUTES_MAX),
                name="hall_play_cooloff_at_most_max",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Room(models.Model):
    """A room of a hall where sessions are played."""

    hall = models.ForeignKey(Hall, verbose_name=_("hall"), on_delete=models.PROTECT, related_name="rooms")
    name = models.CharField(_("name"), max_length=80)

    class Meta:
        verbose_name = _("room")
        verbose_name_plural = _("rooms")
        ordering = ("hall", "name")
        constraints = [models.UniqueConstraint(fields=["hall", "name"], name="room_name_unique_in_hall")]

    def __str__(self) -> str:
        return f"{self.hall} · {self.name}"


class CashDesk(models.Model):
    """A cash desk of a hall: every sale and payment records the desk it went through (R39)."""

    hall = models.ForeignKey(
        Hall, verbose_name=_("hall"), on_delete=models.PROTECT, related_name="cash_desks"
    )
    name = models.CharField(_("name"), max_length=80)

    class Meta:
        verbose_name = _("cash desk")
        verbose_name_plural = _("cash desks")
        ordering = ("hall", "name")
        constraints = [models.UniqueConstraint(fields=["hall", "name"], name="cash_desk_name_unique_in_hall")]

    def __str__(self) -> str:
        return f"{self.hall} · {self.name}"


class StaffMembership(models.Model):
    """A person's role in one hall: a cashier of one hall can do nothing in another."""

    hall = models.ForeignKey(Hall, verbose_name=_("hall"), on_delete=models.CASCADE, related_name="staff")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("person"),
        on_delete=models.CASCADE,
        related_name="hall_roles",
    )
    role = models.CharField(_("role"), max_length=16, choices=Role.choices)

    class Meta:
        verbose_name = _("staff membership")
        verbose_name_plural = _("staff memberships")
        constraints = [
            models.UniqueConstraint(fields=["hall", "user", "role"], name="staff_role_once_per_hall"),
            models.CheckConstraint(condition=~Q(role="player"), name="staff_role_not_player"),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.get_role_display()} · {self.hall}"


# --- ball sets (R20-R26) ------------------------------------------------------------------------

#: The sizes a ball set comes in: one per variant (R1, R21).
BALL_SET_SIZES: tuple[int, ...] = (90, 80, 75, 30)
#: R25: no ball set draws more games than this.
BALL_SET_MAX_GAMES = 2000


class BallSet(models.Model):
    """A serialized set of balls of an approved model, belonging to a hall (R20-R22).

    It draws at most 2 000 games (R25) and retires when it reaches them; ``games_played`` moves
    only through ``ball_set_use_for_game``, one ``BallSetUse`` per game drawn.
    """

    class State(models.TextChoices):
        # Labels apart from the series' "Retired" (feminine in Portuguese).
        ACTIVE = "active", _("In use")
        RETIRED = "retired", _("Withdrawn")

    hall = models.ForeignKey(Hall, verbose_name=_("hall"), on_delete=models.PROTECT, related_name="ball_sets")
    serial_number = models.CharField(_("serial number"), max_length=40)
    size = models.PositiveSmallIntegerField(
        _("number of balls"), choices=[(size, str(size)) for size in BALL_SET_SIZES]
    )
    games_played = models.PositiveIntegerField(_("games played"), default=0)
    state = models.CharField(_("state"), max_length=8, choices=State.choices, default=State.ACTIVE)
    notes = models.TextField(_("notes"), blank=True)
    created_at = models.DateTimeField(_("registered at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    retired_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    retired_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    retired_reason = models.TextField(_("why it was retired"), blank=True)

    class Meta:
        verbose_name = _("ball set")
        verbose_name_plural = _("ball sets")
        ordering = ("hall", "serial_number")
        constraints = [
            models.UniqueConstraint(fields=["hall", "serial_number"], name="ball_set_serial_unique_in_hall"),
            models.CheckConstraint(condition=Q(size__in=BALL_SET_SIZES), name="ball_set_size_known"),
            # R25: at most 2 000 games, and a set that reached them no longer draws.
            models.CheckConstraint(
                condition=Q(games_played__gte=0, games_played__lte=BALL_SET_MAX_GAMES),
                name="ball_set_at_most_2000_games",
            ),
            models.CheckConstraint(
                condition=Q(games_played__lt=BALL_SET_MAX_GAMES) | Q(state="retired"),
                name="ball_set_retired_at_2000_games",
            ),
            models.CheckConstraint(
                condition=Q(state="active", retired_at__isnull=True)
                | Q(state="retired", retired_at__isnull=False),
                name="ball_set_retired_has_date",
            ),
            models.CheckConstraint(condition=~Q(serial_number=""), name="ball_set_serial_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.serial_number} ({self.size})"

    @property
    def games_left(self) -> int:
        """How many more games the set may draw (R25)."""
        return 0 if self.state == self.State.RETIRED else BALL_SET_MAX_GAMES - self.games_played


class BallSetUse(models.Model):
    """A game drawn with a ball set: what ``games_played`` counts (R25), and which set drew it.

    ``number`` is the set's game count after this game: unique per set and at most 2 000, so the
    schema itself refuses a 2 001st game.
    """

    ball_set = models.ForeignKey(
        BallSet, verbose_name=_("ball set"), on_delete=models.PROTECT, related_name="uses"
    )
    game = models.OneToOneField(
        "bingo.Game", verbose_name=_("game"), on_delete=models.PROTECT, related_name="ball_set_use"
    )
    number = models.PositiveIntegerField(_("game number for the set"))
    created_at = models.DateTimeField(_("used at"), auto_now_add=True)

    class Meta:
        verbose_name = _("ball set use")
        verbose_name_plural = _("ball set uses")
        ordering = ("ball_set", "number")
        constraints = [
            models.UniqueConstraint(fields=["ball_set", "number"], name="ball_set_use_number_unique"),
            models.CheckConstraint(
                condition=Q(number__gte=1, number__lte=BALL_SET_MAX_GAMES),
                name="ball_set_use_number_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ball_set} · {self.number}"


class BallSetCheck(models.Model):
    """Every ball of a set run through the mechanism at the start or the end of a session (R23).

    ``faulty_balls`` lists the numbers that failed (sorted, empty when the result is ok).
    """

    class Phase(models.TextChoices):
        START = "start", _("Start of session")
        END = "end", _("End of session")

    class Result(models.TextChoices):
        OK = "ok", _("Every ball OK")
        FAULTY = "faulty", _("Faulty balls")

    ball_set = models.ForeignKey(
        BallSet, verbose_name=_("ball set"), on_delete=models.PROTECT, related_name="checks"
    )
    session = models.ForeignKey(
        "bingo.Session", verbose_name=_("session"), on_delete=models.PROTECT, related_name="ball_set_checks"
    )
    phase = models.CharField(_("phase"), max_length=5, choices=Phase.choices)
    result = models.CharField(_("result"), max_length=6, choices=Result.choices)
    faulty_balls = models.JSONField(_("faulty balls"), default=list, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    checked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("checked by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    checked_at = models.DateTimeField(_("checked at"), auto_now_add=True)

    class Meta:
        verbose_name = _("ball set check")
        verbose_name_plural = _("ball set checks")
        ordering = ("-checked_at", "-id")
        constraints = [
            models.UniqueConstraint(
                fields=["session", "ball_set", "phase"], name="ball_set_check_once_per_phase"
            ),
            models.CheckConstraint(
                condition=Q(phase__in=["start", "end"]), name="ball_set_check_phase_known"
            ),
            models.CheckConstraint(
                condition=Q(result="ok", faulty_balls=[]) | (Q(result="faulty") & ~Q(faulty_balls=[])),
                name="ball_set_check_faulty_lists_balls",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ball_set} · {self.session} · {self.phase}"


class BallReplacement(models.Model):
    """A whole ball set replaced by another (R25), or one damaged ball of it replaced (R26).

    Exactly one of ``ball_number`` (one ball) and ``replacement_set`` (the whole set) is given.
    The acta of the session it happened in reports it (R61 k).
    """

    ball_set = models.ForeignKey(
        BallSet, verbose_name=_("ball set"), on_delete=models.PROTECT, related_name="replacements"
    )
    ball_number = models.PositiveSmallIntegerField(_("ball replaced"), null=True, blank=True)
    replacement_set = models.ForeignKey(
        BallSet,
        verbose_name=_("replacement set"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="replaced",
    )
    session = models.ForeignKey(
        "bingo.Session",
        verbose_name=_("session"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ball_replacements",
    )
    reason = models.TextField(_("reason"))
    replaced_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("replaced by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    replaced_at = models.DateTimeField(_("replaced at"), auto_now_add=True)
    #: The same ball of the same set was already replaced in this session: the last such record.
    #: Set by the service (and checked on PostgreSQL); the acta flags these (R26, R61 k).
    repeat_of = models.ForeignKey(
        "self",
        verbose_name=_("repeats"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="repeats",
    )
    #: Why the ball had to be replaced again in the same session; required for a repeat.
    repeat_reason = models.TextField(_("why again"), blank=True, default="")

    class Meta:
        verbose_name = _("ball replacement")
        verbose_name_plural = _("ball replacements")
        ordering = ("-replaced_at", "-id")
        constraints = [
            models.CheckConstraint(
                condition=Q(ball_number__isnull=False, replacement_set__isnull=True)
                | Q(ball_number__isnull=True, replacement_set__isnull=False),
                name="ball_replacement_one_ball_or_whole_set",
            ),
            # Within the largest set here; within the set's own size on PostgreSQL (a trigger).
            models.CheckConstraint(
                condition=Q(ball_number__isnull=True)
                | Q(ball_number__gte=1, ball_number__lte=max(BALL_SET_SIZES)),
                name="ball_replacement_ball_in_range",
            ),
            models.CheckConstraint(
                condition=~Q(replacement_set=F("ball_set")), name="ball_replacement_by_another_set"
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="ball_replacement_has_reason"),
            models.CheckConstraint(
                condition=Q(repeat_of__isnull=True, repeat_reason="")
                | Q(repeat_of__isnull=False, ball_number__isnull=False, session__isnull=False)
                & ~Q(repeat_reason=""),
                name="ball_replacement_repeat_has_reason",
            ),
            models.UniqueConstraint(
                fields=["ball_set"],
                condition=Q(replacement_set__isnull=False),
                name="ball_set_replaced_once",
            ),
        ]

    def __str__(self) -> str:
        what = self.ball_number if self.ball_number is not None else self.replacement_set
        return f"{self.ball_set} → {what}"

    @property
    def repeated(self) -> bool:
        """The ball was already replaced in this session: the acta flags it (R26)."""
        return self.repeat_of_id is not None


# --- the progressive jackpot (R9-R13) -----------------------------------------------------------


class Jackpot(models.Model):
    """A hall's progressive jackpot (R9-R13): its base value, balance and authorization (R12).

    Whether it runs is ``Hall.jackpot_active``. The balance moves only through the services, each
    change a ``JackpotMovement``: the balance always equals the sum of the movements.
    """

    hall = models.OneToOneField(
        Hall, verbose_name=_("hall"), on_delete=models.PROTECT, related_name="jackpot"
    )
    # R11: the value the operator adds, and puts back every time the jackpot is won.
    base_value = models.DecimalField(
        _("base value (R11)"), max_digits=12, decimal_places=2, default=Decimal("0")
    )
    balance = models.DecimalField(_("balance"), max_digits=14, decimal_places=2, default=Decimal("0"))
    # R12: the authorization fixes the form, a time limit and the conditions of the award.
    authorization_reference = models.CharField(_("authorization (R12)"), max_length=200, blank=True)
    conditions = models.TextField(_("conditions of the award (R12)"), blank=True)
    valid_until = models.DateField(_("authorized until (R12)"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("progressive jackpot")
        verbose_name_plural = _("progressive jackpots")
        constraints = [
            models.CheckConstraint(condition=Q(base_value__gte=0), name="jackpot_base_not_negative"),
            models.CheckConstraint(
                condition=Q(base_value__lte=bounds.AMOUNT_MAX), name="jackpot_base_at_most_max"
            ),
            models.CheckConstraint(condition=Q(balance__gte=0), name="jackpot_balance_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.hall} · {self.balance}"


class JackpotMovement(models.Model):
    """One change of a jackpot's balance: insert-only (a PostgreSQL trigger refuses the rest).

    The amount's sign follows the kind: a seed and a contribution add, a win takes the whole
    balance (R11), the reset puts the base value back (R11), an adjustment goes either way.
    """

    class Kind(models.TextChoices):
        SEED = "seed", _("Base value added (R11)")  # not "Seed": that is the card sets' RNG seed
        CONTRIBUTION = "contribution", _("Contribution (R10)")
        WIN = "win", _("Won (R11)")
        RESET = "reset", _("Reset to base (R11)")
        ADJUSTMENT = "adjustment", _("Adjustment")
        REVERSAL = "reversal", _("Given back: game annulled (R10, R57)")

    jackpot = models.ForeignKey(
        Jackpot, verbose_name=_("jackpot"), on_delete=models.PROTECT, related_name="movements"
    )
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    amount = models.DecimalField(_("amount"), max_digits=14, decimal_places=2)
    balance_after = models.DecimalField(_("balance after"), max_digits=14, decimal_places=2)
    game = models.ForeignKey(
        "bingo.Game",
        verbose_name=_("game"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="jackpot_movements",
    )
    note = models.TextField(_("note"), blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        verbose_name = _("jackpot movement")
        verbose_name_plural = _("jackpot movements")
        ordering = ("jackpot", "id")
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["seed", "contribution", "win", "reset", "adjustment", "reversal"]),
                name="jackpot_movement_kind_known",
            ),
            models.CheckConstraint(
                condition=Q(kind="seed", amount__gt=0)
                | Q(kind="contribution", amount__gte=0)
                | Q(kind="win", amount__lte=0)
                | Q(kind="reset", amount__gte=0)
                | (Q(kind="adjustment") & ~Q(amount=0))
                | Q(kind="reversal", amount__lte=0),
                name="jackpot_movement_sign_follows_kind",
            ),
            models.CheckConstraint(
                condition=Q(balance_after__gte=0), name="jackpot_movement_balance_not_negative"
            ),
            # The operator's own movements, as typed (bingo.common.bounds).
            models.CheckConstraint(
                condition=~Q(kind__in=["seed", "adjustment"])
                | Q(amount__gte=-bounds.AMOUNT_MAX, amount__lte=bounds.AMOUNT_MAX),
                name="jackpot_operator_movement_at_most_max",
            ),
            # The game's own movements name their game; the operator's (seed, adjustment) none.
            models.CheckConstraint(
                condition=Q(kind__in=["contribution", "win", "reset", "reversal"], game__isnull=False)
                | Q(kind__in=["seed", "adjustment"], game__isnull=True),
                name="jackpot_movement_game_when_played",
            ),
            # R10, R11: one contribution per game, and it is won (and reset) at most once per game.
            models.UniqueConstraint(
                fields=["game", "kind"],
                condition=Q(kind__in=["contribution", "win", "reset", "reversal"]),
                name="jackpot_movement_once_per_game",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.jackpot} · {self.kind} {self.amount}"
