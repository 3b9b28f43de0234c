"""Card sets and series: the manager's card stock (R3, R14-R19).

A *card set* is a generated set of cards (bingo.engine), stored compactly and reproducible from
its (variant, size, seed, algorithm). A *series* is one numbered print run of a card set in a
hall (SPEC §1, our reading of R38 c): series of the same size usually share a card set, so
card n of one series equals card n of the next.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.engine import ALGORITHMS, SERIES_SIZES, Variant
from bingo.engine.sales import format_count  # "1 680", as a Portuguese reader groups thousands

# Lazy labels: formatted when shown, in the reader's language (and English for migrations).
VARIANT_CHOICES = [(v.value, format_lazy(_("{balls} balls"), balls=v.value)) for v in Variant]
SIZE_LETTER_CHOICES = [(letter, f"{letter} ({format_count(size)})") for letter, size in SERIES_SIZES.items()]
COLOUR_PATTERN = r"^#[0-9A-F]{6}$"


class CardSet(models.Model):
    """A generated card set: what the engine made, by whom and when, and its fingerprint."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting")
        GENERATING = "generating", _("Generating")
        READY = "ready", _("Ready")
        FAILED = "failed", _("Failed")

    variant = models.CharField(_("variant"), max_length=2, choices=VARIANT_CHOICES)
    size = models.PositiveIntegerField(_("number of cards"))
    # Seeds go up to 2**256 - 1: 78 decimal digits, kept exact as canonical digits (SQLite's
    # decimals lose precision past 15 digits).
    seed = models.CharField(_("seed"), max_length=78)
    algorithm = models.CharField(_("algorithm"), max_length=32, choices=[(a, a) for a in ALGORITHMS])
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING)
    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    error = models.TextField(_("error"), blank=True)
    fingerprint = models.CharField(_("fingerprint"), max_length=64, blank=True)
    repeated_lines = models.PositiveIntegerField(_("repeated line combinations"), default=0)
    created_at = models.DateTimeField(_("requested at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        on_delete=models.PROTECT,
        null=True,
        related_name="+",
    )
    generated_at = models.DateTimeField(_("generated at"), null=True, blank=True)

    class Meta:
        verbose_name = _("card set")
        verbose_name_plural = _("card sets")
        ordering = ("-created_at", "-id")
        constraints = [
            models.CheckConstraint(condition=Q(size__gt=0), name="card_set_size_positive"),
            models.CheckConstraint(
                condition=Q(size__lte=bounds.CARD_NUMBER_MAX), name="card_set_size_at_most_max"
            ),
            models.CheckConstraint(
                condition=Q(seed__regex=r"^(0|[1-9][0-9]{0,77})$"), name="card_set_seed_digits"
            ),
            models.CheckConstraint(condition=Q(progress__lte=100), name="card_set_progress_at_most_100"),
            models.CheckConstraint(
                condition=~Q(status="ready")
                | Q(fingerprint__regex=r"^[0-9a-f]{64}$", generated_at__isnull=False),
                name="card_set_ready_has_fingerprint",
            ),
            models.CheckConstraint(condition=Q(algorithm__in=ALGORITHMS), name="card_set_known_algorithm"),
            models.UniqueConstraint(
                fields=["variant", "size", "seed", "algorithm"], name="card_set_unique_inputs"
            ),
            # Lets a series refer to (id, size) so its size always matches its card set's.
            models.UniqueConstraint(fields=["id", "size"], name="card_set_id_size"),
        ]

    def __str__(self) -> str:
        return f"{self.variant}/{self.size} #{self.pk}"

    @property
    def variant_enum(self) -> Variant:
        return Variant(self.variant)

    @property
    def seed_int(self) -> int:
        return int(self.seed)

    @property
    def strips(self) -> bool:
        return self.algorithm.startswith("strips/")


class CardSetCells(models.Model):
    """The cards of a set, ``size * rows * cols`` bytes, card after card, row by row (0 = blank).

    Kept apart from CardSet so that listing sets never loads their cards; one card is read on
    its own with a substring of ``cells``.
    """

    card_set = models.OneToOneField(
        CardSet, on_delete=models.CASCADE, primary_key=True, related_name="stored"
    )
    cells = models.BinaryField()

    class Meta:
        verbose_name = _("stored cards")

    def __str__(self) -> str:
        return f"cards of set #{self.pk}"


def _new_check_key() -> bytes:
    return secrets.token_bytes(16)


class Series(models.Model):
    """A numbered, serialized series of printed cards in a hall (R3, R16-R19)."""

    class Status(models.TextChoices):
        IN_STOCK = "in_stock", _("In stock")
        ON_SALE = "on_sale", _("On sale")
        EXHAUSTED = "exhausted", _("Exhausted")
        RETIRED = "retired", _("Retired")

    hall = models.ForeignKey(
        "halls.Hall", verbose_name=_("hall"), on_delete=models.PROTECT, related_name="series"
    )
    order_number = models.PositiveIntegerField(_("order number"))
    # A-K (R16), or blank for a size authorized by the regulator (R19), whose reference is kept.
    size_letter = models.CharField(_("size letter"), max_length=1, choices=SIZE_LETTER_CHOICES, blank=True)
    authorization = models.CharField(_("authorization (R19)"), max_length=200, blank=True)
    card_set = models.ForeignKey(
        CardSet, verbose_name=_("card set"), on_delete=models.PROTECT, related_name="series"
    )
    size = models.PositiveIntegerField(_("number of cards"))
    price = models.DecimalField(_("face value"), max_digits=12, decimal_places=2)
    back_colour = models.CharField(_("back colour (series)"), max_length=7)
    face_colour = models.CharField(_("face colour (price)"), max_length=7)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.IN_STOCK)
    last_sold = models.PositiveIntegerField(_("last card sold"), default=0)
    # The game selling this series now (set when its sales open, cleared when they close): a
    # sale for any other game finds no series row to take numbers from.
    on_sale_in = models.ForeignKey(
        "bingo.Game", on_delete=models.PROTECT, null=True, blank=True, related_name="+", editable=False
    )
    double = models.BooleanField(_("double cards (R15)"), default=False)
    # Set aside for online play (R85): sold only in the hall's online rooms, from wallets, still
    # in number order (R36-R38); a hall's desks never sell it, nor an online room a hall series.
    online = models.BooleanField(_("online play"), default=False)
    check_key = models.BinaryField(default=_new_check_key, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        on_delete=models.PROTECT,
        null=True,
        related_name="+",
    )
    retired_at = models.DateTimeField(_("retired at"), null=True, blank=True)

    class Meta:
        verbose_name = _("series")
        verbose_name_plural = _("series")
        ordering = ("hall", "order_number")
        constraints = [
            models.UniqueConstraint(
                fields=["hall", "order_number"], name="series_order_number_unique_in_hall"
            ),
            models.CheckConstraint(condition=Q(order_number__gt=0), name="series_order_number_positive"),
            models.CheckConstraint(condition=Q(price__gt=0), name="series_price_positive"),
            # Bounds of what the manager sets (bingo.common.bounds).
            models.CheckConstraint(
                condition=Q(order_number__lte=bounds.SERIES_ORDER_NUMBER_MAX),
                name="series_order_number_at_most_max",
            ),
            models.CheckConstraint(
                condition=Q(price__lte=bounds.CARD_PRICE_MAX), name="series_price_at_most_max"
            ),
            models.CheckConstraint(
                condition=Q(last_sold__lte=models.F("size")), name="series_cursor_within_size"
            ),
            models.CheckConstraint(
                condition=Q(back_colour__regex=COLOUR_PATTERN) & Q(face_colour__regex=COLOUR_PATTERN),
                name="series_colours_are_hex",
            ),
            models.CheckConstraint(
                condition=Q(size_letter="", authorization__gt="")
                | Q(
                    *[Q(size_letter=letter, size=size) for letter, size in SERIES_SIZES.items()],
                    _connector=Q.OR,
                ),
                name="series_size_matches_letter_or_authorized",
            ),
            models.CheckConstraint(
                condition=~Q(status="retired") | Q(retired_at__isnull=False), name="series_retired_has_date"
            ),
        ]

    def __str__(self) -> str:
        letter = self.size_letter or "*"
        return f"{letter}-{self.order_number}"

    @property
    def label(self) -> str:
        """How the series is named on cards and announcements: letter and order number (K-12)."""
        return str(self)


