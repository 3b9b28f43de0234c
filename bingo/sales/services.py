"""Writes of selling cards (R34-R39).

Every sale goes through ``sale_make``, whatever the caller (screen, API, simulation). It locks
the game row, then the series rows in id order (the lock order, docs/architecture.md), so
concurrent cashiers queue on one game and no card number is skipped or sold twice (R36);
PostgreSQL also refuses overlapping card ranges. The common desk sale is one statement that
locks the series row alone and checks the cashier itself (``_sell_fast``): on PostgreSQL, once the
process knows the game, a sale is one round trip to the database.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common import bounds
from bingo.common.engine_messages import validation_error
from bingo.common.roles import Role
from bingo.engine.gamestate import GameState
from bingo.engine.sales import (
    Block,
    SaleError,
    allocate,
)
from bingo.games import locks
from bingo.live import events
from bingo.models import Game, GameSeries, Player, Sale
from cards.models import Series
from cards.selectors import series_stock
from halls.models import CashDesk, Hall
from halls.selectors import staff_has_role


@dataclass(frozen=True)
class SaleResult:
    """What a sale sold: its ledger rows (one per series), the total and the change to give back."""

    sales: tuple[Sale, ...]
    amount: Decimal
    change: Decimal

    @property
    def cards(self) -> int:
        return sum(s.quantity for s in self.sales)


def sale_make(
    *,
    game: Game,
    quantity: int,
    cash_desk: CashDesk,
    cashier: User,
    cash_received: Decimal | str,
    request_key: str,
    player: str = "",
) -> SaleResult:
    """Sell ``quantity`` cards of ``game`` in number order (R36-R38), for cash (R39).

    A retried request (same ``request_key``) returns the first one's result and sells nothing,
    even after the game has closed.
    """
    try:
        return _sale_make(game, quantity, cash_desk, cashier, cash_received, request_key, player)
    except ValidationError:
        # Refused now, but perhaps a retry of a sale that went through: answer as it did.
        if request_key and (done := _sale_done(request_key)) is not None:
            return done
        raise


def _sale_make(
    game: Game,
    quantity: int,
    cash_desk: CashDesk,
    cashier: User,
    cash_received: Decimal | str,
    request_key: str,
    player: str,
) -> SaleResult:
    if not request_key or len(request_key) > 64:
        raise ValidationError(_("Each sale needs a request key of 1 to 64 characters."))
    player = player.strip()
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
        raise ValidationError(_("Sell at least one card."))
    if quantity > bounds.SALE_MAX_CARDS:
        raise ValidationError(
            {"quantity": _("Sell at most %(n)d cards in one sale.") % {"n": bounds.SALE_MAX_CARDS}}
        )
    try:
        received = Decimal(str(cash_received))
        if not received.is_finite() or received < 0:
            raise InvalidOperation
    except InvalidOperation:
        raise ValidationError(_("The cash received must be an amount of money.")) from None
    if received > bounds.AMOUNT_MAX:
        raise ValidationError(
            {"cash_received": _("The cash received is at most %(max)s.") % {"max": bounds.AMOUNT_MAX}}
        )
    # Checked before any lock (desks and the game's series rarely change; the cashier by the
    # fast statement itself, or before the locked path): the locked section stays short.
    context = _sale_context(game.pk)
    hall_id = context.hall_id if context else _hall_of(game)
    if hall_id is None:
        raise ValidationError(_("There is no such game."))
    if cash_desk.hall_id != hall_id:
        raise ValidationError(_("This cash desk belongs to another hall."))
    try:
        result = None
        if context and not context.card_limit and cashier.is_authenticated:
            # R34: only a cashier of the hall sells; the fast statement checks it itself (one
            # round trip fewer), and when it sells nothing the check below says why.
            result = _sell_fast(
                game.pk,
                context.series_id,
                context.price,
                quantity,
                cash_desk,
                cashier,
                received,
                request_key,
                player,
            )
        if result is None:
            if not staff_has_role(user=cashier, hall_id=hall_id, role=Role.CASHIER):
                raise ValidationError(_("Only a cashier of this hall can sell its cards."))
            with transaction.atomic():
                result = _sell(game, quantity, cash_desk, cashier, received, request_key, player)
    except IntegrityError:
        # A retried request (same key): its first copy's sale stands, and this one sold nothing.
        if (done := _sale_done(request_key)) is not None:
            return done
        raise
    transaction.on_commit(lambda: events.price_board_changed(game.pk))
    return result


#: Seconds a process keeps what it knows of a selling game (its first series, price, hall).
#: Staleness is harmless: the fast path's UPDATE checks the series row itself, and anything
#: unexpected falls back to the locked path, which reads everything afresh.
SALE_CONTEXT_SECONDS = 5.0
_sale_contexts: dict[int, tuple[float, SaleContext | None]] = {}


@dataclass(frozen=True)
class SaleContext:
    """What a sale needs to know of its game before taking any lock."""

    series_id: int
    price: Decimal
    hall_id: int
    card_limit: int | None


def _sale_context(game_id: int) -> SaleContext | None:
    """The game's first series, its price, and its hall's id and card limit (cached briefly)."""
    now = time.monotonic()
    cached = _sale_contexts.get(game_id)
    if cached is not None and now - cached[0] < SALE_CONTEXT_SECONDS:
        return cached[1]
    row = (
        GameSeries.objects.filter(game_id=game_id, position=1)
        .values_list(
            "series_id",
            "series__price",
            "game__session__room__hall_id",
            "game__session__room__hall__card_limit_per_player",
        )
        .first()
    )
    context = SaleContext(*row) if row else None
    if len(_sale_contexts) > 1000:
        _sale_contexts.clear()
    _sale_contexts[game_id] = (now, context)
    return context


def _hall_of(game: Game) -> int | None:
    return Game.objects.filter(pk=game.pk).values_list("session__room__hall_id", flat=True).first()


_TAKE_NUMBERS = """
    UPDATE cards_series
       SET last_sold = last_sold + %(quantity)s,
           status = CASE WHEN last_sold + %(quantity)s = size THEN 'exhausted' ELSE status END
     WHERE id = %(series)s AND on_sale_in_id = %(game)s AND status = 'on_sale' AND NOT online
       AND last_sold + %(quantity)s <= size
       AND NOT EXISTS (SELECT 1 FROM halls_hall
                        WHERE id = %(hall)s AND card_limit_per_player IS NOT NULL)
       AND EXISTS (SELECT 1 FROM halls_staffmembership
                    WHERE user_id = %(cashier)s AND hall_id = %(hall)s AND role = %(role)s)
 RETURNING last_sold, size_letter, order_number
