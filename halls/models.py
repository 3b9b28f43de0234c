"""Halls, their rooms and cash desks, and who works where in which role."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from bingo.roles import Role


class Hall(models.Model):
    """A licensed bingo hall: the operator's unit that owns series, rooms, desks and ball sets."""

    name = models.CharField(_("name"), max_length=120, unique=True)
    currency = models.CharField(_("currency"), max_length=3, default="CVE")
    time_zone = models.CharField(_("time zone"), max_length=64, default="Atlantic/Cape_Verde")
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
