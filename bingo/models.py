"""Sessions, games (jogadas), the sales ledger (R33-R41, R53) and the draw: balls, claims,
prizes and their payment (R42-R52, R55-R57)."""

from __future__ import annotations

from decimal import Decimal

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


class Sale(models.Model):
    """One sale: a block of consecutive cards of one series, paid in cash at a hall's desk
    (R36, R39, R41), or from an online player's wallet (``buyer``; R85: the same series rules).

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
    # A hall's sale: the desk and the cashier; an online sale: the buyer, paid from the wallet.
    cash_desk = models.ForeignKey(
        "halls.CashDesk", on_delete=models.PROTECT, null=True, blank=True, related_name="sales"
    )
    cashier = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="sales"
    )
    buyer = models.ForeignKey(
        "Player", on_delete=models.PROTECT, null=True, blank=True, related_name="purchases"
    )
    # Cash handed over for the whole request (R39); the change is what the cashier gives back.
    # Online, the amount taken from the wallet for the whole request.
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
            # Bounds of what a person sets (bingo.common.bounds): the cards of one sale, a card's
            # price, the cash handed over; the biggest sale's amount fits its column.
            models.CheckConstraint(
                condition=Q(quantity__lte=bounds.SALE_MAX_CARDS), name="sale_at_most_max_cards"
            ),
            models.CheckConstraint(
                condition=Q(unit_price__lte=bounds.CARD_PRICE_MAX), name="sale_price_at_most_max"
            ),
            models.CheckConstraint(
                condition=Q(cash_received__lte=bounds.AMOUNT_MAX), name="sale_cash_received_at_most_max"
            ),
            models.CheckConstraint(
                condition=Q(amount=F("quantity") * F("unit_price")), name="sale_amount_is_cards"
            ),
            # At a desk by a cashier, or online to a player: one or the other, never neither.
            models.CheckConstraint(
                condition=Q(cash_desk__isnull=False, cashier__isnull=False, buyer__isnull=True)
                | Q(cash_desk__isnull=True, cashier__isnull=True, buyer__isnull=False),
                name="sale_at_desk_or_online",
            ),
        ]
        indexes = [
            models.Index(fields=["game", "cashier"]),
            models.Index(fields=["cash_desk", "created_at"]),
            models.Index(
                fields=["game", "buyer"], condition=Q(buyer__isnull=False), name="sale_online_buyer"
            ),
        ]

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
        constraints = [
            # The card keyed in is one of its series' (bingo.common.bounds).
            models.CheckConstraint(
                condition=Q(card_number__gte=1, card_number__lte=bounds.CARD_NUMBER_MAX),
                name="claim_card_number_in_range",
            ),
        ]

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
    """The payment of a winning card's share: in cash at a desk, against the card and its check
    code (R50), or online into the buyer's wallet by the system, with no action by the player
    (R97; the wallet's ``WalletEntry`` points here).

    One per winner (paid once); insert-only on PostgreSQL. The tax withheld follows the hall's
    rule (SPEC §2, R61 g)).
    """

    winner = models.OneToOneField(PrizeWinner, on_delete=models.PROTECT, related_name="payment")
    gross = models.DecimalField(max_digits=14, decimal_places=2)
    tax_withheld = models.DecimalField(max_digits=14, decimal_places=2)
    net = models.DecimalField(max_digits=14, decimal_places=2)
    cash_desk = models.ForeignKey(
        "halls.CashDesk", on_delete=models.PROTECT, null=True, blank=True, related_name="prize_payments"
    )
    cashier = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    paid_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(cash_desk__isnull=False, cashier__isnull=False)
                | Q(cash_desk__isnull=True, cashier__isnull=True),
                name="payment_at_desk_or_to_wallet",
            ),
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


# Online play (R85-R103) ---------------------------------------------------------------------


class Marking(models.TextChoices):
    """How the balls drawn are marked on an online player's cards (R96)."""

    AUTOMATIC = "auto", _("Automatic")
    MANUAL = "manual", _("By hand")