"""

# PostgreSQL: the numbers and the ledger row in one statement. Run outside any transaction it
# commits by itself, so the series row lock (R36) is held only inside the server, for the
# statement and its commit, never across a round trip to a client that may be descheduled.
# It locks the series row alone (docs/architecture.md, "Lock order"): the key share its sale
# row takes of the game at commit waits for no game lock (all FOR NO KEY UPDATE), and a close
# holding the game waits for this statement, then counts its sale; one that starts during the
# close finds the series no longer on sale and falls to the locked path, which refuses it.
# The series' letter and number come back with it, for the answer's label.
_TAKE_NUMBERS_AND_RECORD = (
    "WITH taken AS ("
    + _TAKE_NUMBERS
    + """), sold AS (
INSERT INTO bingo_sale (game_id, series_id, first_number, last_number, quantity, unit_price,
                        amount, cash_desk_id, cashier_id, cash_received, player, request_key,
                        part, created_at)
SELECT %(game)s, %(series)s, last_sold - %(quantity)s + 1, last_sold, %(quantity)s, %(price)s,
       %(amount)s, %(desk)s, %(cashier)s, %(received)s, %(player)s, %(key)s, 1, %(now)s
  FROM taken
RETURNING id, first_number, last_number
)
SELECT sold.id, sold.first_number, sold.last_number, taken.size_letter, taken.order_number
  FROM sold, taken
"""
)


def _series_named(
    series_id: int, size_letter: str, order_number: int, price: Decimal, *, online: bool
) -> Series:
    """Series ``series_id`` as a one-statement sale read it back (its label and price); its other
    fields are read on demand. from_db takes the values in the model's field order."""
    known = {
        "id": series_id,
        "order_number": order_number,
        "size_letter": size_letter,
        "price": price,
        "online": online,
    }
    names = [f.attname for f in Series._meta.concrete_fields if f.attname in known]
    return Series.from_db(connection.alias, names, [known[name] for name in names])


