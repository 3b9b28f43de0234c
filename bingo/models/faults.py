"""Faults of the system (R98-R99, PT-803/33-34, PT-806/72-73): a game annulled by a fault, a
ball the system failed to draw."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from bingo.models.games import Game


class FaultSource(models.TextChoices):
    OPERATOR = "operator", _("declared by the operator")
    SYSTEM = "system", _("found by the system")


class GameFault(models.Model):
    """A fault of the system's side that kept an online game from being decided (R98, PT-803/33,
    PT-806/72): the game is null and every card was refunded to the wallets. One per game: the
    row is the proof it was declared, by whom (a manager or caller, or the system user when the
    reconciler found it), when and from where (``source``); insert-only. Why is where every
    annulment keeps it: the game's ``state_reason`` («System fault (R98): …») and the acta's
    equipment-failure note (``bingo.faults.services.online_game_fault``)."""

    game = models.OneToOneField(
        Game, verbose_name=_("game"), on_delete=models.PROTECT, primary_key=True, related_name="fault"
    )
    source = models.CharField(_("declared"), max_length=10, choices=FaultSource.choices)
    declared_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    declared_at = models.DateTimeField(_("declared at"))

    class Meta:
        verbose_name = _("system fault")
        verbose_name_plural = _("system faults")
        constraints = [
            models.CheckConstraint(
                condition=Q(source__in=FaultSource.values), name="game_fault_source_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game}: {self.get_source_display()}"


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
