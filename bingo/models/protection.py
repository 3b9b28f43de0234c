"""Responsible gaming (R101): deposit and loss limits, self-exclusion and the operator's
exclusion list."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.models.players import Player


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
    ``PlayerExclusionLift`` row). ``ends_at`` None is for good. Insert-only, kept for ever.

    ``kind`` ``pause`` is the player's short break («fazer uma pausa»: 24 hours, 7 or 30 days),
    beside the self-exclusion's months and years: it bars the same, always their own choice,
    always with an end, never lifted before it."""

    class Source(models.TextChoices):
        SELF = "self", _("Self-exclusion")
        OPERATOR = "operator", _("Operator")

    class Kind(models.TextChoices):
        EXCLUSION = "exclusion", _("Exclusion")
        PAUSE = "pause", _("Break")

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="exclusions")
    source = models.CharField(_("excluded by"), max_length=8, choices=Source.choices)
    kind = models.CharField(_("kind"), max_length=9, choices=Kind.choices, default=Kind.EXCLUSION)
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
            models.CheckConstraint(
                condition=Q(kind__in=["exclusion", "pause"]), name="player_exclusion_kind_known"
            ),
            # A break is the player's own, and ends (its longest, 30 days, is PostgreSQL's
            # player_exclusion_pause_at_most_30_days, bingo/migrations/0025).
            models.CheckConstraint(
                condition=Q(kind="exclusion") | Q(source="self", ends_at__isnull=False),
                name="player_exclusion_pause_is_own_and_ends",
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