class Player(models.Model):
    """An online player: the user who plays, registered with the hall (the operator) whose
    online rooms they play, and the owner of a wallet (``WalletEntry``)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, primary_key=True, related_name="player"
    )
    hall = models.ForeignKey(
        "halls.Hall", verbose_name=_("operator"), on_delete=models.PROTECT, related_name="players"
    )
    birth_date = models.DateField(_("date of birth"))
    adult_confirmed_at = models.DateTimeField(_("confirmed being of age at"))
    marking = models.CharField(
        _("marking (R96)"), max_length=8, choices=Marking.choices, default=Marking.AUTOMATIC
    )
    created_at = models.DateTimeField(_("registered at"), auto_now_add=True)

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            models.CheckConstraint(condition=Q(marking__in=Marking.values), name="player_marking_known"),
        ]

    def __str__(self) -> str:
        return str(self.user)


class WalletEntry(models.Model):
    """One movement of an online player's wallet. The balance is the last entry's
    ``balance_after``: derived from this insert-only ledger, never stored apart from it.

    The database holds the invariants too (not only Python): ``balance_after`` is never below
    zero, each entry's ``seq`` follows the player's previous one, and on PostgreSQL a trigger
    checks ``balance_after`` equals the previous balance plus ``amount`` and refuses UPDATE
    and DELETE (``bingo/migrations/0011``).
    """

    class Kind(models.TextChoices):
        DEPOSIT = "deposit", _("Deposit")
        WITHDRAWAL = "withdrawal", _("Withdrawal")
        PURCHASE = "purchase", _("Cards bought")
        PRIZE = "prize", _("Prize")
        REFUND = "refund", _("Refund")

    #: Kinds that add to the wallet; the others take from it.
    CREDITS = (Kind.DEPOSIT.value, Kind.PRIZE.value, Kind.REFUND.value)

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="wallet_entries")
    seq = models.PositiveIntegerField(_("entry"))
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    amount = models.DecimalField(_("amount"), max_digits=14, decimal_places=2)
    balance_after = models.DecimalField(_("balance after"), max_digits=14, decimal_places=2)
    # What the movement is for: the sale (first row of a purchase), the prize paid, the refund.
    sale = models.OneToOneField(
        Sale, on_delete=models.PROTECT, null=True, blank=True, related_name="wallet_entry"
    )
    prize_payment = models.OneToOneField(
        PrizePayment, on_delete=models.PROTECT, null=True, blank=True, related_name="wallet_entry"
    )
    refund = models.OneToOneField(
        Refund, on_delete=models.PROTECT, null=True, blank=True, related_name="wallet_entry"
    )
    # Deposits and withdrawals: the cashier or manager who handled the money, and the identity
    # document they checked (no payment provider: money changes hands at a desk).
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reference = models.CharField(_("identity document checked"), max_length=120, blank=True)
    # The request's idempotency key: a retried deposit or purchase counts once.
    key = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        verbose_name = _("wallet entry")
        verbose_name_plural = _("wallet entries")
        ordering = ("player", "seq")
        constraints = [
            models.UniqueConstraint(fields=["player", "seq"], name="wallet_entry_seq_unique"),
            models.UniqueConstraint(
                fields=["player", "key"], condition=~Q(key=""), name="wallet_entry_key_unique"
            ),
            models.CheckConstraint(condition=Q(seq__gte=1), name="wallet_entry_seq_positive"),
            models.CheckConstraint(condition=Q(balance_after__gte=0), name="wallet_never_negative"),
            models.CheckConstraint(
                condition=Q(kind__in=["deposit", "prize", "refund"], amount__gt=0)
                | Q(kind__in=["withdrawal", "purchase"], amount__lt=0),
                name="wallet_entry_sign_of_kind",
            ),
            # The cash of one deposit or withdrawal at a desk (bingo.common.bounds).
            models.CheckConstraint(
                condition=~Q(kind__in=["deposit", "withdrawal"])
                | Q(amount__gte=-bounds.AMOUNT_MAX, amount__lte=bounds.AMOUNT_MAX),
                name="wallet_cash_movement_at_most_max",
            ),
            models.CheckConstraint(
                condition=~Q(kind="purchase") | Q(sale__isnull=False), name="wallet_purchase_has_sale"
            ),
            models.CheckConstraint(
                condition=~Q(kind="prize") | Q(prize_payment__isnull=False), name="wallet_prize_has_payment"
            ),
            models.CheckConstraint(
                condition=~Q(kind="refund") | Q(refund__isnull=False), name="wallet_refund_has_refund"
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=["deposit", "withdrawal"]) | Q(recorded_by__isnull=False),
                name="wallet_cash_movement_has_staff",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} #{self.seq}: {self.amount}"


class RoomMode(models.TextChoices):
    """How an online room runs (R89-R91)."""

    CONTINUOUS = "continuous", _("Continuous (always open)")
    SESSION = "session", _("Sessions (scheduled and announced)")


class OnlineRoom(models.Model):
    """A room of a hall played online (R85-R93): its mode and the pace of its draws.

    Continuous mode (R90): always open, games back to back whatever the number of players, each
    with a sales window of ``sales_seconds``, of ``variant`` with ``prize_plan``, selling the
    hall's online series in number order. Session mode (R91-R93): the operator schedules
    sessions and their games (several variants and prices at once, R92), whose sales open and
    close for everyone together (R93).
    """

    room = models.OneToOneField(
        "halls.Room",
        verbose_name=_("room"),
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="online",
    )
    mode = models.CharField(_("mode"), max_length=12, choices=RoomMode.choices)
    ball_interval = models.DecimalField(
        _("seconds between balls (R88)"), max_digits=5, decimal_places=2, default=Decimal("4")
    )
    sales_seconds = models.PositiveIntegerField(_("sales window (seconds)"), default=60)
    pause_seconds = models.PositiveIntegerField(_("pause between games (seconds)"), default=10)
    variant = models.CharField(_("variant"), max_length=2, choices=VARIANT_CHOICES, default="90")
    prize_plan = models.JSONField(_("prize plan"), default=dict, blank=True)
    active = models.BooleanField(_("open to players"), default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Why the room sells nothing, as the autodraw loop last found it (empty when nothing stops
    # it): {"reason": "no_series", "variant": ...} or {"reason": "session_no_series", ...}. The
    # loop writes it, and logs, only when it changes; the manager reads it on the room's page
    # and in the API (bingo.online.selectors.online_room_idle).
    idle = models.JSONField(_("why no game sells"), default=dict, blank=True)
    idle_since = models.DateTimeField(_("idle since"), null=True, blank=True)

    class Meta:
        verbose_name = _("online room")
        verbose_name_plural = _("online rooms")
        constraints = [
            models.CheckConstraint(condition=Q(mode__in=RoomMode.values), name="online_room_mode_known"),
            # R88: never under one second between balls.
            models.CheckConstraint(condition=Q(ball_interval__gte=1), name="online_room_ball_interval_r88"),
            models.CheckConstraint(condition=Q(sales_seconds__gte=5), name="online_room_sales_window"),
            # R90: a continuous room's sales window and pause, an hour at most (bingo.common.bounds).
            models.CheckConstraint(
                condition=Q(sales_seconds__lte=bounds.SALES_SECONDS_MAX),
                name="online_room_sales_window_at_most_an_hour",
            ),
            models.CheckConstraint(
                condition=Q(pause_seconds__lte=bounds.PAUSE_SECONDS_MAX),
                name="online_room_pause_at_most_an_hour",
            ),
        ]

    def __str__(self) -> str:
        return str(self.room)

    @classmethod
    def serves(cls, room_id: int) -> bool:
        """Whether room ``room_id`` is an online room (its online side shares its key)."""
        return cls.objects.filter(pk=room_id).exists()


# Demo mode (R102, PT-803/43-44, PT-806/74-75) ---------------------------------------------------


class DemoGame(models.Model):
    """A player's practice game (R102): it mirrors one of the operator's online rooms (its
    variant, pace (R88) and prize plan's shape) and plays with the engine, in demo credits only.

    Nothing of the real books: no sale, no series, no ball or prize rows, no acta, no jackpot,
    no tax. The cards are generated for the game (the player's and the simulated other players'),
    and every ball is drawn at creation with ``secrets`` and shown as its time comes (ball ``i``
    at ``started_at + i * ball_interval``); the server never shows a ball before its time.
    """

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="demo_games")
    online_room = models.ForeignKey(
        OnlineRoom, verbose_name=_("room mirrored"), on_delete=models.PROTECT, related_name="demo_games"
    )
    variant = models.CharField(_("variant"), max_length=2, choices=VARIANT_CHOICES)
    prize_plan = models.JSONField(_("prize plan"))
    ball_interval = models.DecimalField(_("seconds between balls (R88)"), max_digits=5, decimal_places=2)
    card_price = models.PositiveIntegerField(_("demo credits a card"))
    #: The player's cards (the first ``cards_mine`` grids), then the simulated players' cards.
    cards = models.JSONField(_("cards"))
    cards_mine = models.PositiveSmallIntegerField(_("the player's cards"))
    #: Every ball to the game's end (the first bingo), in draw order; shown as time passes.
    balls = models.JSONField(_("balls"))
    #: The prizes: [{"kind", "amount", "at", "winners": [card index], "each"}], by the engine.
    results = models.JSONField(_("prizes"))
    winnings = models.PositiveIntegerField(_("demo credits won"))
    started_at = models.DateTimeField(_("started at"))
    key = models.CharField(max_length=80)
    settled_at = models.DateTimeField(_("winnings credited at"), null=True, blank=True)

    class Meta:
        verbose_name = _("demo game")
        verbose_name_plural = _("demo games")
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name="demo_game_key_unique"),
            # R88 holds in demo as in the room it mirrors.
            models.CheckConstraint(condition=Q(ball_interval__gte=1), name="demo_game_ball_interval_r88"),
            models.CheckConstraint(condition=Q(cards_mine__gte=1), name="demo_game_has_cards"),
            models.CheckConstraint(
                condition=Q(cards_mine__lte=bounds.DEMO_MAX_CARDS), name="demo_game_at_most_max_cards"
            ),
        ]

    def __str__(self) -> str:
        return f"demo #{self.pk} ({self.player})"


class DemoCreditEntry(models.Model):
    """One movement of a player's demo credits (R102, PT-803/44): a free grant, a stake on a
    demo game's cards, a demo game's winnings. Whole credits, no currency: nothing here is
    money, and nothing converts to money, vouchers or goods.

    An insert-only ledger apart from the wallet (``WalletEntry``): no foreign key to anything of
    the real books, and the wallet's ledger has none to it. As the wallet's, the database holds
    its invariants: ``balance_after`` never below zero, ``seq`` following the player's previous
    entry, and on PostgreSQL a trigger checks the chain and refuses UPDATE and DELETE
    (``bingo/migrations/0013``).
    """

    class Kind(models.TextChoices):
        GRANT = "grant", _("Free credits")
        STAKE = "stake", _("Demo cards")
        WIN = "win", _("Demo prize")

    #: Kinds that add to the demo balance; the stake takes from it.
    CREDITS = (Kind.GRANT.value, Kind.WIN.value)

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="demo_credit_entries")
    seq = models.PositiveIntegerField(_("entry"))
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    credits = models.IntegerField(_("demo credits"))
    balance_after = models.IntegerField(_("demo credits after"))
    game = models.ForeignKey(
        DemoGame, on_delete=models.PROTECT, null=True, blank=True, related_name="credit_entries"
    )
    key = models.CharField(max_length=80)
    created_at = models.DateTimeField(_("at"))

    class Meta:
        verbose_name = _("demo credit entry")
        verbose_name_plural = _("demo credit entries")
        ordering = ("player", "seq")
        constraints = [
            models.UniqueConstraint(fields=["player", "seq"], name="demo_credit_seq_unique"),
            models.UniqueConstraint(fields=["player", "key"], name="demo_credit_key_unique"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="demo_credit_seq_positive"),
            models.CheckConstraint(condition=Q(balance_after__gte=0), name="demo_credit_never_negative"),
            models.CheckConstraint(
                condition=Q(kind__in=["grant", "win"], credits__gt=0) | Q(kind="stake", credits__lt=0),
                name="demo_credit_sign_of_kind",
            ),
            models.CheckConstraint(
                condition=Q(kind="grant") | Q(game__isnull=False), name="demo_credit_stake_win_has_game"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} demo #{self.seq}: {self.credits}"


# Faults of the system (R98-R99, PT-803/33-34, PT-806/72-73) ---------------------------------------


class FaultSource(models.TextChoices):
    OPERATOR = "operator", _("declared by the operator")
    SYSTEM = "system", _("found by the system")


class GameFault(models.Model):
    """A fault of the system's side that kept an online game from being decided (R98, PT-803/33,
    PT-806/72): the game is null and every card was refunded to the wallets. One per game: the
    row is the proof it was declared, by whom (a manager or caller, or the system user when the
    reconciler found it) and why; insert-only."""

    game = models.OneToOneField(
        Game, verbose_name=_("game"), on_delete=models.PROTECT, primary_key=True, related_name="fault"
    )
    source = models.CharField(_("declared"), max_length=10, choices=FaultSource.choices)
    reason = models.TextField(_("reason"))
    declared_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    declared_at = models.DateTimeField(_("declared at"))

    class Meta:
        verbose_name = _("system fault")
        verbose_name_plural = _("system faults")
        constraints = [
            models.CheckConstraint(
                condition=Q(source__in=FaultSource.values), name="game_fault_source_known"
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="game_fault_reason_given"),
        ]

    def __str__(self) -> str:
        return f"{self.game}: {self.reason}"


class BallFailure(models.Model):
    """A ball task of an online game that failed with an error it did not expect (the ball not
    drawn, its transaction undone): the reconciler declares a fault (R98) when the same ball has
    failed ``ONLINE_FAULT_FAILURES`` times. Insert-only."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="ball_failures")
    position = models.PositiveSmallIntegerField()
    error = models.TextField(blank=True)
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["game", "position"], name="ball_failure_game_position")]

    def __str__(self) -> str:
        return f"{self.game} #{self.position}: {self.error}"


