"""Writes of online play (R85-R96): setting up online rooms, scheduling their sessions, and a
player buying cards from the wallet.

* ``online_room_create`` / ``online_room_update``: a hall's room played online, its mode
  (continuous R90, or sessions R91), the seconds between balls (never under 1, R88), the sales
  window and pause of a continuous room, its variant and prize plan (R7, checked as a hall's
  game's plan is, ``bingo.games.services.game_plan_check``) and the pattern its 75-ball games'
  bingo is (R73 b), checked by the same function), which each game copies when it is created.
* ``online_session_schedule``: a session of a session-mode room with several games at once,
  different variants and prices (R92), whose sales open at the session's start and close at one
  moment for all of them (R93). The autodraw reconciler opens, closes and draws at those times.
* ``online_buy``: the next cards of the game's online series in number order (R36-R38)
  (``bingo.sales.services.sale_make_online``), paid from the wallet in the same transaction:
  the wallet's lock, the checks and the debit first, the cards last; a retried request (same
  key) counts once.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from bingo.common import bounds
from bingo.common.clock import hall_clock_text
from bingo.common.money import money_display
from bingo.common.patterns import pattern_stored_normal, pattern_stored_of
from bingo.common.tasks import task_enqueue_on_commit
from bingo.engine.detection import Cell, pattern_text
from bingo.engine.patterns import CUSTOM, pattern_key_of
from bingo.games import locks
from bingo.games import services as game_services
from bingo.models import (
    ORDER_KEY_MAX,
    ORDER_SKIPS_MAX,
    FillSkip,
    Game,
    GameState,
    Marking,
    OnlineOrder,
    OnlineOrderFill,
    OnlineRoom,
    OrderEnd,
    Player,
    PlayerVisit,
    RoomMode,
    Sale,
    Session,
    WalletEntry,
)
from bingo.online import selectors as online_selectors
from bingo.players import selectors as player_selectors
from bingo.players import services as player_services
from bingo.playtime import services as playtime_services
from bingo.protection import selectors as protection_selectors
from bingo.protection import services as protection_services
from bingo.sales import services as sales_services
from cards.models import VARIANT_CHOICES
from halls.models import Hall, Room

logger = logging.getLogger(__name__)

#: R88: never under one second between balls.
MIN_BALL_INTERVAL = bounds.BALL_INTERVAL_MIN
#: The longest idempotency key a client may send (namespaced per player before it is stored).
KEY_MAX = 40
#: How far in the past a scheduled session may start: the minute the manager types on the
#: screen (its times have no seconds) and a little clock skew; earlier is refused (R91).
SCHEDULE_GRACE = timedelta(minutes=2)


# --- rooms (R88-R93) ---------------------------------------------------------------------------


def _ball_interval(value: Decimal | str | int | float) -> Decimal:
    try:
        seconds = Decimal(str(value))
        if not seconds.is_finite():
            raise InvalidOperation
    except (InvalidOperation, ValueError):
        raise ValidationError({"ball_interval": _("Give the seconds between balls as a number.")}) from None
    if seconds < MIN_BALL_INTERVAL:
        raise ValidationError(
            {
                "ball_interval": _("Balls are drawn at least one second apart (R88): %(s)s s is too fast.")
                % {"s": seconds}
            }
        )
    if seconds != seconds.quantize(Decimal("0.01")) or seconds > bounds.BALL_INTERVAL_MAX:
        raise ValidationError(
            {"ball_interval": _("Give the seconds between balls with at most two decimals, under 1000.")}
        )
    return seconds


def _room_fields(fields: dict[str, Any], *, jackpot_active: bool) -> dict[str, Any]:
    """The checked fields of an online room (those given)."""
    checked: dict[str, Any] = {}
    if "mode" in fields:
        if fields["mode"] not in RoomMode.values:
            raise ValidationError({"mode": _("Choose continuous or session mode (R89).")})
        checked["mode"] = fields["mode"]
    if "ball_interval" in fields:
        checked["ball_interval"] = _ball_interval(fields["ball_interval"])
    for name, least, most in (
        ("sales_seconds", bounds.SALES_SECONDS_MIN, bounds.SALES_SECONDS_MAX),  # R90
        ("pause_seconds", 0, bounds.PAUSE_SECONDS_MAX),
        ("sales_after_first_seconds", 0, bounds.SALES_AFTER_FIRST_SECONDS_MAX),
    ):
        if name in fields:
            value = fields[name]
            if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
                raise ValidationError(
                    {
                        name: _("Give a whole number of seconds from %(least)d to %(most)d.")
                        % {"least": least, "most": most}
                    }
                )
            checked[name] = value
    if "variant" in fields or "prize_plan" in fields:
        plan = fields.get("prize_plan") or None
        if plan is not None and not isinstance(plan, dict):
            raise ValidationError(
                {"prize_plan": _("A prize plan names prizes and their share of sales in percent.")}
            )
        try:
            variant, shares, _rules = game_services.game_plan_check(
                variant=fields.get("variant", "90"), prize_plan=plan, jackpot_active=jackpot_active
            )
        except ValidationError as exc:
            raise ValidationError({"prize_plan": exc.messages}) from None
        checked["variant"] = variant.value
        checked["prize_plan"] = {kind.value: str(share) for kind, share in shares.shares}
        if "pattern" in fields:
            checked["pattern"] = _room_pattern(
                variant=variant.value,
                prize_plan=plan,
                jackpot_active=jackpot_active,
                key=fields["pattern"],
                drawn=fields.get("custom_pattern"),
            )
    if "strips" in fields:
        checked["strips"] = bool(fields["strips"])
    if "active" in fields:
        checked["active"] = bool(fields["active"])
    return checked


def _room_pattern(
    *,
    variant: str,
    prize_plan: dict[str, str] | None,
    jackpot_active: bool,
    key: str | None,
    drawn: str | Iterable[Cell] | None,
) -> str:
    """The room's pattern as ``OnlineRoom.pattern`` stores it: blank for the full card (R73 a)),
    a library key, or a custom figure's cells (a drawing of a library figure is that figure).
    ``key`` and ``drawn`` are a game's ``pattern_key`` and ``pattern``, checked with the room's
    variant and plan by the function that checks a hall game's (R73 b): a 75-ball figure on the
    card; R74: the bingo alone); ValidationError on ``pattern`` otherwise."""
    key = key or None
    if key is None and not drawn:
        return ""
    try:
        _variant, _plan, rules = game_services.game_plan_check(
            variant=variant,
            prize_plan=prize_plan,
            jackpot_active=jackpot_active,
            pattern=drawn,
            pattern_key=key,
        )
    except ValidationError as exc:
        raise ValidationError({"pattern": exc.messages}) from None
    if rules.pattern is None:
        return ""
    found = pattern_key_of(rules.pattern)
    return found if found != CUSTOM else pattern_text(rules.pattern)


def _strips_check(*, variant: str, strips: bool) -> None:
    """Strips of six hold the 90 numbers once each: only a 90-ball room sells them."""
    if strips and variant != "90":
        raise ValidationError({"strips": _("Strips of six exist only for 90-ball cards.")})


def _strips_switch_check(online_room: OnlineRoom) -> None:
    """Selling strips or single cards is switched only while no game of the room sells: a strip
    is six cards from a number after a multiple of six, which single cards sold in the same game
    would shift (R36: no number is ever skipped)."""
    if Game.objects.filter(session__room_id=online_room.pk, state=GameState.SELLING.value).exists():
        raise ValidationError(
            {
                "strips": _(
                    "A game of this room is selling: switch between strips and single cards once "
                    "its sales have closed (R36)."
                )
            }
        )


def _series_check(hall: Hall, *, mode: str, variant: str, active: bool, strips: bool = False) -> None:
    """R90: a continuous room open to players sells a game of its variant at once and back to
    back; refused when the hall has no online series of that variant to sell (of strips, for a
    room selling strips), rather than a room that says it is open and sells nothing."""
    if (
        active
        and mode == RoomMode.CONTINUOUS
        and not online_selectors.online_series_available(hall=hall, variant=variant, strips=strips)
    ):
        if strips:
            raise ValidationError(
                {
                    "strips": _(
                        "The hall has no online series of 90-ball strips of six with whole strips "
                        "left to sell (R90): create a card set generated as strips and an online "
                        "series of it first, or sell single cards."
                    )
                }
            )
        raise ValidationError(
            {
                "variant": _(
                    "The hall has no online series of variant %(variant)s with cards left to sell, "
                    "so a continuous room of that variant would sell nothing (R90): create one first "
                    "(Series → New series, «Online play» ticked), or open the room later."
                )
                % {"variant": variant}
            }
        )


def _sessions_check(online_room: OnlineRoom) -> None:
    """A session-mode room switched to continuous mode: refused while a session of the room is
    scheduled or running (it ends later), which the continuous loop would take as its own and
    sell at once, with the room's variant, whatever was announced (R91-R93)."""
    pending = (
        Session.objects.filter(
            room_id=online_room.pk, ended_at__isnull=True, scheduled_end__gt=timezone.now()
        )
        .order_by("starts_at")
        .first()
    )
    if pending is not None:
        hall = online_room.room.hall
        raise ValidationError(
            {
                "mode": _(
                    "The session from %(start)s to %(end)s is scheduled in this room: switch it to "
                    "continuous mode once that session has ended (R91, R93)."
                )
                % {
                    "start": hall_clock_text(pending.starts_at, hall),
                    "end": hall_clock_text(pending.scheduled_end, hall),
                }
            }
        )