class PrintJob(models.Model):
    """A print run of a series' cards to PDF, made in the background when it is large."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting")
        RUNNING = "running", _("Printing")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    series = models.ForeignKey(
        Series, verbose_name=_("series"), on_delete=models.PROTECT, related_name="print_jobs"
    )
    first = models.PositiveIntegerField(_("from card"))
    last = models.PositiveIntegerField(_("to card"))
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING)
    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    error = models.TextField(_("error"), blank=True)
    pdf = models.FileField(_("PDF"), upload_to="prints/", blank=True)
    created_at = models.DateTimeField(_("requested at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        on_delete=models.PROTECT,
        null=True,
        related_name="+",
    )
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("print job")
        verbose_name_plural = _("print jobs")
        ordering = ("-created_at", "-id")
        constraints = [
            models.CheckConstraint(
                condition=Q(first__gte=1) & Q(last__gte=models.F("first")), name="print_job_range"
            ),
            models.CheckConstraint(
                condition=Q(last__lte=bounds.CARD_NUMBER_MAX), name="print_job_last_at_most_max"
            ),
            models.CheckConstraint(condition=Q(progress__lte=100), name="print_job_progress_at_most_100"),
            models.CheckConstraint(condition=~Q(status="done") | ~Q(pdf=""), name="print_job_done_has_pdf"),
        ]

    def __str__(self) -> str:
        return f"{self.series} {self.first}-{self.last}"
