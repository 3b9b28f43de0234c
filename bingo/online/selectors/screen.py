"""The player's game screen (R94-R97): one online game as the player sees it, its state built by
the engine's ``screen_state`` (``bingo/engine/screen.py``) as the demo's is."""

from __future__ import annotations

import copy
import time
from decimal import Decimal
from typing import Any

from django.db.models import Prefetch

from bingo.common.money import money_display
from bingo.common.patterns import pattern_shown
from bingo.draw import detection
from bingo.engine.screen import (
    RealPart,
    ScreenAward,
    ScreenCard,
    ScreenGame,
    ScreenOutcome,
    ScreenPlayer,
    ScreenPrize,
    card_label,
    screen_state,
)
from bingo.models import Ball, Game, GameState, Player, Prize, PrizeWinner, Sale
from bingo.online.selectors.outcomes import GameOutcome, game_outcome
from bingo.online.selectors.rooms import game_on_sale, prize_names
from bingo.players import selectors as player_selectors
from bingo.playtime import selectors as playtime_selectors
from bingo.protection import selectors as protection_selectors
from bingo.sales import selectors as sales_selectors
from cards.selectors import card_get


def online_game_get(*, player: Player, game_id: int) -> Game:
    """A game of one of the player's operator's online rooms; Game.DoesNotExist otherwise."""
    return Game.objects.select_related("session__room__hall", "session__room__online").get(
        pk=game_id, session__room__hall_id=player.hall_id, session__room__online__isnull=False
    )


#: Seconds a process answers a purchase with a selling game as it read it. Staleness is harmless:
#: the purchase's own statement judges the game again under the series' lock (selling, R93's
#: close, the room open: bingo.sales.services.sale_make_online), and a refusal is judged on the
#: game read afresh (bingo.online.services.online_buy).
OFFER_SECONDS = 2.0
_offers: dict[int, tuple[float, Game]] = {}


def online_game_offer_get(*, player: Player, game_id: int) -> Game:
    """``online_game_get`` for a purchase: a game seen selling by this process in the last
    ``OFFER_SECONDS`` comes as it was read (a copy), any other is read now. Game.DoesNotExist
    as ``online_game_get``."""
    now = time.monotonic()
    kept = _offers.get(game_id)
    if kept is not None and now - kept[0] < OFFER_SECONDS and kept[1].session.room.hall_id == player.hall_id:
        return copy.copy(kept[1])
    game = online_game_get(player=player, game_id=game_id)
    if game.state == GameState.SELLING.value:
        if len(_offers) > 1000:
            _offers.clear()
        _offers[game_id] = (now, copy.copy(game))
    return game


def online_game_offers_forget() -> None:
    """Forget the games kept for purchases (the tests' databases reuse ids)."""
    _offers.clear()


def _screen_cards(sales: list[Sale]) -> list[ScreenCard]:
    """The player's cards in ``sales`` (their rows read one by one), in the order bought."""
    return [
        ScreenCard(
            series=sale.series.label,
            series_id=sale.series_id,
            number=number,
            label=card_label(sale.series.label, number),
            grid=card_get(card_set=sale.series.card_set, number=number),
        )
        for sale in sales
        for number in range(sale.first_number, sale.last_number + 1)
    ]


def _screen_awarded(game: Game, mine: set[tuple[int, int]], currency: str) -> dict[str, ScreenAward]:
    """The prizes awarded in ``game`` by kind, with their winning cards and whether one is in ``mine``."""
    with_cards = Prefetch("cards", queryset=PrizeWinner.objects.select_related("series"))
    awarded = {}
    for prize in Prize.objects.filter(game=game).prefetch_related(with_cards):
        winners = list(prize.cards.all())
        awarded[prize.kind] = ScreenAward(
            winners=tuple(card_label(w.series.label, w.card_number) for w in winners),
            each=money_display(prize.amount_each, currency),
            mine=any((w.series_id, w.card_number) in mine for w in winners),
        )
    return awarded


def _screen_outcome(*, player: Player, game: Game, currency: str) -> ScreenOutcome:
    """R99: what ``game`` left the player with once over (prizes are paid when it ends and
    refunds when it is null: nothing to read before)."""
    over = game.state in (GameState.FINISHED.value, GameState.ANNULLED.value)
    outcome = (
        game_outcome(player=player, game=game)
        if over
        else GameOutcome(game, False, False, "", Decimal("0.00"), Decimal("0.00"), Decimal("0.00"))
    )
    return ScreenOutcome(
        over=outcome.over,
        annulled=outcome.annulled,
        reason=outcome.reason,
        credited=f"{outcome.credited:.2f}",
        credited_display=money_display(outcome.credited, currency),
        refunded=f"{outcome.refunded:.2f}",
        refunded_display=money_display(outcome.refunded, currency),
    )


def player_game_state(*, player: Player, game: Game) -> dict[str, Any]:
    """Everything the player's game screen shows, as JSON, built by the engine's ``screen_state``
    (as the demo's is): the game's stage, the balls (the last large), the player's cards with their
    marks and, per card, the prizes one number away (R95), the prizes with their winners and
    whether the player won one (R97), the wallet's balance, the marking chosen (R96), the choices
    open now (R94), what the game left the player with (R99) and the play session (R101)."""
    game = Game.objects.select_related("session__room__hall", "session__room__online").get(pk=game.pk)
    hall = game.session.room.hall
    online_room = game.session.room.online
    balls = list(Ball.objects.filter(game=game).order_by("position").values_list("number", flat=True))
    rules = detection.game_rules(game)
    sales = list(
        Sale.objects.filter(game=game, buyer=player).select_related("series__card_set").order_by("pk")
    )
    mine = {(s.series_id, n) for s in sales for n in range(s.first_number, s.last_number + 1)}
    awarded = _screen_awarded(game, mine, hall.currency)
    cards = _screen_cards(sales)
    names = prize_names()
    prizes = [
        ScreenPrize(
            kind=p.kind.value,
            name=names.get(p.kind.value, p.kind.value),
            amount=f"{p.amount:.2f}",
            display=p.display,
        )
        for p in sales_selectors.game_board_figures(game=game).prizes
    ]
    balance = player_selectors.wallet_balance(player=player)
    price = game.price
    return screen_state(
        game=ScreenGame(
            id=game.pk,
            number=game.number,
            room=game.session.room.name,
            variant=game.variant,
            state=game.state,
            state_name=str(GameState(game.state).label),
            price=f"{price:.2f}" if price is not None else None,
            price_display=money_display(price, hall.currency) if price is not None else None,
            sales_close_at=game.sales_close_at.isoformat() if game.sales_close_at else None,
            ball_interval=f"{game.ball_interval}" if game.ball_interval is not None else None,
            pattern=pattern_shown(game.win_rules),
        ),
        rules=rules,
        balls=balls,
        cards=cards,
        prizes=prizes,
        awarded=awarded,
        player=ScreenPlayer(
            marking=player.marking,
            balance=f"{balance:.2f}",
            balance_display=money_display(balance, hall.currency),
            cards_bought=sum(s.quantity for s in sales),
            card_limit=hall.card_limit_per_player,
        ),
        selling=game_on_sale(game=game) and online_room is not None and online_room.active,
        part=RealPart(
            outcome=_screen_outcome(player=player, game=game, currency=hall.currency),
            playtime=playtime_selectors.playtime_state(player=player),
            excluded=protection_selectors.exclusion_active(player=player) is not None,  # R101
        ),
    )