def online_room_create(
    *,
    hall: Hall,
    name: str,
    mode: str,
    ball_interval: Decimal | str,
    sales_seconds: int = 60,
    pause_seconds: int = 10,
    variant: str = "90",
    prize_plan: dict[str, str] | None = None,
    active: bool = True,
    sales_after_first_seconds: int = 0,
    strips: bool = False,
    pattern: str | None = None,
    custom_pattern: str | Iterable[Cell] | None = None,
) -> OnlineRoom:
    """A new room of ``hall`` played online (R85-R93); ValidationError, per field, says what is
    wrong (R88: a ball interval under one second is refused; R90: a continuous room open to
    players with no online series of its variant to sell). ``pattern`` (a library key, or
    ``custom`` with the cells ``custom_pattern``) makes its 75-ball games' bingo that figure
    (R73 b), the bingo alone, R74); None: the full card (R73 a))."""
    checked = _room_fields(
        {
            "mode": mode,
            "ball_interval": ball_interval,
            "sales_seconds": sales_seconds,
            "pause_seconds": pause_seconds,
            "variant": variant,
            "prize_plan": prize_plan,
            "active": active,
            "sales_after_first_seconds": sales_after_first_seconds,
            "strips": strips,
            "pattern": pattern,
            "custom_pattern": custom_pattern,
        },
        jackpot_active=hall.jackpot_active,
    )
    name = name.strip()
    if not name:
        raise ValidationError({"name": _("Give the room a name.")})
    _strips_check(variant=checked["variant"], strips=checked["strips"])
    _series_check(
        hall,
        mode=checked["mode"],
        variant=checked["variant"],
        active=checked["active"],
        strips=checked["strips"],
    )
    with transaction.atomic():
        if Room.objects.filter(hall=hall, name=name).exists():
            raise ValidationError({"name": _("This hall already has a room of that name.")})
        room = Room.objects.create(hall=hall, name=name)
        return OnlineRoom.objects.create(room=room, **checked)


def online_room_update(*, online_room: OnlineRoom, **fields: Any) -> OnlineRoom:
    """Change an online room's setup: any of ``name``, ``mode``, ``ball_interval`` (R88),
    ``sales_seconds``, ``pause_seconds``, ``sales_after_first_seconds``, ``variant``,
    ``prize_plan``, ``pattern`` (with ``custom_pattern``, as ``online_room_create``), ``strips``,
    ``active``. A game already created keeps the setup it was created with: its pattern too,
    whether planned, selling or drawing (R36, R93: what was sold is what is played). Refused when
    the change would open a continuous room, or change its variant, with no online series to
    sell (R90), switch a room to continuous mode while one of its sessions is scheduled or
    running (R91), switch strips while a game sells (R36), or leave a pattern on another variant
    than 75 or beside a line (R73 b), R74). Closing the room to players ends its open standing
    orders, saying why."""
    unknown = set(fields) - {
        "name", "mode", "ball_interval", "sales_seconds", "pause_seconds", "sales_after_first_seconds",
        "variant", "prize_plan", "pattern", "custom_pattern", "strips", "active",
    }  # fmt: skip
    if unknown:
        raise ValueError(f"unknown fields: {sorted(unknown)}")
    with transaction.atomic():
        locked = locks.online_room_lock(room_id=online_room.pk)
        if {"variant", "prize_plan", "pattern", "custom_pattern"} & set(fields):
            # The plan and the pattern are checked against the variant: all three together, the
            # ones not given as the room has them.
            fields.setdefault("variant", locked.variant)
            fields.setdefault("prize_plan", locked.prize_plan or None)
            if "pattern" not in fields and "custom_pattern" not in fields:
                fields["pattern"], fields["custom_pattern"] = locked.pattern_choice()
            fields.setdefault("pattern", None)
        checked = _room_fields(fields, jackpot_active=locked.room.hall.jackpot_active)
        running = {name: getattr(locked, name) for name in ("mode", "variant", "active", "strips")}
        becomes = {name: checked.get(name, value) for name, value in running.items()}
        _strips_check(variant=becomes["variant"], strips=becomes["strips"])
        if becomes["strips"] != running["strips"]:
            _strips_switch_check(locked)
        if becomes != running:
            # Only a change of what the room plays or whether it is open: a room that waits for
            # a series already (its page says why) still takes other changes.
            _series_check(locked.room.hall, **becomes)
        if running["mode"] == RoomMode.SESSION and becomes["mode"] == RoomMode.CONTINUOUS:
            _sessions_check(locked)
        if "name" in fields:
            name = str(fields["name"]).strip()
            if not name:
                raise ValidationError({"name": _("Give the room a name.")})
            if Room.objects.filter(hall=locked.room.hall, name=name).exclude(pk=locked.pk).exists():
                raise ValidationError({"name": _("This hall already has a room of that name.")})
            locked.room.name = name
            locked.room.save(update_fields=["name"])
        for field, value in checked.items():
            setattr(locked, field, value)
        if checked:
            locked.save(update_fields=list(checked))
        if running["active"] and not becomes["active"]:
            # Its games sell nothing now: no order of it waits for a game that will not open.
            _orders_end_room_closed(online_room_id=locked.pk, now=timezone.now())
    return locked


