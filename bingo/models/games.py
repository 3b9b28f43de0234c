"""Sessions and games (jogadas): the session's schedule and close (R33, R53, R61), a game's
state, prizes' shares and the series on sale (R32-R41, R55-R57)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from cards.models import VARIANT_CHOICES


class Session(models.Model):
    """A period of play in one room, with a start and a scheduled end (sessão de jogo)."""

    room = models.ForeignKey(
        "halls.Room", verbose_name=_("room"), on_delete=models.PROTECT, related_name="sessions"
    )
    starts_at = models.DateTimeField(_("starts at"))
    scheduled_end = models.DateTimeField(_("scheduled end"))
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("opened by"),
        on_delete=models.PROTECT,
        null=True,
        related_name="+",
    )
    # R9: the number of balls within which a bingo wins the jackpot, fixed and announced when
    # the session starts; None when the hall's jackpot does not play in this session.
    jackpot_balls = models.PositiveSmallIntegerField(_("jackpot within balls (R9)"), null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("session")
        verbose_name_plural = _("sessions")
        ordering = ("-starts_at",)
        indexes = [
            # A room's sessions newest first, without reading the room's history: its display
            # looks for the latest game that ended (bingo.draw.selectors.room_current_game).
            models.Index(fields=["room", "-starts_at"], name="session_room_latest"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(scheduled_end__gt=F("starts_at")), name="session_ends_after_start"
            ),
            models.CheckConstraint(
                condition=Q(scheduled_end__lte=F("starts_at") + bounds.SESSION_MAX_LENGTH),
                name="session_at_most_a_day",
            ),
            models.CheckConstraint(
                condition=Q(jackpot_balls__isnull=True) | Q(jackpot_balls__gte=1, jackpot_balls__lte=90),
                name="session_jackpot_balls_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.room} · {self.starts_at:%Y-%m-%d %H:%M}"


class GameState(models.TextChoices):
    """The states of a game (bingo.engine.gamestate holds the legal moves between them)."""

    PLANNED = "planned", _("Planned")
    SELLING = "selling", _("Selling")
    SALES_CLOSED = "sales_closed", _("Sales closed")
    DRAWING = "drawing", _("Drawing")
    FINISHED = "finished", _("Finished")
    SUSPENDED = "suspended", _("Suspended")
    ANNULLED = "annulled", _("Annulled")


#: The states of a game under way, sold or drawn now: a handful of games at any time, however
#: many a room has played.
UNDER_WAY_STATES = (
    GameState.DRAWING.value,
    GameState.SALES_CLOSED.value,
    GameState.SELLING.value,
    GameState.SUSPENDED.value,
)
#: The states of a game that is over (R59: each is in the acta).
ENDED_STATES = (GameState.FINISHED.value, GameState.ANNULLED.value)


class DrawMode(models.TextChoices):
    """How a game's balls come out (SPEC §4)."""

    ELECTRONIC = "electronic", _("Electronic (the system draws)")
    PHYSICAL = "physical", _("Physical (the caller keys in the blower's ball)")


