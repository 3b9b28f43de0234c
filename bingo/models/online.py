"""Online rooms (R88-R93), the player's last visit to the lobby (R99) and their standing orders
for a room's next games (buying ahead, R93)."""

from __future__ import annotations

from decimal import Decimal

from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from bingo.common import bounds
from bingo.engine.patterns import CUSTOM, LIBRARY
from bingo.models.players import Player
from cards.models import VARIANT_CHOICES

#: A custom figure as ``OnlineRoom.pattern`` stores it: five rows of five cells, X in it and . not,
#: separated by / (``bingo.engine.detection.pattern_text``, as ``Game.win_rules`` stores one).
PATTERN_CELLS_REGEX = r"^[X.]{5}(/[X.]{5}){4}$"


class RoomMode(models.TextChoices):
    """How an online room runs (R89-R91)."""

    CONTINUOUS = "continuous", _("Continuous (always open)")
    SESSION = "session", _("Sessions (scheduled and announced)")


class OnlineRoom(models.Model):
    """A room of a hall played online (R85-R93): its mode and the pace of its draws.

    Continuous mode (R90): always open, games back to back whatever the number of players, each
    with a sales window of ``sales_seconds``, of ``variant`` with ``prize_plan``, selling the
    hall's online series in number order. Session mode (R91-R93): the operator schedules
    sessions and their games (several variants and prices at once, R92), whose sales open and
    close for everyone together (R93).

    ``pattern`` is the bingo of the room's 75-ball games (R73): blank for the full card (R73 a),
    every other variant's only bingo), else a figure of the library by its key or a custom one
    by its cells (R73 b)). Each game copies it when it is created (``pattern_choice``), so a change
    never reaches a game already created, selling or drawing (R36, R93).
    """

    room = models.OneToOneField(
        "halls.Room",
        verbose_name=_("room"),
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="online",
    )
    mode = models.CharField(_("mode"), max_length=12, choices=RoomMode.choices)
    ball_interval = models.DecimalField(
        _("seconds between balls (R88)"), max_digits=5, decimal_places=2, default=Decimal("4")
    )
    sales_seconds = models.PositiveIntegerField(_("sales window (seconds)"), default=60)
    pause_seconds = models.PositiveIntegerField(_("pause between games (seconds)"), default=10)
    # Continuous mode: a game's sales never close sooner than this after its first purchase, so
    # others have time to join a game that sold nothing until then (0: the window alone decides).
    sales_after_first_seconds = models.PositiveIntegerField(
        _("minimum sales time after the first purchase (seconds)"), default=0
    )
    variant = models.CharField(_("variant"), max_length=2, choices=VARIANT_CHOICES, default="90")
    prize_plan = models.JSONField(_("prize plan"), default=dict, blank=True)
    pattern = models.CharField(_("75-ball bingo pattern (R73 b))"), max_length=29, blank=True, default="")
    # 90-ball strips of six (6 cards holding 1-90 once each): the room sells whole strips only,
    # from series whose card set was generated as strips ("strips/1").
    strips = models.BooleanField(_("sells strips of six"), default=False)
    active = models.BooleanField(_("open to players"), default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Why the room sells nothing, as the autodraw loop last found it (empty when nothing stops
    # it): {"reason": "no_series", "variant": ...} or {"reason": "session_no_series", ...}. The
    # loop writes it, and logs, only when it changes; the manager reads it on the room's page
    # and in the API (bingo.online.selectors.online_room_idle).
    idle = models.JSONField(_("why no game sells"), default=dict, blank=True)
    idle_since = models.DateTimeField(_("idle since"), null=True, blank=True)

    class Meta:
        verbose_name = _("online room")
        verbose_name_plural = _("online rooms")
        constraints = [
            models.CheckConstraint(condition=Q(mode__in=RoomMode.values), name="online_room_mode_known"),
            # R88: never under one second between balls.
            models.CheckConstraint(condition=Q(ball_interval__gte=1), name="online_room_ball_interval_r88"),
            models.CheckConstraint(condition=Q(sales_seconds__gte=5), name="online_room_sales_window"),
            # R90: a continuous room's sales window and pause, an hour at most (bingo.common.bounds).
            models.CheckConstraint(
                condition=Q(sales_seconds__lte=bounds.SALES_SECONDS_MAX),
                name="online_room_sales_window_at_most_an_hour",
            ),
            models.CheckConstraint(
                condition=Q(pause_seconds__lte=bounds.PAUSE_SECONDS_MAX),
                name="online_room_pause_at_most_an_hour",
            ),
            models.CheckConstraint(
                condition=Q(sales_after_first_seconds__lte=bounds.SALES_AFTER_FIRST_SECONDS_MAX),
                name="online_room_sales_after_first_at_most_an_hour",
            ),
            # Strips of six exist only for 90-ball cards (bingo.engine.generate).
            models.CheckConstraint(
                condition=Q(strips=False) | Q(variant="90"), name="online_room_strips_only_90"
            ),
            # R73 b): only the 75-ball bingo may be a pattern; the others are the full card.
            models.CheckConstraint(
                condition=Q(pattern="") | Q(variant="75"), name="online_room_pattern_only_75"
            ),
            # A key of the library or a custom figure's cells (bingo.engine.patterns).
            models.CheckConstraint(
                condition=Q(pattern="")
                | Q(pattern__in=sorted(LIBRARY))
                | Q(pattern__regex=PATTERN_CELLS_REGEX),
                name="online_room_pattern_known",
            ),
            # R74: a pattern is the game's only prize; the line and four corners go with the full card.
            models.CheckConstraint(
                condition=Q(pattern="")
                | (~Q(prize_plan__has_key="line") & ~Q(prize_plan__has_key="four_corners")),
                name="online_room_pattern_bingo_alone_r74",
            ),
        ]

    def __str__(self) -> str:
        return str(self.room)

    def pattern_choice(self) -> tuple[str | None, str | None]:
        """The room's pattern as ``game_create`` takes it: ``(pattern_key, pattern)``, both None
        for the full card (R73 a)), a library key alone, or ``custom`` with the cells' text."""
        if not self.pattern:
            return None, None
        if self.pattern in LIBRARY:
            return self.pattern, None
        return CUSTOM, self.pattern

    @classmethod
    def serves(cls, room_id: int) -> bool:
        """Whether room ``room_id`` is an online room (its online side shares its key)."""
        return cls.objects.filter(pk=room_id).exists()


class PlayerVisit(models.Model):
    """When the player last opened the online lobby (R99): the lobby lists their games that ended
    since, so a player who was away (their connection lost, the page closed) sees what happened:
    the balls, their prizes credited, or the refund and its reason."""

    player = models.OneToOneField(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, primary_key=True, related_name="visit"
    )
    lobby_seen_at = models.DateTimeField(_("lobby last seen at"))

    class Meta:
        verbose_name = _("player's last visit")
        verbose_name_plural = _("players' last visits")

    def __str__(self) -> str:
        return f"{self.player}: {self.lobby_seen_at}"


class OrderEnd(models.TextChoices):
    """Why a standing order stopped buying. Only ``refused`` keeps words of its own (the
    purchase's refusal, ``OnlineOrder.end_text``); the others are said from the code, in the
    language of whoever reads it (``bingo.online.selectors.order_end_text``)."""

    COMPLETED = "completed", _("Completed")
    CANCELLED = "cancelled", _("Cancelled by the player")
    REFUSED = "refused", _("Refused")
    ROOM_CLOSED = "room_closed", _("The room closed")
    # R101: a self-exclusion, a break, the operator's exclusion or the hall's break after a
    # session's time limit began: the order ends in the same transaction.
    BARRED = "barred", _("Responsible gaming (R101)")
    # Skipped in ORDER_SKIPS_MAX games (none at its price and variant, or its fill always late).
    SKIPPED = "skipped", _("Skipped in too many games")


class FillSkip(models.TextChoices):
    """Why a standing order bought nothing in a game and went on to the next: the operator's side,
    never the player's (``OnlineOrderFill.skip``)."""

    # R93: the game's sales had closed when the fill came (a worker busy or down).
    NOT_SELLING = "not_selling", _("Sales closed before the order could buy")
    # The game sells at another price, or is another variant or pattern, than the order pinned.
    PRICE = "price", _("Another card price")
    VARIANT = "variant", _("Another variant")
    PATTERN = "pattern", _("Another pattern")
    # The game could not sell the cards (its series ran out): ``refusal`` keeps what it said.
    UNAVAILABLE = "unavailable", _("The cards could not be sold")


#: The longest key a player (or their client) gives an order: the same key again is the same order.
ORDER_KEY_MAX = 40
#: An order skipped in this many games ends (``OrderEnd.SKIPPED``): never an endless stream of
#: skips in a room whose games no longer match it.
ORDER_SKIPS_MAX = 30


class OnlineOrder(models.Model):
    """A player's standing order in an online room: ``quantity`` cards in each of the next
    ``games_wanted`` games whose sales open after it was placed (buying ahead, issue 25).

    Nothing is held: no money leaves the wallet until a game's sales have opened for every
    player at once (R93); then the order buys through the one purchase path (``online_buy``:
    R35, R101, the funds, R36's numbered order), its fill recorded in ``OnlineOrderFill``. A
    refusal of the player's own (the funds, a limit, an exclusion or a break, R35, R101) ends the
    order with its reason (``end_text``); the last game filled completes it; the player may cancel
    it; a room closed to players ends it; an exclusion or a break taken ends it at once (R101). A
    game the operator's side keeps it from buying in (its sales closed before the fill ran, another
    price, variant or pattern than ``price``, ``variant`` and ``pattern`` pinned when it was
    placed) is skipped and the order goes on. At most one open order per player and room.
    """

    player = models.ForeignKey(
        Player, verbose_name=_("player"), on_delete=models.PROTECT, related_name="online_orders"
    )
    online_room = models.ForeignKey(
        OnlineRoom, verbose_name=_("online room"), on_delete=models.PROTECT, related_name="orders"
    )
    quantity = models.PositiveIntegerField(_("cards per game"))
    games_wanted = models.PositiveSmallIntegerField(_("games wanted"))
    games_filled = models.PositiveSmallIntegerField(_("games filled"), default=0)
    key = models.CharField(_("key"), max_length=ORDER_KEY_MAX)
    # The room's last opening of sales when the order was placed (under the room's lock): the order
    # fills only games whose sales open after it, never one selling already (R93: the games a
    # purchase ahead buys into now are its own purchases).
    fills_after = models.DateTimeField(_("fills games opening after"), null=True, blank=True)
    # What the player saw when ordering: a game at another price, or of another variant or
    # pattern, is skipped, never bought (the pattern as ``OnlineRoom.pattern`` stores it).
    price = models.DecimalField(_("card price"), max_digits=12, decimal_places=2)
    variant = models.CharField(_("variant"), max_length=2, choices=VARIANT_CHOICES)
    pattern = models.CharField(_("75-ball bingo pattern (R73 b))"), max_length=29, blank=True, default="")
    created_at = models.DateTimeField(_("placed at"))
    cancelled_at = models.DateTimeField(_("cancelled at"), null=True, blank=True)
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)
    end_reason = models.CharField(_("end reason"), max_length=12, choices=OrderEnd.choices, blank=True)
    # Why a refused order ended: the purchase's refusal as it was said (the wallet short, a limit,
    # an exclusion); blank for every other end, said from its code.
    end_text = models.TextField(_("why it ended"), blank=True)

    class Meta:
        verbose_name = _("standing order")
        verbose_name_plural = _("standing orders")
        indexes = [models.Index(fields=["online_room", "ended_at"], name="online_order_room_open")]
        constraints = [
            # The same key again is the same order (a form or a request sent twice).
            models.UniqueConstraint(fields=["player", "key"], name="online_order_key_unique"),
            # One open order per player and room: another is refused until it ends or is cancelled.
            models.UniqueConstraint(
                fields=["player", "online_room"],
                condition=Q(ended_at__isnull=True),
                name="online_order_one_open_per_room",
            ),
            models.CheckConstraint(
                condition=Q(price__gt=0, price__lte=bounds.CARD_PRICE_MAX), name="online_order_price_bounds"
            ),
            # R73 b): as the room's, a pattern only on 75-ball cards, a library key or cells.
            models.CheckConstraint(
                condition=Q(pattern="") | Q(variant="75"), name="online_order_pattern_only_75"
            ),
            models.CheckConstraint(
                condition=Q(pattern="")
                | Q(pattern__in=sorted(LIBRARY))
                | Q(pattern__regex=PATTERN_CELLS_REGEX),
                name="online_order_pattern_known",
            ),
            # Only a refusal keeps its words; every other end is said from its code.
            models.CheckConstraint(
                condition=Q(end_text="") | Q(end_reason=OrderEnd.REFUSED),
                name="online_order_end_text_refused",
            ),
            models.CheckConstraint(
                condition=Q(games_filled__lte=F("games_wanted")), name="online_order_filled_at_most_wanted"
            ),
            # The bounds of a purchase (R35's per-sale bound, bingo.common.bounds) and of buying ahead.
            models.CheckConstraint(
                condition=Q(quantity__gte=1, quantity__lte=bounds.SALE_MAX_CARDS),
                name="online_order_quantity_bounds",
            ),
            models.CheckConstraint(
                condition=Q(games_wanted__gte=1, games_wanted__lte=bounds.BUY_AHEAD_GAMES_MAX),
                name="online_order_games_bounds",
            ),
            # Ended exactly when it says why; cancelled only by the player's cancel; completed
            # only with every game filled.
            models.CheckConstraint(
                condition=Q(ended_at__isnull=True, end_reason="")
                | Q(ended_at__isnull=False, end_reason__in=OrderEnd.values),
                name="online_order_end_has_reason",
            ),
            models.CheckConstraint(
                condition=Q(cancelled_at__isnull=True) | Q(end_reason=OrderEnd.CANCELLED),
                name="online_order_cancelled_reason",
            ),
            models.CheckConstraint(
                condition=~Q(end_reason=OrderEnd.COMPLETED) | Q(games_filled=F("games_wanted")),
                name="online_order_completed_all_filled",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.quantity} x {self.games_wanted} ({self.online_room})"

    @property
    def is_open(self) -> bool:
        return self.ended_at is None

    @property
    def games_left(self) -> int:
        return self.games_wanted - self.games_filled


class OnlineOrderFill(models.Model):
    """One game a standing order bought into (``sale``, its first sale row), was refused in
    (``refusal``, the player's reason, which ended the order), or skipped (``skip``, the
    operator's side: the order went on; with ``refusal``, the words of an ``unavailable`` game).
    One per order and game: the database holds it, so a fill run twice buys once and a game
    skipped is not tried again."""

    order = models.ForeignKey(
        OnlineOrder, verbose_name=_("standing order"), on_delete=models.PROTECT, related_name="fills"
    )
    game = models.ForeignKey(
        "bingo.Game", verbose_name=_("game"), on_delete=models.PROTECT, related_name="order_fills"
    )
    sale = models.OneToOneField(
        "bingo.Sale",
        verbose_name=_("sale"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="order_fill",
    )
    refusal = models.TextField(_("refusal"), blank=True)
    skip = models.CharField(_("skipped because"), max_length=12, choices=FillSkip.choices, blank=True)
    created_at = models.DateTimeField(_("at"))

    class Meta:
        verbose_name = _("standing order's game")
        verbose_name_plural = _("standing orders' games")
        constraints = [
            models.UniqueConstraint(fields=["order", "game"], name="online_order_fill_once_per_game"),
            # Bought (a sale), refused (why) or skipped (the code; an unavailable game's words
            # too): exactly one of them.
            models.CheckConstraint(
                condition=Q(sale__isnull=False, refusal="", skip="")
                | (Q(sale__isnull=True, skip="") & ~Q(refusal=""))
                | (
                    Q(sale__isnull=True, skip__in=FillSkip.values)
                    & (Q(refusal="") | Q(skip=FillSkip.UNAVAILABLE))
                ),
                name="online_order_fill_sale_refusal_or_skip",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.order_id} @ {self.game_id}"