@dataclass(frozen=True)
class SessionGame:
    """One game of a scheduled online session: its variant, the face value of the cards it
    sells (R92) and its prize plan (None: the variant's default; for a 75-ball game of a room
    with a pattern, the room's plan, R73 b), R74)."""

    variant: str
    price: Decimal | str
    prize_plan: dict[str, str] | None = None


def _only_session_mode() -> ValidationError:
    return ValidationError(
        _("Only a session-mode room has scheduled sessions (R91); a continuous one runs itself (R90).")
    )


def _schedule_check(
    *, hall: Hall, starts_at: datetime, sales_close_at: datetime, scheduled_end: datetime, games: int
) -> None:
    """R91-R93: a session starts now or later, ends after it starts, has at most
    ``SESSION_MAX_GAMES`` games and its sales close in between; refused with the field at fault
    otherwise."""
    if starts_at < timezone.now() - SCHEDULE_GRACE:
        # R91: the operator schedules and announces a session before it starts. One that has
        # started already would open its sales at once, its start in the past in the acta.
        raise ValidationError(
            {
                "starts_at": _(
                    "The session would start at %(at)s, which has passed: "
                    "a session is scheduled and announced before it starts (R91)."
                )
                % {"at": hall_clock_text(starts_at, hall)}
            }
        )
    if scheduled_end <= starts_at:
        raise ValidationError({"scheduled_end": _("A session must end after it starts.")})
    if games > bounds.SESSION_MAX_GAMES:
        raise ValidationError(
            {"games": _("A session has at most %(n)d games (R92).") % {"n": bounds.SESSION_MAX_GAMES}}
        )
    if not starts_at < sales_close_at < scheduled_end:
        raise ValidationError(
            {"sales_close_at": _("Sales close after the session starts and before it ends (R93).")}
        )


def _schedule_prices(*, hall: Hall, games: list[SessionGame], room_strips: bool = False) -> list[Decimal]:
    """Each game's card price (R92), to the cent, refused unless an amount above zero that an
    online series of the hall sells cards of its variant at (R85; of strips of six in a room
    selling strips)."""
    prices: list[Decimal] = []
    for index, spec in enumerate(games, start=1):
        try:
            price = Decimal(str(spec.price))
            if not price.is_finite() or price <= 0 or price > bounds.CARD_PRICE_MAX:
                raise InvalidOperation
        except (InvalidOperation, ValueError):
            raise ValidationError(
                {
                    "games": _("Game %(n)d: the card price must be an amount above zero, at most %(max)s.")
                    % {"n": index, "max": bounds.CARD_PRICE_MAX}
                }
            ) from None
        prices.append(price.quantize(Decimal("0.01")))
        strips = room_strips and spec.variant == "90"
        if not online_selectors.online_series_available(
            hall=hall, variant=spec.variant, price=prices[-1], strips=strips
        ):
            raise ValidationError(
                {
                    "games": _(
                        "Game %(n)d: the hall has no online series of %(v)s-ball cards at %(p)s (R85)."
                    )
                    % {"n": index, "v": spec.variant, "p": prices[-1]}
                }
            )
    return prices


def online_session_schedule(
    *,
    online_room: OnlineRoom,
    starts_at: datetime,
    sales_close_at: datetime,
    scheduled_end: datetime,
    games: list[SessionGame],
    user: User | None,
    ball_interval: Decimal | str | None = None,
) -> Session:
    """Schedule a session in a session-mode online room (R91): its games, of several variants
    and card prices at once (R92), each with its prize plan, the 75-ball ones with the room's
    pattern (R73 b), the room's plan when none is given); sales open for all at
    ``starts_at`` and close for all at ``sales_close_at`` (R93). Balls of every game come
    ``ball_interval`` seconds apart (the room's when None; never under 1, R88). The autodraw
    reconciler opens and closes the sales and draws at those times. Refused, writing nothing,
    when it would start in the past (R91: scheduled and announced before it starts; up to
    ``SCHEDULE_GRACE`` ago is taken as now) or end before it starts."""
    room = OnlineRoom.objects.select_related("room__hall").get(pk=online_room.pk)
    hall = room.room.hall
    if room.mode != RoomMode.SESSION:
        raise _only_session_mode()
    interval = room.ball_interval if ball_interval is None else _ball_interval(ball_interval)
    if not games:
        raise ValidationError({"games": _("A session has at least one game.")})
    _schedule_check(
        hall=hall,
        starts_at=starts_at,
        sales_close_at=sales_close_at,
        scheduled_end=scheduled_end,
        games=len(games),
    )
    prices = _schedule_prices(hall=hall, games=games, room_strips=room.strips)
    with transaction.atomic():
        # The room first (the lock order, docs/architecture.md): a switch to continuous mode
        # (online_room_update, under the same lock) must not land between the check above and
        # this session, which the continuous loop would then take over and sell at once.
        locked = locks.online_room_lock(room_id=room.pk)
        if locked.mode != RoomMode.SESSION:
            raise _only_session_mode()
        session = game_services.session_open(
            room=room.room, starts_at=starts_at, scheduled_end=scheduled_end, user=user, online=True
        )
        pattern_key, pattern = locked.pattern_choice()
        for index, (spec, price) in enumerate(zip(games, prices, strict=True), start=1):
            # R73 b): the room's pattern is its 75-ball games' bingo, as of now (a later change
            # leaves these games alone); with no plan given, the room's, the bingo alone (R74: a
            # pattern is the game's only prize). The other variants' bingo is the full card.
            figured = spec.variant == "75" and pattern_key is not None
            plan = (spec.prize_plan or locked.prize_plan or None) if figured else spec.prize_plan
            try:
                game = game_services.game_create(
                    session=session,
                    variant=spec.variant,
                    prize_plan=plan,
                    online=True,
                    pattern_key=pattern_key if figured else None,
                    pattern=pattern if figured else None,
                )
            except ValidationError as exc:
                raise ValidationError(
                    {"games": [_("Game %(n)d: %(error)s") % {"n": index, "error": m} for m in exc.messages]}
                ) from None
            # R92: the price it will sell at (an online series of that face value is picked as
            # its sales open); R93: one close for all the session's games; R88: the pace.
            game.price = price
            game.sales_close_at = sales_close_at
            game.ball_interval = interval
            game.save(update_fields=["price", "sales_close_at", "ball_interval"])
    return session


# --- buying (R35-R38, R85) ---------------------------------------------------------------------


@dataclass(frozen=True)
class OnlinePurchase:
    """What a purchase bought: its sale rows (one per series, R38), the amount taken from the
    wallet, and the wallet's entry."""

    sales: tuple[Sale, ...]
    amount: Decimal
    entry: WalletEntry

    @property
    def cards(self) -> int:
        return sum(s.quantity for s in self.sales)

    @property
    def balance(self) -> Decimal:
        """The wallet's balance right after this purchase."""
        return self.entry.balance_after