def _sell_fast(
    game_id: int,
    series_id: int,
    price: Decimal,
    quantity: int,
    desk: CashDesk,
    cashier: User,
    received: Decimal,
    key: str,
    player: str,
) -> SaleResult | None:
    """The common sale: the next ``quantity`` cards of the game's first series, taken with one
    conditional UPDATE that holds the series row lock until commit (R36). None when it does not
    apply: the series is short (R38 rollover), the game is not selling, the cash is short, the
    hall limits cards per player (R35; the UPDATE reads the hall row itself, so a limit set
    since the cached context was read is never skipped), or ``cashier`` is not a cashier of
    the hall (R34: the UPDATE reads the staff membership itself, as ``staff_has_role`` would);
    the locked path then decides, and explains any refusal."""
    amount = price * quantity
    if received < amount:
        return None
    params: dict[str, Any] = {
        "quantity": quantity,
        "series": series_id,
        "game": game_id,
        "price": price,
        "amount": amount,
        "desk": desk.pk,
        "hall": desk.hall_id,  # the game's hall: checked before
        "cashier": cashier.pk,
        "role": Role.CASHIER.value,
        "received": received,
        "player": player,
        "key": key,
        "now": timezone.now(),
    }
    if connection.vendor == "postgresql":
        # Inside a caller's transaction, a savepoint keeps a duplicate key from poisoning it.
        savepoint = transaction.atomic() if connection.in_atomic_block else contextlib.nullcontext()
        with savepoint, connection.cursor() as cursor:
            cursor.execute(_TAKE_NUMBERS_AND_RECORD, params)
            row = cursor.fetchone()
        if row is None:
            return None
        sale_id, first, last, size_letter, order_number = row
    else:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(_TAKE_NUMBERS, params)
            taken = cursor.fetchone()
            if taken is None:
                return None
            last = int(taken[0])
            sale = Sale.objects.create(
                game_id=game_id, series_id=series_id, first_number=last - quantity + 1, last_number=last,
                quantity=quantity, unit_price=price, amount=amount, cash_desk=desk,
                cashier=cashier, cash_received=received, player=player, request_key=key, part=1,
            )  # fmt: skip
        return SaleResult((sale,), amount, received - amount)
    sale = Sale(
        id=sale_id,
        game_id=game_id,
        series=_series_named(series_id, size_letter, order_number, price, online=False),
        first_number=first,
        last_number=last,
        quantity=quantity,
        unit_price=price,
        amount=amount,
        cash_desk=desk,
        cashier=cashier,
        cash_received=received,
        player=player,
        request_key=key,
        part=1,
        created_at=params["now"],
    )
    sale._state.adding = False
    sale._state.db = connection.alias
    return SaleResult((sale,), amount, received - amount)


def _sale_done(request_key: str) -> SaleResult | None:
    rows = tuple(Sale.objects.filter(request_key=request_key).order_by("part"))
    if not rows:
        return None
    amount = sum((s.amount for s in rows), Decimal("0"))
    return SaleResult(rows, amount, rows[0].cash_received - amount)


#: R35 in the purchase's one-statement debit (``bingo.players.services.wallet_purchase_debit``):
#: nothing to count when the hall (%(hall)s) does not limit the cards a player buys in a game;
#: otherwise the debit is not taken there and ``online_card_limit_check`` counts.
ONLINE_NO_CARD_LIMIT_SQL = (
    "NOT EXISTS (SELECT 1 FROM halls_hall WHERE id = %(hall)s AND card_limit_per_player IS NOT NULL)"
)


def online_card_limit_check(*, game: Game, buyer: Player, quantity: int) -> None:
    """R35 for an online purchase: refused when ``buyer`` would pass the hall's limit of cards
    in ``game``. Called under the buyer's wallet lock (``bingo.players.services.wallet_lock``),
    which their purchases queue on, so two of them at once are counted one after the other."""
    hall_id = Game.objects.filter(pk=game.pk).values_list("session__room__hall_id", flat=True).get()
    limit = Hall.objects.filter(pk=hall_id).values_list("card_limit_per_player", flat=True).get()
    if limit:
        _card_limit_check(game, limit, quantity, "", buyer)