class PlayerVisit(models.Model):
    """When the player last opened the online lobby (R99): the lobby lists their games that ended
    since, so a player who was away (their connection lost, the page closed) sees what happened:
    the balls, their prizes credited, or the refund and its reason."""

    player = models.OneToOneField(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, primary_key=True, related_name="visit"
    )
    lobby_seen_at = models.DateTimeField(_("lobby last seen at"))

    class Meta:
        verbose_name = _("player's last visit")
        verbose_name_plural = _("players' last visits")

    def __str__(self) -> str:
        return f"{self.player}: {self.lobby_seen_at}"


class PlaySession(models.Model):
    """A player's play session (PT-803 g, PT-806 t): the uninterrupted time between logging in
    and logging out, or its end by idleness, the player's time limit (R101) or inactivity
    (PT-806/70-71). At the end it keeps its summary (PT-806/67, PT-803/39): what was staked,
    won and refunded in it and the net, from the wallet's entries between start and end.
    At most one is open per player (a partial unique index)."""

    class EndReason(models.TextChoices):
        LOGOUT = "logout", _("Logged out")
        TIMEOUT = "timeout", _("Idle too long")
        TIME_LIMIT = "time_limit", _("Session time limit reached")
        INACTIVITY = "inactivity", _("No cards bought (inactivity)")

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="play_sessions")
    started_at = models.DateTimeField(_("started at"))
    last_seen_at = models.DateTimeField(_("last seen at"))
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)
    end_reason = models.CharField(_("ended by"), max_length=12, choices=EndReason.choices, blank=True)
    # The online room the player follows: the room of the last game page opened (PT-806/70 b).
    room = models.ForeignKey("halls.Room", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # Since when it follows that room: games played there before do not count (PT-806/70 b).
    room_since = models.DateTimeField(null=True, blank=True)
    # PT-806/71: the games without a purchase counted when the player chose to go on
    # («Continuar»), and when; the warning holds until the next purchase.
    idle_warned = models.PositiveSmallIntegerField(null=True, blank=True)
    idle_warned_at = models.DateTimeField(null=True, blank=True)
    # The summary, written at the end (PT-806/67).
    staked = models.DecimalField(_("staked"), max_digits=14, decimal_places=2, default=Decimal("0"))
    won = models.DecimalField(_("won"), max_digits=14, decimal_places=2, default=Decimal("0"))
    refunded = models.DecimalField(_("refunded"), max_digits=14, decimal_places=2, default=Decimal("0"))
    net = models.DecimalField(_("net"), max_digits=14, decimal_places=2, default=Decimal("0"))
    games = models.PositiveIntegerField(_("games played"), default=0)
    games_in_play = models.PositiveIntegerField(_("games still in play at the end"), default=0)

    class Meta:
        verbose_name = _("play session")
        verbose_name_plural = _("play sessions")
        ordering = ("-started_at", "-pk")
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=Q(ended_at__isnull=True), name="play_session_one_open"
            ),
            models.CheckConstraint(
                condition=Q(ended_at__isnull=True, end_reason="")
                | Q(ended_at__isnull=False, end_reason__in=["logout", "timeout", "time_limit", "inactivity"]),
                name="play_session_end_has_reason",
            ),
            models.CheckConstraint(
                condition=Q(ended_at__isnull=True) | Q(ended_at__gte=F("started_at")),
                name="play_session_ends_after_start",
            ),
            models.CheckConstraint(
                condition=Q(net=F("won") + F("refunded") - F("staked")), name="play_session_net"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.started_at:%Y-%m-%d %H:%M}"