def _purchase_done(player: Player, request_key: str) -> OnlinePurchase | None:
    rows = tuple(
        Sale.objects.filter(request_key=request_key, buyer=player).select_related("series").order_by("part")
    )
    if not rows:
        return None
    entry = WalletEntry.objects.get(sale=rows[0])
    return OnlinePurchase(rows, sum((s.amount for s in rows), Decimal("0")), entry)


class PurchaseKeyReusedError(ValidationError):
    """The key of an earlier purchase came with a different one (another game or number of
    cards): nothing is bought, and the API answers 409."""


class PlayerRefusalError(ValidationError):
    """A purchase refused for the player's own reason: the wallet short, R35's card limit, R101
    (an exclusion, a break, a loss limit, the session's time limit or the hall's break after it).
    A standing order's fill ends the order on one; any other refusal is the game's side and skips
    the game (``online_orders_fill``)."""


def _player_refusal(refused: ValidationError) -> PlayerRefusalError:
    """``refused`` as a ``PlayerRefusalError``, with the same messages (and fields)."""
    return PlayerRefusalError(refused.error_dict if hasattr(refused, "error_dict") else refused.error_list)


def _same_purchase(done: OnlinePurchase, game: Game, quantity: int) -> OnlinePurchase:
    """A retry's answer, the first purchase's, when it asked the same; refused otherwise."""
    if done.sales[0].game_id != game.pk or done.cards != quantity:
        raise PurchaseKeyReusedError(_("This key was used for a different purchase; nothing was bought."))
    return done


def _purchase_game(game: Game) -> Game:
    """``game`` with its session, room, hall and online room, as the API view and the page read
    it for the request (``online_selectors.online_game_get``); read here for any other caller."""
    if Game.session.is_cached(game):
        room = game.session.room if Session.room.is_cached(game.session) else None
        if room is not None and Room.hall.is_cached(room) and Room.online.is_cached(room):
            return game
    return Game.objects.select_related("session__room__hall", "session__room__online").get(pk=game.pk)


def _purchase_offer_check(player: Player, game: Game, now: datetime | None) -> None:
    """Refuse, before any lock, a purchase the game as read refuses: not an online game, another
    operator's, a room closed to players, not selling (R93). The sale's own statement, under the
    series' lock, is the last word on the last two."""
    room = game.session.room
    online = getattr(room, "online", None)
    if online is None:
        raise ValidationError(
            _("Game %(n)d is played in the hall: its cards are sold at the desks.") % {"n": game.number}
        )
    if room.hall_id != player.hall_id:
        raise ValidationError(
            _("This game is another operator's: play in the rooms of %(hall)s.") % {"hall": player.hall}
        )
    if not online.active:
        raise ValidationError(_("This room is closed to players."))
    if not online_selectors.game_on_sale(game=game, now=now) or game.price is None:
        # R93: at the announced close sales end for everyone, closed by the reconciler or not.
        raise ValidationError(_("Game %(n)d is not selling cards.") % {"n": game.number})


def online_buy(
    *, player: Player, game: Game, quantity: int, key: str, now: datetime | None = None
) -> OnlinePurchase:
    """Buy ``quantity`` cards of ``game`` for ``player``: the next cards of its online series in
    number order (R36-R38), paid from the wallet in the same transaction as the sale, never one
    without the other. ``key`` (1 to 40 characters, chosen by the client) makes a retried
    purchase count once: the retry returns the first one's result, even after sales closed.

    Refused, selling and taking nothing, when the game is not selling, the wallet holds less
    than the cards cost, the player would pass the hall's limit of cards (R35), the game is
    another operator's, the player's play session reached their time limit (R101), or (R101,
    ``bingo.protection.services.purchase_check``, judged at ``now``) an exclusion bars the player
    or the cost would pass a loss limit of theirs.

    The transaction locks the player's row once (the wallet's lock), judges and writes the debit
    under it, and takes the cards last: on PostgreSQL one statement each for the debit and the
    cards where nothing is left to judge, so the series row, which every purchase of the game
    queues on, is held only from that last statement to the commit (docs/architecture.md).
    """
    key = (key or "").strip()
    if not key or len(key) > KEY_MAX:
        raise ValidationError(
            {"key": _("Each purchase needs a key of 1 to %(n)d characters.") % {"n": KEY_MAX}}
        )
    request_key = f"online:{player.pk}:{key}"
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
        raise ValidationError({"quantity": _("Buy at least one card.")})
    if quantity > bounds.SALE_MAX_CARDS:
        raise ValidationError(
            {"quantity": _("Buy at most %(n)d cards at once.") % {"n": bounds.SALE_MAX_CARDS}}
        )
    try:
        game = _purchase_game(game)
        try:
            _purchase_offer_check(player, game, now)
        except ValidationError:
            # The game may be as the API view's process read it a moment ago
            # (online_selectors.online_game_offer_get): a refusal is judged on it as it is now.
            game = _purchase_game(Game(pk=game.pk))
            _purchase_offer_check(player, game, now)
        _strips_quantity_check(game, quantity)
        with transaction.atomic():
            return _buy(player, game, quantity, request_key, now or timezone.now())
    except (IntegrityError, ValidationError):
        # Refused now, but perhaps a retry of a purchase that went through (even the same key at
        # the same moment from another request): answer as it did. None: this one stands refused.
        if (done := _purchase_done(player, request_key)) is not None:
            return _same_purchase(done, game, quantity)
        raise


def _buy(player: Player, game: Game, quantity: int, request_key: str, now: datetime) -> OnlinePurchase:
    """The purchase's transaction: the wallet's lock, the debit, then the cards."""
    assert game.price is not None  # selling: _purchase_offer_check
    amount = game.price * quantity
    player_services.wallet_lock(player=player)
    # Where nothing is left to judge (no R35 limit in the hall, no R101 restriction the player
    # set or was given), the debit is one statement; else it is judged here first.
    entry = player_services.wallet_purchase_debit(
        player=player,
        amount=amount,
        key=request_key,
        now=now,
        guards=(
            sales_services.ONLINE_NO_CARD_LIMIT_SQL,
            playtime_services.PURCHASE_UNLIMITED_SQL,
            protection_services.PURCHASE_UNRESTRICTED_SQL,
        ),
        params={"hall": game.session.room.hall_id},
    )
    if entry is None:
        if (done := _purchase_done(player, request_key)) is not None:
            return _same_purchase(done, game, quantity)
        entry = _debit_judged(player, game, quantity, request_key, amount, now)
    assert entry.sale_id is not None
    # The cards last (R36-R38): the series row is locked from here to the commit.
    result = sales_services.sale_make_online(
        game=game,
        quantity=quantity,
        buyer=player,
        request_key=request_key,
        sale_id=entry.sale_id,
        amount=amount,
        now=now,
    )
    if online_selectors.game_sells_strips(game=game):
        _strips_whole_check(result.sales)
    return OnlinePurchase(result.sales, result.amount, entry)