# PostgreSQL: an online purchase's cards in one statement, the last of its transaction (the
# wallet's debit came first): the next numbers of the game's first series, taken while the game
# sells (R93: not past its announced close) in an online room open to players, at the price the
# wallet paid, and the sale written with the key the debit reserved for it. The series row is
# held from here to the commit only: the purchases of a game queue on it for one statement and a
# commit, not for their checks and their debit (docs/architecture.md, "Lock order").
_TAKE_ONLINE_NUMBERS_AND_RECORD = """
WITH taken AS (
    UPDATE cards_series
       SET last_sold = last_sold + %(quantity)s,
           status = CASE WHEN last_sold + %(quantity)s = size THEN 'exhausted' ELSE status END
     WHERE id = %(series)s AND on_sale_in_id = %(game)s AND status = 'on_sale' AND online
       AND price = %(price)s AND last_sold + %(quantity)s <= size
       AND EXISTS (SELECT 1 FROM bingo_game g
                     JOIN bingo_session s ON s.id = g.session_id
                     JOIN bingo_onlineroom o ON o.room_id = s.room_id
                    WHERE g.id = %(game)s AND g.state = 'selling' AND g.doubles_of_id IS NULL
                      AND (g.sales_close_at IS NULL OR g.sales_close_at > %(now)s) AND o.active)
 RETURNING last_sold, size_letter, order_number
), sold AS (
    INSERT INTO bingo_sale (id, game_id, series_id, first_number, last_number, quantity, unit_price,
                            amount, cash_desk_id, cashier_id, buyer_id, cash_received, player,
                            request_key, part, created_at)
    SELECT %(sale)s, %(game)s, %(series)s, last_sold - %(quantity)s + 1, last_sold, %(quantity)s,
           %(price)s, %(amount)s, NULL, NULL, %(buyer)s, %(amount)s, '', %(key)s, 1, %(created)s
      FROM taken
    RETURNING first_number, last_number
)
SELECT sold.first_number, sold.last_number, taken.size_letter, taken.order_number FROM sold, taken
"""


def sale_make_online(
    *,
    game: Game,
    quantity: int,
    buyer: Player,
    request_key: str,
    sale_id: int,
    amount: Decimal,
    now: datetime | None = None,
) -> SaleResult:
    """Sell ``quantity`` cards of ``game``'s online series to ``buyer`` in number order
    (R36-R38, R85): the last step of a purchase's transaction (``bingo.online.services.online_buy``),
    which has taken ``amount`` from the wallet already, in an entry naming the sale ``sale_id``
    written here. ``cash_received`` records the amount taken from the wallet.

    On PostgreSQL one statement takes the numbers of the game's first series and writes the
    sale. When it does not apply (the first series short: R38's rollover into the second), the
    locked path locks the game's series and reads the game afresh. Refused (ValidationError)
    when the game is not selling (R93: judged at ``now``), its room is closed to players, or
    its series cannot supply the cards (R38); the caller's transaction then undoes the debit."""
    if not connection.in_atomic_block:
        raise RuntimeError("sale_make_online runs inside the transaction that pays for the sale")
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
        raise ValidationError(_("Buy at least one card."))
    if quantity > bounds.SALE_MAX_CARDS:
        raise ValidationError(
            {"quantity": _("Buy at most %(n)d cards at once.") % {"n": bounds.SALE_MAX_CARDS}}
        )
    if not request_key or len(request_key) > 64:
        raise ValidationError(_("Each sale needs a request key of 1 to 64 characters."))
    now = now or timezone.now()
    result = None
    context = _sale_context(game.pk)
    if connection.vendor == "postgresql" and context is not None and context.price * quantity == amount:
        result = _sell_online_fast(game.pk, context, quantity, buyer, request_key, sale_id, amount, now)
    if result is None:
        result = _sell_online_locked(game, quantity, buyer, request_key, sale_id, amount, now)
    transaction.on_commit(lambda: events.price_board_changed(game.pk))
    return result


