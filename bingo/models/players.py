"""Online players and their wallets' insert-only ledger (R85, R100)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.models.draw import PrizePayment, Refund
from bingo.models.sales import Sale


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
    # When the player opened the verification link sent to their e-mail address (None: not
    # yet). No deposit before it: the service refuses, and on PostgreSQL a trigger (0025).
    email_verified_at = models.DateTimeField(_("e-mail verified at"), null=True, blank=True)

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
    # The desk whose drawer the cash went into or came out of: counted in its close-out
    # (bingo/drawers/). Empty for what no desk handled, and for movements recorded before desks were.
    cash_desk = models.ForeignKey(
        "halls.CashDesk",
        verbose_name=_("cash desk"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="wallet_entries",
    )
    # The request's idempotency key: a retried deposit or purchase counts once.
    key = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        verbose_name = _("wallet entry")
        verbose_name_plural = _("wallet entries")
        ordering = ("player", "seq")
        indexes = [
            models.Index(
                fields=["cash_desk", "created_at"],
                condition=Q(cash_desk__isnull=False),
                name="wallet_entry_desk_time",
            ),
        ]
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
            models.CheckConstraint(
                condition=Q(cash_desk__isnull=True) | Q(kind__in=["deposit", "withdrawal"]),
                name="wallet_desk_only_for_cash_movements",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} #{self.seq}: {self.amount}"