def _strips_quantity_check(game: Game, quantity: int) -> None:
    """A room selling strips sells whole strips: six cards, or a multiple of six."""
    if online_selectors.game_sells_strips(game=game) and quantity % online_selectors.STRIP_CARDS:
        raise ValidationError(
            {
                "quantity": _(
                    "This room sells strips of six cards (every number from 1 to 90 once): buy "
                    "6 cards a strip, %(n)d is not whole strips."
                )
                % {"n": quantity}
            }
        )


def _strips_whole_check(sales: tuple[Sale, ...]) -> None:
    """The cards a strip purchase took are whole strips of a card set generated as strips: each
    part starts a strip (a number after a multiple of six) and holds whole strips. Refused
    otherwise, undoing the purchase and its debit (the caller's transaction), never a strip
    broken: a series sold in single cards before, or not generated as strips."""
    size = online_selectors.STRIP_CARDS
    for sale in sales:
        if (sale.first_number - 1) % size or sale.quantity % size or not sale.series.card_set.strips:
            raise ValidationError(
                _("Series %(series)s cannot sell whole strips of six from card %(n)d: nothing was bought.")
                % {"series": sale.series.order_number, "n": sale.first_number}
            )


def _debit_judged(
    player: Player, game: Game, quantity: int, request_key: str, amount: Decimal, now: datetime
) -> WalletEntry:
    """The debit judged in full, under the wallet's lock: R35's count, R101's session time
    limit, exclusion and loss limits, then the balance (the debit's own condition); refused
    (``PlayerRefusalError``: each is the player's own reason) with the reason, writing nothing."""
    try:
        sales_services.online_card_limit_check(game=game, buyer=player, quantity=quantity)
        # R101: the session time limit the player set; an exclusion; the loss limits.
        playtime_services.play_purchase_check(player=player, now=now)
        protection_services.purchase_check(player=player, amount=amount, now=now)
    except ValidationError as refused:
        raise _player_refusal(refused) from None
    entry = player_services.wallet_purchase_debit(player=player, amount=amount, key=request_key, now=now)
    if entry is None:  # the key is new (no purchase of it): the balance is short
        balance = player_selectors.wallet_balance(player=player)
        raise PlayerRefusalError(
            _("%(n)d cards cost %(cost)s and the wallet holds %(balance)s: nothing was bought.")
            % {"n": quantity, "cost": amount, "balance": balance}
        )
    return entry


# --- buying ahead and standing orders: the next games of a room (issue 25, R93) ------------------

#: A buy-ahead key's length: each game's purchase gets ``<key>:<game id>``, within ``KEY_MAX``,
#: and the order for the games not selling yet ``ahead:<key>``, within ``ORDER_KEY_MAX``.
AHEAD_KEY_MAX = 24
#: The Celery task that fills a room's standing orders in a game whose sales opened
#: (``bingo/online/tasks.py``), queued by name after the opening commits.
ORDERS_FILL_TASK = "online.orders_fill"


class OrderKeyReusedError(ValidationError):
    """The key of an earlier order (or purchase ahead) came with a different one (another room,
    number of games or cards): nothing is bought or ordered, and the API answers 409."""


class OrdersFillIncompleteError(Exception):
    """Some orders of a game could not be filled for a database error (logged): the others were;
    the task runs again for them (each order's fill counts once)."""

    def __init__(self, game_id: int, order_ids: list[int]) -> None:
        super().__init__(f"game {game_id}: orders {order_ids} not filled")
        self.game_id = game_id
        self.order_ids = order_ids


def _ahead_bounds(*, games: int, quantity: int) -> None:
    """The bounds of buying ahead: 1 to ``BUY_AHEAD_GAMES_MAX`` games, a purchase's cards."""
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= bounds.BUY_AHEAD_GAMES_MAX:
        raise ValidationError(
            {"games": _("Buy for 1 to %(n)d games at once.") % {"n": bounds.BUY_AHEAD_GAMES_MAX}}
        )
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
        raise ValidationError({"quantity": _("Buy at least one card.")})
    if quantity > bounds.SALE_MAX_CARDS:
        raise ValidationError(
            {"quantity": _("Buy at most %(n)d cards at once.") % {"n": bounds.SALE_MAX_CARDS}}
        )


def _room_open_check(player: Player, online_room: OnlineRoom) -> None:
    if online_room.room.hall_id != player.hall_id or not online_room.active:
        raise ValidationError(_("This room is closed to players."))


def _order_player_check(player: Player, now: datetime) -> None:
    """R101: no order from a player an exclusion or a break bars, nor during the hall's break
    after a session ended at its time limit (judged again, under the wallet's lock, at each fill)."""
    if notice := protection_selectors.player_notice(player=player, now=now):
        raise ValidationError(notice)
    playtime_services.play_purchase_check(player=player, now=now)


def _same_order(order: OnlineOrder, online_room: OnlineRoom, games: int, quantity: int) -> OnlineOrder:
    """A retry's answer, the first order, when it asked the same; refused otherwise."""
    if (order.online_room_id, order.games_wanted, order.quantity) != (online_room.pk, games, quantity):
        raise OrderKeyReusedError(_("This key was used for a different order; nothing was ordered."))
    return order


def _seen_price(price: Decimal | str | None) -> Decimal | None:
    """The card price the player saw (to the cent), or None when not given."""
    if price is None or price == "":
        return None
    try:
        seen = Decimal(str(price))
        if not seen.is_finite() or seen <= 0 or seen > bounds.CARD_PRICE_MAX:
            raise InvalidOperation
    except (InvalidOperation, ValueError):
        raise ValidationError({"price": _("Give the card price as an amount above zero.")}) from None
    return seen.quantize(Decimal("0.01"))


def _order_terms(
    online_room: OnlineRoom, *, price: Decimal | None, variant: str | None
) -> online_selectors.OrderTerms:
    """The terms an order placed now pins (``online_selectors.order_terms``: what the lobby shows
    for the room's next games), refused when the player saw others (a page left open while they
    changed) or when the room has nothing to sell, so no price is known."""
    terms = online_selectors.order_terms(online_room=online_room)
    if terms is None:
        raise ValidationError(
            _("This room has no cards to sell now, so no card price to order at: nothing was ordered.")
        )
    if variant is not None and variant != terms.variant:
        raise ValidationError(
            {
                "variant": _(
                    "The room's next games are played with %(now)s, not the %(seen)s you saw: look at "
                    "the lobby again. Nothing was bought or ordered."
                )
                % {
                    "now": online_selectors.variant_name(terms.variant),
                    "seen": online_selectors.variant_name(variant),
                }
            }
        )
    if price is not None and price != terms.price:
        currency = online_room.room.hall.currency
        raise ValidationError(
            {
                "price": _(
                    "The room's next games sell cards at %(now)s, not the %(seen)s you saw: look at "
                    "the lobby again. Nothing was bought or ordered."
                )
                % {"now": money_display(terms.price, currency), "seen": money_display(price, currency)}
            }
        )
    return terms


