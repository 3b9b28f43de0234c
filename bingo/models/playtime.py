"""The player's play session (PT-803 g, PT-806 t) and its time limit (R101)."""

from __future__ import annotations

from decimal import Decimal

from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Round
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.models.players import Player


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
                # Rounded to the cent: SQLite (make run) adds decimals as floats.
                condition=Q(net=Round(F("won") + F("refunded") - F("staked"), 2)),
                name="play_session_net",
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