class Game(models.Model):
    """One game of a session: its variant, prize plan and state (changed only by services)."""

    State = GameState

    session = models.ForeignKey(
        Session, verbose_name=_("session"), on_delete=models.PROTECT, related_name="games"
    )
    number = models.PositiveIntegerField(_("game number"))
    variant = models.CharField(_("variant"), max_length=2, choices=VARIANT_CHOICES)
    state = models.CharField(_("state"), max_length=16, choices=State.choices, default=State.PLANNED)
    # The prize plan as shares of sales, e.g. {"line": "20", "bingo": "60"} (R7), and whether the
    # hall's jackpot takes its 3% of the prize money first (R10).
    prize_plan = models.JSONField(_("prize plan"))
    jackpot_active = models.BooleanField(_("jackpot active"), default=False)
    price = models.DecimalField(_("card price"), max_digits=12, decimal_places=2, null=True, blank=True)
    opening_announcement = models.TextField(_("announcement before sales (R33)"), blank=True)
    closing_announcement = models.TextField(_("announcement when sales close (R40)"), blank=True)
    sales_opened_at = models.DateTimeField(_("sales opened at"), null=True, blank=True)
    sales_closed_at = models.DateTimeField(_("sales closed at"), null=True, blank=True)
    state_reason = models.TextField(_("reason for the last suspension or annulment"), blank=True)
    # Set when sales close: the prize money rounding to the currency's unit left unassigned.
    prize_remainder = models.DecimalField(
        _("prize rounding remainder"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    # What wins (bingo.engine.detection.PrizeRules as JSON): the line kinds that count for the
    # line prize (R67, R75), the 75-ball pattern (R73 b)), the extra prizes of R74 and R84.
    win_rules = models.JSONField(_("winning combinations"), default=dict, blank=True)
    draw_mode = models.CharField(
        _("draw"), max_length=12, choices=DrawMode.choices, default=DrawMode.ELECTRONIC
    )
    # R55: the ball count after which the electronic mechanism failed and the game went on by
    # manual extraction; None while it works (and for physical draws).
    manual_from_ball = models.PositiveSmallIntegerField(
        _("manual extraction from ball"), null=True, blank=True
    )
    suspended_at = models.DateTimeField(_("suspended at"), null=True, blank=True)
    # R15: this game is the second of the double cards sold in ``doubles_of`` (the session's
    # previous game); it plays those cards and sells none of its own.
    doubles_of = models.OneToOneField(
        "self",
        verbose_name=_("second game of the double cards of"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="doubles_second",
    )
    drawing_started_at = models.DateTimeField(_("draw started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    # Online games (a game of an ``OnlineRoom``'s session), driven by the system, not a caller:
    # when its sales close for everyone at once (R93), the seconds between balls (R88: never
    # under 1), and when the next ball is due (the reconciler picks up a game past it).
    sales_close_at = models.DateTimeField(_("sales close at"), null=True, blank=True)
    ball_interval = models.DecimalField(
        _("seconds between balls (R88)"), max_digits=5, decimal_places=2, null=True, blank=True
    )
    next_ball_at = models.DateTimeField(_("next ball due at"), null=True, blank=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ("session", "number")
        indexes = [
            # What a room's display follows after every ball (bingo.draw.selectors.room_current_game):
            # the games under way, and between games each session's latest that ended, found
            # without reading every game the room ever had.
            models.Index(fields=["session"], condition=Q(state__in=UNDER_WAY_STATES), name="game_under_way"),
            models.Index(
                fields=["session", "-number"], condition=Q(state__in=ENDED_STATES), name="game_ended_latest"
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="game_number_unique_in_session"),
            models.CheckConstraint(condition=Q(number__gt=0), name="game_number_positive"),
            models.CheckConstraint(condition=Q(state__in=GameState.values), name="game_state_known"),
            # R88: the operator sets the pace of an online draw, never under one second a ball.
            models.CheckConstraint(
                condition=Q(ball_interval__isnull=True) | Q(ball_interval__gte=1),
                name="game_ball_interval_r88",
            ),
            # R92: an online game's card price, as a series' (bingo.common.bounds).
            models.CheckConstraint(
                condition=Q(price__isnull=True) | Q(price__gt=0, price__lte=bounds.CARD_PRICE_MAX),
                name="game_price_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session} · {self.number}"


class GameSeries(models.Model):
    """A series on sale in a game: where this game's sale of it began, and how far it has gone.

    Position 1 is the series put on sale; position 2 the series of the same price the sale may
    roll into when the first runs out (R38). In the second game of double cards (R15) the rows
    are ``carried``: the cards the previous game sold, playing again.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="on_sale")
    series = models.ForeignKey("cards.Series", on_delete=models.PROTECT, related_name="games")
    position = models.PositiveSmallIntegerField()
    # The card number this game's sale of the series began at (R37), and the last one sold so far.
    start_number = models.PositiveIntegerField()
    last_number = models.PositiveIntegerField(null=True, blank=True)
    # R15: the double cards the previous game sold, playing their second game here (nothing of
    # the series is on sale in this game).
    carried = models.BooleanField(default=False)

    class Meta:
        ordering = ("game", "position")
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="game_series_position_unique"),
            models.UniqueConstraint(fields=["game", "series"], name="game_series_once_per_game"),
            models.CheckConstraint(condition=Q(position__in=[1, 2]), name="game_series_first_or_second"),
            models.CheckConstraint(
                condition=Q(last_number__isnull=True) | Q(last_number__gte=F("start_number")),
                name="game_series_last_after_start",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} · {self.series}"