def _one_open_refusal(order: OnlineOrder) -> ValidationError:
    """Point 7 of the review: one open order per room; a second is refused, saying how to go on."""
    return ValidationError(
        ngettext(
            "You have an open standing order in this room already (%(n)d game left): cancel it in "
            "the lobby to order again. Nothing was bought or ordered.",
            "You have an open standing order in this room already (%(n)d games left): cancel it in "
            "the lobby to order again. Nothing was bought or ordered.",
            order.games_left,
        )
        % {"n": order.games_left}
    )


def _order_input_check(
    online_room: OnlineRoom, *, key: str, games: int, quantity: int, variant: str | None
) -> str:
    """An order's input checked before anything is read: its key (returned stripped), a purchase's
    bounds, whole strips in a room selling strips, a known variant (when given)."""
    key = (key or "").strip()
    if not key or len(key) > ORDER_KEY_MAX:
        raise ValidationError(
            {"key": _("Each order needs a key of 1 to %(n)d characters.") % {"n": ORDER_KEY_MAX}}
        )
    _ahead_bounds(games=games, quantity=quantity)
    if online_room.strips and quantity % online_selectors.STRIP_CARDS:
        raise ValidationError(
            {
                "quantity": _(
                    "This room sells strips of six cards (every number from 1 to 90 once): buy "
                    "6 cards a strip, %(n)d is not whole strips."
                )
                % {"n": quantity}
            }
        )
    if variant is not None and variant not in dict(VARIANT_CHOICES):
        raise ValidationError({"variant": _("Choose a variant of the cards.")})
    return key


def _order_write(
    player: Player,
    online_room: OnlineRoom,
    *,
    games: int,
    quantity: int,
    key: str,
    price: Decimal | None,
    variant: str | None,
    now: datetime | None,
) -> OnlineOrder:
    """The order's transaction: the room's lock, the terms it pins, the player's row and R101
    again, the one open order per room, then the row."""
    with transaction.atomic():
        # The room first (the lock order, docs/architecture.md): a room's games open their sales
        # under this lock (bingo/autodraw), so the order either comes before an opening, which
        # then sees it and queues its fill, or after it, and waits for the next game.
        room = locks.online_room_lock(room_id=online_room.pk)
        if not room.active:
            raise ValidationError(_("This room is closed to players."))
        terms = _order_terms(room, price=price, variant=variant)
        # R101 again under the player's row (the wallet's lock, after the room's): a bar written
        # before is seen here; one written after waits for this commit, then ends the player's
        # open orders, this one too (online_orders_end_barred).
        player_services.wallet_lock(player=player)
        _order_player_check(player, now or timezone.now())
        if (open_order := online_selectors.player_open_order(player=player, online_room=room)) is not None:
            raise _one_open_refusal(open_order)
        last_opened = Game.objects.filter(session__room_id=room.pk).aggregate(at=Max("sales_opened_at"))["at"]
        return OnlineOrder.objects.create(
            player=player,
            online_room=room,
            quantity=quantity,
            games_wanted=games,
            key=key,
            fills_after=last_opened,
            price=terms.price,
            variant=terms.variant,
            pattern=terms.pattern,
            created_at=timezone.now(),
        )


def online_order_create(
    *,
    player: Player,
    online_room: OnlineRoom,
    games: int,
    quantity: int,
    key: str,
    price: Decimal | str | None = None,
    variant: str | None = None,
    now: datetime | None = None,
) -> OnlineOrder:
    """A standing order: ``quantity`` cards in each of the next ``games`` games of
    ``online_room`` whose sales open after it is placed, at the card price, variant and pattern
    it pins (``online_selectors.order_terms``: what the lobby shows; ``price`` and ``variant``,
    when given, are what the player saw, and must be those). Nothing is debited now: each game's
    cards are bought when its sales have opened for every player at once (R93), by
    ``online_orders_fill`` through ``online_buy`` (R35, R101, the funds, R36's numbered order
    judged then); a game at another price, variant or pattern is skipped. ``key`` (1 to
    ``ORDER_KEY_MAX`` characters) makes a retried order count once.

    Refused, ordering nothing, beyond the bounds (a purchase's cards, ``BUY_AHEAD_GAMES_MAX``
    games), in a room closed to players or another operator's, in whole strips of six only in a
    room selling strips, while the player has an open order in the room (one at most), when the
    room's terms are not those the player saw or no price is known, and while an exclusion, a
    break or the hall's break after a session bars the player's purchases (R101, judged again
    under the player's row, so a bar taken at the same moment either is seen or ends this order)."""
    key = _order_input_check(online_room, key=key, games=games, quantity=quantity, variant=variant)
    _room_open_check(player, online_room)
    if (done := OnlineOrder.objects.filter(player=player, key=key).first()) is not None:
        return _same_order(done, online_room, games, quantity)
    seen = _seen_price(price)
    _order_player_check(player, now or timezone.now())
    try:
        return _order_write(
            player, online_room, games=games, quantity=quantity, key=key, price=seen, variant=variant, now=now
        )
    except IntegrityError:
        # The same key at the same moment from another request: that one's order is this one.
        done = OnlineOrder.objects.filter(player=player, key=key).first()
        if done is not None:
            return _same_order(done, online_room, games, quantity)
        # Another order of the player's opened in the room at the same moment (one at most).
        if (
            open_order := online_selectors.player_open_order(player=player, online_room=online_room)
        ) is not None:
            raise _one_open_refusal(open_order) from None
        raise


def _order_lock(order_id: int) -> OnlineOrder:
    """Lock standing order ``order_id`` (after the room, before the wallets: docs/architecture.md)."""
    return (
        OnlineOrder.objects.select_for_update(of=("self",), no_key=True)
        .select_related("player", "online_room")
        .get(pk=order_id)
    )


def online_order_cancel(*, player: Player, order_id: int, now: datetime | None = None) -> OnlineOrder:
    """The player stops their open order: it buys nothing more. Nothing is refunded, as nothing
    was held (the games it filled were each a purchase of their own). Another player's order is
    OnlineOrder.DoesNotExist (a 404); one ended already is refused, saying how it ended; cancelled
    twice, it answers as the first time."""
    with transaction.atomic():
        order = _order_lock(order_id)
        if order.player_id != player.pk:
            raise OnlineOrder.DoesNotExist
        if order.end_reason == OrderEnd.CANCELLED:
            return order
        if order.ended_at is not None:
            raise ValidationError(
                _("This order has ended already (%(how)s): there is nothing to cancel.")
                % {"how": str(OrderEnd(order.end_reason).label).lower()}
            )
        order.cancelled_at = order.ended_at = now or timezone.now()
        order.end_reason = OrderEnd.CANCELLED
        order.save(update_fields=["cancelled_at", "ended_at", "end_reason"])
    return order


def _orders_end_room_closed(*, online_room_id: int, now: datetime) -> int:
    """End every open order of a room closed to players (R93: its games sell nothing); how many
    ended. The reason is its code: each player reads it in their own language
    (``online_selectors.order_end_text``), never in the manager's who closed the room."""
    return OnlineOrder.objects.filter(online_room_id=online_room_id, ended_at__isnull=True).update(
        ended_at=now, end_reason=OrderEnd.ROOM_CLOSED, end_text=""
    )