def _sell_online_fast(
    game_id: int,
    context: SaleContext,
    quantity: int,
    buyer: Player,
    key: str,
    sale_id: int,
    amount: Decimal,
    now: datetime,
) -> SaleResult | None:
    """The common online sale in one statement; None when it does not apply (the locked path
    then decides, and explains any refusal)."""
    params = {
        "quantity": quantity,
        "series": context.series_id,
        "game": game_id,
        "price": context.price,
        "amount": amount,
        "buyer": buyer.pk,
        "key": key,
        "sale": sale_id,
        "now": now,
        "created": timezone.now(),
    }
    with connection.cursor() as cursor:
        cursor.execute(_TAKE_ONLINE_NUMBERS_AND_RECORD, params)
        row = cursor.fetchone()
    if row is None:
        return None
    first, last, size_letter, order_number = row
    series = _series_named(context.series_id, size_letter, order_number, context.price, online=True)
    sale = Sale(
        id=sale_id,
        game_id=game_id,
        series=series,
        first_number=first,
        last_number=last,
        quantity=quantity,
        unit_price=context.price,
        amount=amount,
        buyer=buyer,
        cash_received=amount,
        player="",
        request_key=key,
        part=1,
        created_at=params["created"],
    )
    sale._state.adding = False
    sale._state.db = connection.alias
    return SaleResult((sale,), amount, Decimal("0"))


def _sell_online_locked(
    game: Game,
    quantity: int,
    buyer: Player,
    key: str,
    sale_id: int,
    amount: Decimal,
    now: datetime,
) -> SaleResult:
    """The locked online sale: the game's series locked in their keys' order (the purchase's
    last locks, after the wallet's), then the game read afresh, so a close that committed is
    seen, and a close to come waits for this sale and counts it (R40)."""
    on_sale, first, second = _series_on_sale_lock(game)
    fresh = Game.objects.select_related("session__room__online").get(pk=game.pk)
    online = getattr(fresh.session.room, "online", None)
    if online is not None and not online.active:
        raise ValidationError(_("This room is closed to players."))
    if (
        fresh.state != GameState.SELLING.value
        or fresh.doubles_of_id is not None
        or (fresh.sales_close_at is not None and now >= fresh.sales_close_at)
        or first.on_sale_in_id != game.pk
    ):
        raise ValidationError(_("Game %(n)d is not selling cards.") % {"n": fresh.number})
    _series_channel_check(fresh, online=True)
    try:
        blocks = allocate(
            quantity, series_stock(first), first.start, series_stock(second) if second else None
        )
    except SaleError as exc:
        raise validation_error(exc) from None
    if first.price * quantity != amount:
        # The wallet paid the game's price, at which its series sell (R38 a)): never otherwise.
        raise RuntimeError(f"game {game.pk} sells at {first.price}; the wallet paid {amount} for {quantity}")
    rows = _blocks_record(
        fresh, blocks, {s.pk: s for s in on_sale}, None, None, buyer, amount, key, "", sale_id
    )
    return SaleResult(rows, amount, Decimal("0"))


def _sell(
    game: Game,
    quantity: int,
    desk: CashDesk | None,
    cashier: User | None,
    received: Decimal | None,
    key: str,
    player: str,
    buyer: Player | None = None,
) -> SaleResult:
    """The locked sale, at a desk (``desk``, ``cashier``, cash ``received``) or online to
    ``buyer`` (paid from the wallet by the caller: ``received`` None)."""
    # The lock order (docs/architecture.md, "Lock order"): the game, then its series, as the
    # close takes them. A sale in flight holds the game, so the close waits for it and counts
    # it; a sale that comes during the close waits, then reads the game closed: no sale slips
    # into a closed game, and neither waits for the other holding what the other needs.
    game = locks.game_lock(game_id=game.pk)
    hall = game.session.room.hall
    if game.state != GameState.SELLING.value or game.doubles_of_id is not None:
        raise ValidationError(_("Game %(n)d is not selling cards.") % {"n": game.number})
    _series_channel_check(game, online=buyer is not None)
    if hall.card_limit_per_player:
        _card_limit_check(game, hall.card_limit_per_player, quantity, player, buyer)
    on_sale, first, second = _series_on_sale_lock(game)
    try:
        blocks = allocate(
            quantity, series_stock(first), first.start, series_stock(second) if second else None
        )
    except SaleError as exc:
        raise validation_error(exc) from None
    price = first.price
    amount = price * quantity
    if received is None:  # online: the wallet pays exactly, in the caller's transaction
        received = amount
    if received < amount:
        raise ValidationError(
            _("The cards cost %(amount)s; only %(received)s was received (cash only, no credit, R39).")
            % {"amount": amount, "received": received}
        )
    rows = _blocks_record(
        game, blocks, {s.pk: s for s in on_sale}, desk, cashier, buyer, received, key, player
    )
    return SaleResult(rows, amount, received - amount)


