"""The sales ledger: one row per card sold at a desk or online (R34-R39, R85)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Round

from bingo.common import bounds
from bingo.models.games import Game


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
                # Rounded to the cent: SQLite (make run) multiplies decimals as floats.
                condition=Q(amount=Round(F("quantity") * F("unit_price"), 2)),
                name="sale_amount_is_cards",
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