def online_orders_end_barred(*, player: Player, now: datetime | None = None) -> int:
    """R101: end ``player``'s open standing orders (``barred``), in the transaction that bars them
    from buying (a self-exclusion, a break, the operator's exclusion, the hall's break after a
    session's time limit), which holds their row (the wallet's lock); how many ended. SKIP LOCKED:
    nothing holding a wallet waits for an order (docs/architecture.md «Lock order»). An order a
    fill holds at that moment is left to that fill, which waits for the player's row and is then
    refused by the bar: the refusal ends the order, saying why."""
    ended = list(
        OnlineOrder.objects.select_for_update(of=("self",), no_key=True, skip_locked=True)
        .filter(player=player, ended_at__isnull=True)
        .values_list("pk", flat=True)
    )
    if not ended:
        return 0
    return OnlineOrder.objects.filter(pk__in=ended, ended_at__isnull=True).update(
        ended_at=now or timezone.now(), end_reason=OrderEnd.BARRED, end_text=""
    )


def on_player_barred(sender: object, *, player: Player, now: datetime, **kwargs: object) -> None:
    """``bingo.players.signals.player_barred``: the player's standing orders end with the bar, in
    its transaction (connected in bingo/apps.py)."""
    online_orders_end_barred(player=player, now=now)


def online_orders_fill_queue(*, game: Game) -> None:
    """Queue the filling of ``game``'s standing orders once its sales' opening commits (called
    by the online loop, under the room's lock, as it opens a game's sales: R93, the sales are
    everyone's first). Nothing is queued in a room with no open order."""
    if online_selectors.room_has_open_orders(online_room_id=game.session.room_id):
        task_enqueue_on_commit(ORDERS_FILL_TASK, game.pk)


def online_orders_fill(*, game_id: int) -> list[OnlineOrderFill]:
    """Fill the standing orders of ``game_id``'s room in that game and the games of its session
    that opened with it, lowest number first (R93: a session's games open together; an order with
    one game left buys in the first), each order oldest first and in a transaction of its own
    through ``online_buy`` (keyed ``order:<order>:<game>``), so R35, R101 (exclusion, break, loss
    limit, the hall's break), the funds and R36's numbered order are judged as for any purchase.
    Only orders placed before a game's sales opened, and only once they have (R93).

    A refusal of the player's own (``PlayerRefusalError``) ends the order with its reason; the last
    game filled completes it. The operator's side skips the game and the order goes on: its sales
    closed before the fill came (a worker busy or down), another price, variant or pattern than
    the order pinned, the cards not to be had; a skip is recorded (``OnlineOrderFill.skip``) and
    never tried again, and ``ORDER_SKIPS_MAX`` of them end the order. A room closed to players
    ends its orders instead. A database error on one order is logged and leaves the others to
    fill; ``OrdersFillIncompleteError`` then says which, for the task to run again. Idempotent: a
    fill is one row per order and game (the database holds it) and the purchase's key counts once,
    so run twice, or in two workers at once, it buys once. Returns the fills it made."""
    game = Game.objects.select_related("session__room__hall", "session__room__online").get(pk=game_id)
    online = getattr(game.session.room, "online", None)
    if online is None or game.sales_opened_at is None:
        return []
    if not online.active:
        _orders_end_room_closed(online_room_id=online.pk, now=timezone.now())
        return []
    fills: list[OnlineOrderFill] = []
    failed: list[int] = []
    for each in online_selectors.games_filled_together(game=game):
        for order_id in online_selectors.game_orders_due(game=each):
            if order_id in failed:
                continue  # its lower game first, when the task runs again
            try:
                fill = _order_fill(order_id, each)
            except DatabaseError:
                # Its own transaction rolled back: the orders after it still fill.
                logger.exception("standing order %s: the fill in game %s failed", order_id, each.pk)
                failed.append(order_id)
                continue
            if fill is not None:
                fills.append(fill)
    if failed:
        raise OrdersFillIncompleteError(game.pk, failed)
    return fills


def _order_skip_why(order: OnlineOrder, game: Game) -> str:
    """Why the operator's side keeps ``order`` from buying in ``game`` before any purchase: its
    sales closed (R93), or another price, variant or pattern than the order pinned; "" if none."""
    if not online_selectors.game_on_sale(game=game) or game.price is None:
        return FillSkip.NOT_SELLING
    if game.variant != order.variant:
        return FillSkip.VARIANT
    if game.price != order.price:
        return FillSkip.PRICE
    if game.variant == "75" and pattern_stored_of(game.win_rules) != pattern_stored_normal(order.pattern):
        return FillSkip.PATTERN
    return ""


def _order_skip(order: OnlineOrder, game: Game, why: str, now: datetime, words: str = "") -> OnlineOrderFill:
    """Record ``game`` skipped by ``order`` (the operator's side): the order goes on, unless it
    has now been skipped in ``ORDER_SKIPS_MAX`` games, which ends it."""
    fill = OnlineOrderFill.objects.create(order=order, game=game, skip=why, refusal=words, created_at=now)
    if OnlineOrderFill.objects.filter(order=order).exclude(skip="").count() >= ORDER_SKIPS_MAX:
        order.ended_at, order.end_reason = now, OrderEnd.SKIPPED
        order.save(update_fields=["ended_at", "end_reason"])
    return fill


def _order_fill(order_id: int, game: Game) -> OnlineOrderFill | None:
    """One order's purchase in ``game``, its refusal (the player's, which ends it) or its skip
    (the operator's side); None when the order has ended or came to this game already (another
    run of the task), or the room closed meanwhile (its orders ended)."""
    with transaction.atomic():
        # The order's lock first, then the purchase's (the wallet, the series): a second run
        # waits here and finds the fill made.
        order = _order_lock(order_id)
        if order.ended_at is not None or OnlineOrderFill.objects.filter(order=order, game=game).exists():
            return None
        now = timezone.now()
        if why := _order_skip_why(order, game):
            return _order_skip(order, game, why, now)
        try:
            purchase = online_buy(
                player=order.player, game=game, quantity=order.quantity, key=f"order:{order.pk}:{game.pk}"
            )
        except PlayerRefusalError as refused:
            # The player's own reason: the order ends, saying why (the lobby shows it), never a
            # silent stream of failures.
            reason = " ".join(refused.messages)
            fill = OnlineOrderFill.objects.create(order=order, game=game, refusal=reason, created_at=now)
            order.ended_at, order.end_reason, order.end_text = now, OrderEnd.REFUSED, reason
            order.save(update_fields=["ended_at", "end_reason", "end_text"])
            return fill
        except ValidationError as refused:
            # The game's side, as it is now: its sales closed meanwhile, the room closed to
            # players, or the cards not to be had (a series run out).
            fresh = Game.objects.select_related("session__room__online").get(pk=game.pk)
            if not fresh.session.room.online.active:
                # This order alone (the others are another fill's, or the closing's to end).
                order.ended_at, order.end_reason = now, OrderEnd.ROOM_CLOSED
                order.save(update_fields=["ended_at", "end_reason"])
                return None
            if not online_selectors.game_on_sale(game=fresh):
                return _order_skip(order, game, FillSkip.NOT_SELLING, now)
            return _order_skip(order, game, FillSkip.UNAVAILABLE, now, " ".join(refused.messages))
        fill = OnlineOrderFill.objects.create(order=order, game=game, sale=purchase.sales[0], created_at=now)
        order.games_filled += 1
        fields = ["games_filled"]
        if order.games_filled == order.games_wanted:
            order.ended_at, order.end_reason = now, OrderEnd.COMPLETED
            fields += ["ended_at", "end_reason"]
        order.save(update_fields=fields)
    return fill


