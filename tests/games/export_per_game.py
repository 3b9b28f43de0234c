"""The session's export as ``bingo.games.exports`` read it before issue 23: one game at a time,
a dozen queries a game (1.5 s for 200 games). Kept as the reference the batched reading is
checked against, byte for byte, on a session with every kind of record
(tests/games/test_exports.py): a field added to the export is added here too."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import Sum

from bingo.common.money import quantum_for
from bingo.engine.payout import tax_withheld
from bingo.games import doubles
from bingo.games.exports import (
    _GAME_JOINS,
    Clock,
    _ball_replacements,
    _ball_set,
    _clock,
    _double_cards,
    _header,
    _jackpot,
    _money,
    _prize,
    _series_sold,
)
from bingo.models import Ball, Game, GameSeries, Prize, PrizePayment, Session
from halls.models import Hall, JackpotMovement


def session_export_data_per_game(*, session: Session) -> dict[str, Any]:
    """``session_export_data`` as it was, game after game."""
    session = Session.objects.select_related("room__hall").get(pk=session.pk)
    hall = session.room.hall
    when = _clock(hall)
    games = Game.objects.filter(session=session).select_related(*_GAME_JOINS).order_by("number")
    return {
        **_header(session, when),
        "ball_replacements": _ball_replacements(session, when),
        "games": [_game(game, hall, when) for game in games],
    }


def game_export_data_per_game(*, game: Game) -> dict[str, Any]:
    """``game_export_data`` as it was."""
    game = Game.objects.select_related("session__room__hall", *_GAME_JOINS).get(pk=game.pk)
    hall = game.session.room.hall
    return _game(game, hall, _clock(hall))


def _game(game: Game, hall: Hall, when: Clock) -> dict[str, Any]:
    entries = GameSeries.objects.filter(game=game).select_related("series__card_set").order_by("position")
    sold = game.sales.aggregate(cards=Sum("quantity"), total=Sum("amount"))
    prizes = list(
        Prize.objects.filter(game=game).prefetch_related("cards__series").order_by("awarded_at", "pk")
    )
    quantum = quantum_for(hall.currency)

    def tax_on(share: Decimal) -> Decimal:
        # R61 g): what the hall's rule withholds from one winning card's share when it is paid.
        return tax_withheld(share, rate=hall.tax_rate, threshold=hall.tax_threshold, quantum=quantum)

    taxes = {p.pk: tax_on(p.amount_each) for p in prizes}
    tax = PrizePayment.objects.filter(winner__prize__game=game).aggregate(t=Sum("tax_withheld"))["t"]
    refunded = game.refunds.aggregate(t=Sum("amount"))["t"]
    return {
        "number": game.number,
        "variant": game.variant,
        "state": game.state,
        "state_reason": game.state_reason,
        "draw_mode": game.draw_mode,
        "manual_from_ball": game.manual_from_ball,
        "sales_opened_at": when(game.sales_opened_at),
        "sales_closed_at": when(game.sales_closed_at),
        "finished_at": when(game.finished_at),
        "opening_announcement": game.opening_announcement,
        "closing_announcement": game.closing_announcement,
        "series_sold": _series_sold(entries),
        "cards_sold": sold["cards"] or 0,
        "total_collected": _money(sold["total"]),
        "double_cards": _double_cards(game),
        "cards_in_play": doubles.cards_in_play(game),
        "prize_base": _money(doubles.prize_base(game)),
        "prize_plan": {
            "shares": dict(game.prize_plan),
            "remainder": _money(game.prize_remainder) if game.prize_remainder is not None else None,
            "jackpot_active": game.jackpot_active,
            "win_rules": game.win_rules,
        },
        "ball_set": _ball_set(game),
        "balls": list(Ball.objects.filter(game=game).order_by("position").values_list("number", flat=True)),
        "prizes": [_prize(p, taxes[p.pk]) for p in prizes],
        "jackpot": _jackpot(game, list(JackpotMovement.objects.filter(game=game).order_by("pk"))),
        "tax_due": _money(sum((taxes[p.pk] * p.winners for p in prizes), Decimal(0))),
        "tax_withheld": _money(tax),
        "refunded": _money(refunded),
    }
