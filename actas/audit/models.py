"""The actions on games and sessions whose own rows do not say who made them.

A sale, a ball, a claim, a prize, a payment, a refund, a ball-set check or replacement and a
jackpot movement each keep who and when in their own row (the audit's selectors read them
there). Opening and closing a game's sales, starting its draw, suspending, resuming or annulling
it, switching it to manual extraction and closing a session change only a state and a time on the
game or session row, which the next change overwrites: so the person is recorded here, one row per
action, in the same transaction as the action. Rows are never changed or deleted (on PostgreSQL a
trigger refuses it, migration ``0002``); the Django app that holds the table is ``actas``, whose
``models`` module imports this one.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class AuditAction(models.TextChoices):
    """What a member of staff did that ``AuditEvent`` records."""

    SALES_OPENED = "sales_opened", _("Opened the sales")
    SALES_CLOSED = "sales_closed", _("Closed the sales")
    DOUBLES_PLAYED = "doubles_played", _("Played the double cards again")
    DRAW_STARTED = "draw_started", _("Started the draw")
    MANUAL_SWITCH = "manual_switch", _("Switched to manual extraction")
    GAME_SUSPENDED = "game_suspended", _("Suspended the game")
    GAME_RESUMED = "game_resumed", _("Resumed the game")
    GAME_ANNULLED = "game_annulled", _("Annulled the game")
    SESSION_CLOSED = "session_closed", _("Closed the session")


class AuditEvent(models.Model):
    """One action by one person (or by the system, ``user`` empty) in one hall, at one time."""

    Action = AuditAction

    at = models.DateTimeField(_("at"), default=timezone.now)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    hall = models.ForeignKey("halls.Hall", verbose_name=_("hall"), on_delete=models.PROTECT, related_name="+")
    action = models.CharField(_("action"), max_length=20, choices=AuditAction.choices)
    session = models.ForeignKey(
        "bingo.Session",
        verbose_name=_("session"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    game = models.ForeignKey(
        "bingo.Game",
        verbose_name=_("game"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    detail = models.TextField(_("detail"), blank=True)

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ("-at", "-id")
        indexes = [
            # The trail reads one hall's events newest first, a page at a time (keyset on at, id).
            models.Index(fields=["hall", "-at", "-id"], name="audit_event_hall_at"),
            models.Index(fields=["user", "-at", "-id"], name="audit_event_user_at"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(action__in=AuditAction.values), name="audit_event_action_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} · {self.get_action_display()}"
