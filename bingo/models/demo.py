"""Demo mode (R102, PT-803/43-44, PT-806/74-75): practice games and their credits' ledger."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.models.online import OnlineRoom
from bingo.models.players import Player
from cards.models import VARIANT_CHOICES


class DemoGame(models.Model):
    """A player's practice game (R102): it mirrors one of the operator's online rooms (its
    variant, pace (R88), prize plan's shape and 75-ball pattern, R73 b)) and plays with the
    engine, in demo credits only.

    Nothing of the real books: no sale, no series, no ball or prize rows, no acta, no jackpot,
    no tax. The cards are generated for the game (the player's and the simulated other players'),
    and every ball is drawn at creation with ``secrets`` and shown as its time comes (ball ``i``
    at ``started_at + i * ball_interval``); the server never shows a ball before its time.
    """

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="demo_games")
    online_room = models.ForeignKey(
        OnlineRoom, verbose_name=_("room mirrored"), on_delete=models.PROTECT, related_name="demo_games"
    )
    variant = models.CharField(_("variant"), max_length=2, choices=VARIANT_CHOICES)
    prize_plan = models.JSONField(_("prize plan"))
    # What wins, as ``Game.win_rules`` holds it: the room's 75-ball pattern (R73 b)) when it has
    # one. Games stored before it have none: the full card.
    win_rules = models.JSONField(_("winning combinations"), default=dict, blank=True)
    ball_interval = models.DecimalField(_("seconds between balls (R88)"), max_digits=5, decimal_places=2)
    card_price = models.PositiveIntegerField(_("demo credits a card"))
    #: The player's cards (the first ``cards_mine`` grids), then the simulated players' cards.
    cards = models.JSONField(_("cards"))
    cards_mine = models.PositiveSmallIntegerField(_("the player's cards"))
    #: Every ball to the game's end (the first bingo), in draw order; shown as time passes.
    balls = models.JSONField(_("balls"))
    #: The prizes: [{"kind", "amount", "at", "winners": [card index], "each"}], by the engine.
    results = models.JSONField(_("prizes"))
    winnings = models.PositiveIntegerField(_("demo credits won"))
    started_at = models.DateTimeField(_("started at"))
    key = models.CharField(max_length=80)
    settled_at = models.DateTimeField(_("winnings credited at"), null=True, blank=True)

    class Meta:
        verbose_name = _("demo game")
        verbose_name_plural = _("demo games")
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name="demo_game_key_unique"),
            # R88 holds in demo as in the room it mirrors.
            models.CheckConstraint(condition=Q(ball_interval__gte=1), name="demo_game_ball_interval_r88"),
            models.CheckConstraint(condition=Q(cards_mine__gte=1), name="demo_game_has_cards"),
            models.CheckConstraint(
                condition=Q(cards_mine__lte=bounds.DEMO_MAX_CARDS), name="demo_game_at_most_max_cards"
            ),
        ]

    def __str__(self) -> str:
        return f"demo #{self.pk} ({self.player})"


class DemoCreditEntry(models.Model):
    """One movement of a player's demo credits (R102, PT-803/44): a free grant, a stake on a
    demo game's cards, a demo game's winnings. Whole credits, no currency: nothing here is
    money, and nothing converts to money, vouchers or goods.

    An insert-only ledger apart from the wallet (``WalletEntry``): no foreign key to anything of
    the real books, and the wallet's ledger has none to it. As the wallet's, the database holds
    its invariants: ``balance_after`` never below zero, ``seq`` following the player's previous
    entry, and on PostgreSQL a trigger checks the chain and refuses UPDATE and DELETE
    (``bingo/migrations/0013``).
    """

    class Kind(models.TextChoices):
        GRANT = "grant", _("Free credits")
        STAKE = "stake", _("Demo cards")
        WIN = "win", _("Demo prize")

    #: Kinds that add to the demo balance; the stake takes from it.
    CREDITS = (Kind.GRANT.value, Kind.WIN.value)

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="demo_credit_entries")
    seq = models.PositiveIntegerField(_("entry"))
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    credits = models.IntegerField(_("demo credits"))
    balance_after = models.IntegerField(_("demo credits after"))
    game = models.ForeignKey(
        DemoGame, on_delete=models.PROTECT, null=True, blank=True, related_name="credit_entries"
    )
    key = models.CharField(max_length=80)
    created_at = models.DateTimeField(_("at"))

    class Meta:
        verbose_name = _("demo credit entry")
        verbose_name_plural = _("demo credit entries")
        ordering = ("player", "seq")
        constraints = [
            models.UniqueConstraint(fields=["player", "seq"], name="demo_credit_seq_unique"),
            models.UniqueConstraint(fields=["player", "key"], name="demo_credit_key_unique"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="demo_credit_seq_positive"),
            models.CheckConstraint(condition=Q(balance_after__gte=0), name="demo_credit_never_negative"),
            models.CheckConstraint(
                condition=Q(kind__in=["grant", "win"], credits__gt=0) | Q(kind="stake", credits__lt=0),
                name="demo_credit_sign_of_kind",
            ),
            models.CheckConstraint(
                condition=Q(kind="grant") | Q(game__isnull=False), name="demo_credit_stake_win_has_game"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} demo #{self.seq}: {self.credits}"