class PlayLimit(models.Model):
    """A player's session time limit and reminder interval (R101: the player sets how long
    they play). A tighter limit applies at once; a looser one (longer, or none) only from
    ``next_from``, 24 hours after it was asked, as money limits do."""

    player = models.OneToOneField(
        Player, on_delete=models.CASCADE, primary_key=True, related_name="play_limit"
    )
    session_minutes = models.PositiveIntegerField(_("session time limit (minutes)"), null=True, blank=True)
    reminder_minutes = models.PositiveIntegerField(_("remind me every (minutes)"), null=True, blank=True)
    # A looser limit asked for: the minutes (None: no limit) and when it applies.
    next_session_minutes = models.PositiveIntegerField(null=True, blank=True)
    next_from = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("play time limit")
        verbose_name_plural = _("play time limits")
        constraints = [
            models.CheckConstraint(
                condition=Q(session_minutes__isnull=True) | Q(session_minutes__gte=1),
                name="play_limit_positive",
            ),
            # R101: the limits and reminders a player chooses from (bingo.common.bounds).
            models.CheckConstraint(
                condition=(
                    Q(session_minutes__isnull=True)
                    | Q(
                        session_minutes__gte=bounds.PLAY_LIMIT_MINUTES_MIN,
                        session_minutes__lte=bounds.PLAY_LIMIT_MINUTES_MAX,
                    )
                )
                & (
                    Q(next_session_minutes__isnull=True)
                    | Q(
                        next_session_minutes__gte=bounds.PLAY_LIMIT_MINUTES_MIN,
                        next_session_minutes__lte=bounds.PLAY_LIMIT_MINUTES_MAX,
                    )
                ),
                name="play_limit_minutes_in_range",
            ),
            models.CheckConstraint(
                condition=Q(reminder_minutes__isnull=True) | Q(reminder_minutes__in=bounds.REMINDER_CHOICES),
                name="play_limit_reminder_offered",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.session_minutes or '-'} min"


#: The longest complaint a player may file (characters).
COMPLAINT_MAX_LENGTH = 2000


class PlayerComplaint(models.Model):
    """A player's complaint about an online game they bought cards in, and the manager's decision
    on it (R61 j), issue 13 point 6). Both land in the session's acta as notes: the complaint as
    a ``COMPLAINT`` note when filed, the decision as a ``DECISION`` note referring to it
    (``complaint_note``, ``decision_note``); this row is how the player and the managers find
    them again (docs/complaints.md)."""

    player = models.ForeignKey(
        Player, verbose_name=_("player"), on_delete=models.PROTECT, related_name="complaints"
    )
    game = models.ForeignKey(
        Game, verbose_name=_("game"), on_delete=models.PROTECT, related_name="complaints"
    )
    text = models.TextField(_("complaint"))
    filed_at = models.DateTimeField(_("filed at"))
    complaint_note = models.OneToOneField(
        "actas.ActaNote",
        verbose_name=_("note of the complaint in the acta"),
        on_delete=models.PROTECT,
        related_name="player_complaint",
    )
    decision = models.TextField(_("decision"), blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("decided by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decision_note = models.OneToOneField(
        "actas.ActaNote",
        verbose_name=_("note of the decision in the acta"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="player_complaint_decided",
    )

    class Meta:
        verbose_name = _("player's complaint")
        verbose_name_plural = _("players' complaints")
        ordering = ("-filed_at", "-pk")
        constraints = [
            models.CheckConstraint(condition=~Q(text=""), name="player_complaint_says_what"),
            # R61 j): a decision says what was decided, by whom and when, and is in the acta.
            models.CheckConstraint(
                condition=(
                    Q(decision="")
                    & Q(decided_by__isnull=True)
                    & Q(decided_at__isnull=True)
                    & Q(decision_note__isnull=True)
                )
                | (
                    ~Q(decision="")
                    & Q(decided_by__isnull=False)
                    & Q(decided_at__isnull=False)
                    & Q(decision_note__isnull=False)
                ),
                name="player_complaint_decided_whole",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} · {self.game}"

    @property
    def decided(self) -> bool:
        return self.decided_at is not None


class LimitKind(models.TextChoices):
    """What a responsible-gaming limit caps (R101)."""

    DEPOSIT = "deposit", _("Deposits")
    LOSS = "loss", _("Losses")


class LimitPeriod(models.TextChoices):
    """The period a limit counts over, on the hall's clock (R101)."""

    DAY = "day", _("Daily")
    WEEK = "week", _("Weekly")
    MONTH = "month", _("Monthly")


class PlayerLimit(models.Model):
    """A player's request to set one of their limits (R101): insert-only, the newest request of a
    kind and period supersedes one still pending. ``amount`` None is "no limit". A tightening
    takes effect when asked (``effective_at == requested_at``), a loosening 24 hours later
    (``bingo.engine.limits``). On PostgreSQL a trigger refuses UPDATE and DELETE (0013)."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="limits")
    kind = models.CharField(_("limit of"), max_length=8, choices=LimitKind.choices)
    period = models.CharField(_("period"), max_length=8, choices=LimitPeriod.choices)
    amount = models.DecimalField(_("amount"), max_digits=14, decimal_places=2, null=True, blank=True)
    requested_at = models.DateTimeField(_("requested at"))
    effective_at = models.DateTimeField(_("takes effect at"))

    class Meta:
        verbose_name = _("player limit")
        verbose_name_plural = _("player limits")
        ordering = ("player", "kind", "period", "requested_at", "pk")
        indexes = [
            models.Index(fields=["player", "kind", "period", "requested_at"], name="player_limit_lookup")
        ]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=LimitKind.values), name="player_limit_kind_known"),
            models.CheckConstraint(
                condition=Q(period__in=LimitPeriod.values), name="player_limit_period_known"
            ),
            models.CheckConstraint(
                condition=Q(amount__isnull=True) | Q(amount__gt=0), name="player_limit_amount_positive"
            ),
            models.CheckConstraint(
                condition=Q(amount__isnull=True) | Q(amount__lte=bounds.AMOUNT_MAX),
                name="player_limit_amount_at_most_max",
            ),
            models.CheckConstraint(
                condition=Q(effective_at__gte=F("requested_at")), name="player_limit_effective_after_request"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.kind}/{self.period}: {self.amount}"


class PlayerExclusion(models.Model):
    """A player barred from buying and depositing (R101): by their own choice (``self``, never
    lifted before its end) or by the operator (``operator``, which a manager may lift: a
    ``PlayerExclusionLift`` row). ``ends_at`` None is for good. Insert-only, kept for ever."""

    class Source(models.TextChoices):
        SELF = "self", _("Self-exclusion")
        OPERATOR = "operator", _("Operator")

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="exclusions")
    source = models.CharField(_("excluded by"), max_length=8, choices=Source.choices)
    starts_at = models.DateTimeField(_("from"))
    ends_at = models.DateTimeField(_("until"), null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("recorded by")
    )
    created_at = models.DateTimeField(_("recorded at"))

    class Meta:
        verbose_name = _("player exclusion")
        verbose_name_plural = _("player exclusions")
        ordering = ("-starts_at", "-pk")
        constraints = [
            models.CheckConstraint(
                condition=Q(source__in=["self", "operator"]), name="player_exclusion_source"
            ),
            models.CheckConstraint(
                condition=Q(ends_at__isnull=True) | Q(ends_at__gt=F("starts_at")),
                name="player_exclusion_ends_after_start",
            ),
            models.CheckConstraint(
                condition=Q(source="self") | ~Q(reason=""), name="player_exclusion_operator_reason"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} ({self.source}) {self.starts_at} to {self.ends_at or 'for good'}"


class PlayerExclusionLift(models.Model):
    """A manager lifting an operator's exclusion before its end, and why (R101): a row of its own,
    so the exclusion and its lifting are both kept. Self-exclusions are never lifted."""

    exclusion = models.OneToOneField(
        PlayerExclusion, on_delete=models.PROTECT, primary_key=True, related_name="lift"
    )
    lifted_at = models.DateTimeField(_("lifted at"))
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("lifted by")
    )
    reason = models.TextField(_("reason"))

    class Meta:
        verbose_name = _("exclusion lifted")
        verbose_name_plural = _("exclusions lifted")
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="player_exclusion_lift_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.exclusion} lifted {self.lifted_at}"
