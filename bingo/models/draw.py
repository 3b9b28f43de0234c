"""The draw: balls, claims, prizes and their winners, payments at the desk and refunds
(R42-R52, R55-R57)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Round
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.models.games import Game
from bingo.models.sales import Sale


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
                # Rounded to the cent: SQLite (make run) computes decimals as floats.
                condition=Q(total=Round(F("amount_each") * F("winners") + F("remainder"), 2)),
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
                condition=Q(net=Round(F("gross") - F("tax_withheld"), 2)),
                name="payment_net_is_gross_less_tax",
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