@dataclass(frozen=True)
class AheadLine:
    """One game selling now that a purchase ahead bought into, or why not (``refusal``)."""

    game: Game
    purchase: OnlinePurchase | None
    refusal: str = ""


@dataclass(frozen=True)
class Ahead:
    """What a purchase ahead did: a line per game selling now, and the standing order for the
    rest of the games (None: every game asked for was selling, or the order was refused, and
    ``order_refusal`` says why)."""

    lines: list[AheadLine]
    order: OnlineOrder | None
    order_refusal: str = ""


def _ahead_done(player: Player, online_room: OnlineRoom, key: str, games: int, quantity: int) -> Ahead | None:
    """A purchase ahead sent again: the first one's purchases and order, nothing bought or
    ordered anew (the order fills the games opened since), whatever the first one did — bought
    in every game, ordered them all, or both. None when the key did neither yet (a first call, or
    one that bought and ordered nothing: tried again). Refused (``OrderKeyReusedError``) when the
    key did so in another room or for other cards or more games: never another room's answer."""
    prefix = f"online:{player.pk}:{key}:"
    firsts = list(
        Sale.objects.filter(buyer=player, request_key__startswith=prefix, part=1)
        .select_related("game__session__room__hall")
        .order_by("game__number", "pk")
    )
    order = OnlineOrder.objects.filter(player=player, key=f"ahead:{key}").first()
    if not firsts and order is None:
        return None
    lines = []
    for sale in firsts:
        if (done := _purchase_done(player, sale.request_key)) is not None:
            lines.append(AheadLine(sale.game, done))
    rooms = {line.game.session.room_id for line in lines} | ({order.online_room_id} if order else set())
    cards = {line.purchase.cards for line in lines if line.purchase} | ({order.quantity} if order else set())
    ordered = order.games_wanted if order is not None else 0
    if rooms != {online_room.pk} or cards != {quantity} or len(lines) + ordered > games:
        raise OrderKeyReusedError(
            _("This key was used for a different purchase ahead; nothing was bought or ordered.")
        )
    return Ahead(lines, order)


def online_buy_ahead(
    *,
    player: Player,
    online_room: OnlineRoom,
    games: int,
    quantity: int,
    key: str,
    price: Decimal | str | None = None,
    variant: str | None = None,
    now: datetime | None = None,
) -> Ahead:
    """Buy ``quantity`` cards in each of the next ``games`` games of ``online_room`` (at most
    ``bounds.BUY_AHEAD_GAMES_MAX``): each game selling now is bought at once, ``online_buy``'s
    own sale and transaction keyed ``<key>:<game id>``; the rest of the games become one
    standing order (``online_order_create``, keyed ``ahead:<key>``, pinning the price and variant
    the player saw, ``price`` and ``variant``), filled as each next game's sales open for every
    player at once (R93), nothing held until then. A planned game's series is chosen, and its
    sales opened, for everyone together (R36, R93), so no card of it is sold before.

    Sent again with the same key it buys and orders nothing more, whatever the first call did,
    answering as it did; the same key for another room is refused. When an order is needed and
    the player has an open order in the room already, or the room's terms are not those the
    player saw, it is refused before anything is bought."""
    key = (key or "").strip()
    if not key or len(key) > AHEAD_KEY_MAX:
        raise ValidationError(
            {"key": _("Each purchase needs a key of 1 to %(n)d characters.") % {"n": AHEAD_KEY_MAX}}
        )
    _ahead_bounds(games=games, quantity=quantity)
    # A repeat answers as the first call did, even once the room has closed since.
    if (done := _ahead_done(player, online_room, key, games, quantity)) is not None:
        return done
    _room_open_check(player, online_room)
    selling = [
        game
        for game in online_selectors.room_games_ahead(online_room=online_room, limit=games)
        if online_selectors.game_on_sale(game=game, now=now)
    ]
    rest = games - len(selling)
    if rest:
        # Refused before anything is bought: the player asked for all these games together.
        if (
            open_order := online_selectors.player_open_order(player=player, online_room=online_room)
        ) is not None:
            raise _one_open_refusal(open_order)
        _order_terms(online_room, price=_seen_price(price), variant=variant)
    lines = []
    for game in selling:
        try:
            purchase = online_buy(
                player=player, game=game, quantity=quantity, key=f"{key}:{game.pk}", now=now
            )
        except ValidationError as exc:
            lines.append(AheadLine(game, None, " ".join(exc.messages)))
        else:
            lines.append(AheadLine(game, purchase))
    if not rest:
        return Ahead(lines, None)
    try:
        order = online_order_create(
            player=player,
            online_room=online_room,
            games=rest,
            quantity=quantity,
            key=f"ahead:{key}",
            price=price,
            variant=variant,
            now=now,
        )
    except ValidationError as exc:
        return Ahead(lines, None, " ".join(exc.messages))
    return Ahead(lines, order)


# --- the player's choices (R96) ----------------------------------------------------------------


def player_marking_set(*, player: Player, marking: str) -> Player:
    """Mark the balls on the player's cards automatically or by hand (R96)."""
    if marking not in Marking.values:
        raise ValidationError({"marking": _("Choose automatic marking or marking by hand (R96).")})
    Player.objects.filter(pk=player.pk).update(marking=marking)
    player.marking = marking
    return player


def player_lobby_visit(*, player: Player, now: datetime | None = None) -> datetime | None:
    """R99: the player opens the lobby: record when, and return when they last did (None: the
    first time), so the lobby lists the games that ended while they were away. The visit only
    moves forward, and the first creates its row. No lock of the player's: one conditional
    UPDATE of the visit's own row (docs/architecture.md, "Lock order"), so the lobby never
    queues behind a purchase or a payout holding the wallet."""
    now = now or timezone.now()
    before = online_selectors.player_lobby_seen_at(player=player)
    if before is None:
        try:
            with transaction.atomic():
                PlayerVisit.objects.create(player=player, lobby_seen_at=now)
            return None
        except IntegrityError:
            # Another tab's first visit at the same moment made the row: this one moves it on.
            before = online_selectors.player_lobby_seen_at(player=player)
    PlayerVisit.objects.filter(player=player, lobby_seen_at__lt=now).update(lobby_seen_at=now)
    return before


__all__ = [
    "ORDERS_FILL_TASK",
    "Ahead",
    "AheadLine",
    "OnlinePurchase",
    "OrdersFillIncompleteError",
    "PlayerRefusalError",
    "SessionGame",
    "on_player_barred",
    "online_buy",
    "online_buy_ahead",
    "online_order_cancel",
    "online_order_create",
    "online_orders_end_barred",
    "online_orders_fill",
    "online_orders_fill_queue",
    "online_room_create",
    "online_room_update",
    "online_session_schedule",
    "player_lobby_visit",
    "player_marking_set",
]
