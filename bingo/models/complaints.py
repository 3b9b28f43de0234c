"""Players' complaints about an online game (R61 j))."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from bingo.models.games import Game
from bingo.models.players import Player

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