def _blocks_record(
    game: Game,
    blocks: Sequence[Block],
    series: dict[int, Series],
    desk: CashDesk | None,
    cashier: User | None,
    buyer: Player | None,
    received: Decimal,
    key: str,
    player: str,
    first_id: int | None = None,
) -> tuple[Sale, ...]:
    """The locked sale's writes: each block's series moves its cursor (exhausted at its last
    card), and one ledger row per block (R38: two when it rolled into the second series), the
    first with the key ``first_id`` when given (an online purchase's, reserved by its debit)."""
    rows = []
    for part, block in enumerate(blocks, start=1):
        s = series[block.series_id]
        s.last_sold = block.last_number
        if s.last_sold == s.size:
            s.status = Series.Status.EXHAUSTED
        s.save(update_fields=["last_sold", "status"])
        count = block.last_number - block.first_number + 1
        rows.append(
            Sale.objects.create(
                id=first_id if part == 1 else None,
                game=game,
                series=s,
                first_number=block.first_number,
                last_number=block.last_number,
                quantity=count,
                unit_price=s.price,
                amount=s.price * count,
                cash_desk=desk,
                cashier=cashier,
                buyer=buyer,
                cash_received=received,
                player=player,
                request_key=key,
                part=part,
            )
        )
    return tuple(rows)


def _series_channel_check(game: Game, *, online: bool) -> None:
    """R85: online series are sold only online, from wallets; the hall's only at its desks (the
    fast path's UPDATE says the same, and on PostgreSQL the sale trigger too). Read before the
    series' lock: a series is online or not from its creation, and a selling game's series
    change only under the game's lock, which the sale holds."""
    wrong = Series.objects.filter(games__game_id=game.pk).exclude(online=online).first()
    if wrong is None:
        return
    if not online:
        raise ValidationError(
            _("Series %(s)s is set aside for online play: it is never sold at a desk (R85).")
            % {"s": wrong.label}
        )
    raise ValidationError(
        _("Series %(s)s is a hall series: it is sold only at the hall's desks (R85).") % {"s": wrong.label}
    )


def _card_limit_check(game: Game, limit: int, quantity: int, player: str, buyer: Player | None) -> None:
    """R35: the hall's cap on the cards one player buys in a game, which needs to know who buys."""
    if not player and buyer is None:
        raise ValidationError(_("This hall limits cards per player (R35): say who is buying."))
    mine = game.sales.filter(buyer=buyer) if buyer is not None else game.sales.filter(player=player)
    bought = mine.aggregate(n=Sum("quantity"))["n"] or 0
    if bought + quantity > limit:
        raise ValidationError(
            _("A player may buy at most %(limit)d cards in a game (R35); %(player)s has %(bought)d.")
            % {"limit": limit, "player": player or str(buyer), "bought": bought}
        )


def _series_on_sale_lock(
    game: Game,
) -> tuple[list[locks.SeriesInGame], locks.SeriesInGame, locks.SeriesInGame | None]:
    """R36: sales queue on the rows of the series on sale (the desk's one-statement sale too),
    locked as late as the sale allows: every series on sale in order, the first, and the second
    to roll into (R38) unless retired."""
    on_sale = sorted(locks.game_series_lock(game_id=game.pk), key=lambda s: s.position)
    if not on_sale:
        raise ValidationError(_("Game %(n)d is not selling cards.") % {"n": game.number})
    first = on_sale[0]
    if first.status == Series.Status.RETIRED:
        raise ValidationError(
            _("Series %(s)s was retired: its sale has stopped. Close this game's sales.") % {"s": first.label}
        )
    # A retired second series is no longer there to roll into (R38): the first one's cards only.
    second = on_sale[1] if len(on_sale) > 1 and on_sale[1].status != Series.Status.RETIRED else None
    return on_sale, first, second
