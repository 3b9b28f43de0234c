"""Sessions, games (jogadas), the sales ledger (R33-R41, R53) and the draw: balls, claims,
prizes and their payment (R42-R52, R55-R57)."""

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


class Ball(models.Model):
    """A ball drawn in a game, in order (R42). Insert-only: a ball is never changed or taken
    back; on PostgreSQL a trigger refuses UPDATE and DELETE."""

    class Source(models.TextChoices):
        ELECTRONIC = "electronic", _("Electronic")
        MANUAL = "manual", _("Keyed in")

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="balls")
    position = models.PositiveSmallIntegerField(_("ball count"))
    number = models.PositiveSmallIntegerField(_("number"))
    source = models.CharField(max_length=12, choices=Source.choices)
    drawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    drawn_at = models.DateTimeField()

    class Meta:
        verbose_name = _("ball")
        verbose_name_plural = _("balls")
        ordering = ("game", "position")
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="ball_position_once"),
            models.UniqueConstraint(fields=["game", "number"], name="ball_drawn_once"),
            models.CheckConstraint(
                condition=Q(position__gte=1, position__lte=90), name="ball_position_in_range"
            ),
            models.CheckConstraint(condition=Q(number__gte=1, number__lte=90), name="ball_number_in_range"),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.position}: {self.number}"


class PrizeKind(models.TextChoices):
    """The prizes a game can award: the engine's kinds and the progressive jackpot (R9)."""

    LINE = "line", _("Line")
    BINGO = "bingo", _("Bingo")
    FOUR_CORNERS = "four_corners", _("Four corners")
    COLUMN = "column", _("Column")
    JACKPOT = "jackpot", _("Jackpot")


class Claim(models.Model):
    """A claim the caller checked (R43): the card, the prize, what the system answered.

    False claims are kept too: the game goes on, and the acta shows them.
    """

    class Outcome(models.TextChoices):
        VALID = "valid", _("Valid")
        FALSE = "false", _("False claim")
        LATE = "late", _("Too late (R47)")
        NOT_SOLD = "not_sold", _("Card not sold in this game")

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="claims")
    kind = models.CharField(max_length=16, choices=PrizeKind.choices)
    series = models.ForeignKey("cards.Series", on_delete=models.PROTECT, related_name="+")
    card_number = models.PositiveIntegerField()
    balls_drawn = models.PositiveSmallIntegerField()
    outcome = models.CharField(max_length=12, choices=Outcome.choices)
    claimed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "created_at", "pk")

    def __str__(self) -> str:
        return f"{self.game} {self.kind} {self.series} n.º {self.card_number}: {self.outcome}"


class Prize(models.Model):
    """A prize awarded in a game: its winning cards share it in equal parts (R6), each share
    rounded down to the currency's unit, the remainder recorded (SPEC §2)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="prizes")
    kind = models.CharField(max_length=16, choices=PrizeKind.choices)
    # The ball count at which it was awarded: winners hold it with the first N balls (R49).
    balls_drawn = models.PositiveSmallIntegerField()
    total = models.DecimalField(max_digits=14, decimal_places=2)
    winners = models.PositiveIntegerField()
    amount_each = models.DecimalField(max_digits=14, decimal_places=2)
    remainder = models.DecimalField(max_digits=14, decimal_places=2)
    awarded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    awarded_at = models.DateTimeField()

    class Meta:
        ordering = ("game", "awarded_at", "pk")
        constraints = [
            models.UniqueConstraint(fields=["game", "kind"], name="prize_once_per_game"),
            models.CheckConstraint(condition=Q(winners__gte=1), name="prize_has_winners"),
            models.CheckConstraint(
                condition=Q(total=F("amount_each") * F("winners") + F("remainder")),
                name="prize_shares_add_up",
            ),
            models.CheckConstraint(
                condition=Q(remainder__gte=0, amount_each__gte=0), name="prize_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} {self.kind}"


class PrizeWinner(models.Model):
    """One winning card of a prize, and the share it is owed."""

    prize = models.ForeignKey(Prize, on_delete=models.PROTECT, related_name="cards")
    series = models.ForeignKey("cards.Series", on_delete=models.PROTECT, related_name="+")
    card_number = models.PositiveIntegerField()
    # When its combination completed (R49: it wins whenever it completed in this game).
    completed_at_ball = models.PositiveSmallIntegerField()
    amount = models.DecimalField(max_digits=14, decimal_places=2)

    class Meta:
        ordering = ("prize", "series", "card_number")
        constraints = [
            models.UniqueConstraint(fields=["prize", "series", "card_number"], name="prize_winner_once"),
        ]

    def __str__(self) -> str:
        return f"{self.prize}: {self.series} n.º {self.card_number}"


class PrizePayment(models.Model):
    """The cash payment of a winning card's share, against the card and its check code (R50).

    One per winner (paid once); insert-only on PostgreSQL. The tax withheld follows the hall's
    rule (SPEC §2, R61 g)).
    """

    winner = models.OneToOneField(PrizeWinner, on_delete=models.PROTECT, related_name="payment")
    gross = models.DecimalField(max_digits=14, decimal_places=2)
    tax_withheld = models.DecimalField(max_digits=14, decimal_places=2)
    net = models.DecimalField(max_digits=14, decimal_places=2)
    cash_desk = models.ForeignKey("halls.CashDesk", on_delete=models.PROTECT, related_name="prize_payments")
    cashier = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    paid_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(net=F("gross") - F("tax_withheld")), name="payment_net_is_gross_less_tax"
            ),
            models.CheckConstraint(condition=Q(tax_withheld__gte=0, net__gte=0), name="payment_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.winner}: {self.net}"


class Refund(models.Model):
    """The full refund of a sale of a suspended or annulled game (R55, R57); insert-only."""

    sale = models.OneToOneField(Sale, on_delete=models.PROTECT, related_name="refund")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="refunds")
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    reason = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="refund_positive")]

    def __str__(self) -> str:
        return f"{self.sale}: {self.amount}"
