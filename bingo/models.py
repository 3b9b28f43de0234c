"""Sessions, games (jogadas) and the sales ledger (R33-R41, R53)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

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
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("session")
        verbose_name_plural = _("sessions")
        ordering = ("-starts_at",)
        constraints = [
            models.CheckConstraint(
                condition=Q(scheduled_end__gt=F("starts_at")), name="session_ends_after_start"
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

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ("session", "number")
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="game_number_unique_in_session"),
            models.CheckConstraint(condition=Q(number__gt=0), name="game_number_positive"),
            models.CheckConstraint(condition=Q(state__in=GameState.values), name="game_state_known"),
        ]

    def __str__(self) -> str:
        return f"{self.session} · {self.number}"


class GameSeries(models.Model):
    """A series on sale in a game: where this game's sale of it began, and how far it has gone.

    Position 1 is the series put on sale; position 2 the series of the same price the sale may
    roll into when the first runs out (R38).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="on_sale")
    series = models.ForeignKey("cards.Series", on_delete=models.PROTECT, related_name="games")
    position = models.PositiveSmallIntegerField()
    # The card number this game's sale of the series began at (R37), and the last one sold so far.
    start_number = models.PositiveIntegerField()
    last_number = models.PositiveIntegerField(null=True, blank=True)

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


class Sale(models.Model):
    """One sale: a block of consecutive cards of one series, paid in cash (R36, R39, R41).

    The ledger is insert-only: a sale is never changed or cancelled (R41); on PostgreSQL a
    trigger refuses UPDATE and DELETE. A request that spans two series (R38) records two rows
    with the same request key.
    """

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="sales")
    series = models.ForeignKey("cards.Series", on_delete=models.PROTECT, related_name="sales")
    first_number = models.PositiveIntegerField()
    last_number = models.PositiveIntegerField()
    quantity = models.PositiveIntegerField()
    unit_price = models.DecimalField(max_digits=12, decimal_places=2)
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    cash_desk = models.ForeignKey("halls.CashDesk", on_delete=models.PROTECT, related_name="sales")
    cashier = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="sales")
    # Cash handed over for the whole request (R39); the change is what the cashier gives back.
    cash_received = models.DecimalField(max_digits=14, decimal_places=2)
    player = models.CharField(max_length=80, blank=True)
    request_key = models.CharField(max_length=64)
    part = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "series", "first_number")
        constraints = [
            models.UniqueConstraint(fields=["request_key", "part"], name="sale_request_part_unique"),
            models.CheckConstraint(condition=Q(first_number__gte=1), name="sale_first_at_least_one"),
            models.CheckConstraint(
                condition=Q(quantity=F("last_number") - F("first_number") + 1),
                name="sale_quantity_matches_range",
            ),
            models.CheckConstraint(condition=Q(unit_price__gt=0), name="sale_price_positive"),
            models.CheckConstraint(
                condition=Q(amount=F("quantity") * F("unit_price")), name="sale_amount_is_cards"
            ),
        ]
        indexes = [models.Index(fields=["game", "cashier"]), models.Index(fields=["cash_desk", "created_at"])]

    def __str__(self) -> str:
        return f"{self.series} {self.first_number}-{self.last_number}"
