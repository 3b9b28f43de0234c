"""A session as plain data: what ``session_export`` writes and the acta is built on.

The format is documented in docs/session-export.md. Money is written as strings with two
decimals (never floats), times in ISO 8601 with their offset, in the hall's time zone.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.db.models import Sum

from bingo.games import doubles
from bingo.models import Ball, Game, GameSeries, Prize, PrizePayment, Session
from halls.models import BallReplacement, JackpotMovement

#: Bumped when a field changes meaning or goes away (adding one does not).
FORMAT_VERSION = 1


def _money(value: Decimal | None) -> str:
    return f"{(value or Decimal(0)):.2f}"


def session_export_data(*, session: Session) -> dict[str, Any]:
    """Everything about ``session`` an acta needs, game by game."""
    session = Session.objects.select_related("room__hall").get(pk=session.pk)
    hall = session.room.hall
    zone = ZoneInfo(hall.time_zone)

    def when(value: Any) -> str | None:
        return value.astimezone(zone).isoformat() if value else None

    games = Game.objects.filter(session=session).order_by("number")
    return {
        "format": FORMAT_VERSION,
        "hall": {"name": hall.name, "currency": hall.currency, "time_zone": hall.time_zone},
        "session": {
            "id": session.pk,
            "room": session.room.name,
            "start": when(session.starts_at),
            "scheduled_end": when(session.scheduled_end),
            "end": when(session.ended_at),
            "jackpot_balls": session.jackpot_balls,
        },
        "ball_replacements": _ball_replacements(session, when),
        "games": [_game(game, when) for game in games],
    }


def _ball_replacements(session: Session, when: Any) -> list[dict[str, Any]]:
    """R25-R26, R61 k: the balls and sets replaced during the session; a ball replaced again in
    it is flagged with why (``repeated``, ``repeat_reason``)."""
    rows = (
        BallReplacement.objects.filter(session=session)
        .select_related("ball_set", "replacement_set", "replaced_by")
        .order_by("replaced_at", "pk")
    )
    return [
        {
            "at": when(r.replaced_at),
            "ball_set": r.ball_set.serial_number,
            "ball_number": r.ball_number,
            "replacement_set": r.replacement_set.serial_number if r.replacement_set else None,
            "reason": r.reason,
            "repeated": r.repeated,
            "repeat_reason": r.repeat_reason,
            "by": r.replaced_by.get_username() if r.replaced_by else None,
        }
        for r in rows
    ]


def _double_cards(game: Game) -> dict[str, Any] | None:
    """R15: which game of double cards this is, and the other one's number."""
    if game.doubles_of_id is not None:
        return {"game": "second", "other_game": game.doubles_of.number if game.doubles_of else None}
    second = Game.objects.filter(doubles_of=game).values_list("number", flat=True).first()
    if doubles.sells_doubles(game):
        return {"game": "first", "other_game": second}
    return None


def _game(game: Game, when: Any) -> dict[str, Any]:
    entries = GameSeries.objects.filter(game=game).select_related("series__card_set").order_by("position")
    sold = game.sales.aggregate(cards=Sum("quantity"), total=Sum("amount"))
    prizes = Prize.objects.filter(game=game).prefetch_related("cards__series").order_by("awarded_at", "pk")
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
        "series_sold": [
            {
                "order_number": e.series.order_number,
                "letter": e.series.size_letter,
                "label": e.series.label,
                "authorization": e.series.authorization,
                "card_set": {
                    "seed": e.series.card_set.seed,
                    "size": e.series.card_set.size,
                    "algorithm": e.series.card_set.algorithm,
                    "fingerprint": e.series.card_set.fingerprint,
                },
                "price": _money(e.series.price),
                "first_card_sold": e.start_number if e.last_number is not None else None,
                "last_card_sold": e.last_number,
            }
            for e in entries
        ],
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
        "balls": list(Ball.objects.filter(game=game).order_by("position").values_list("number", flat=True)),
        "prizes": [
            {
                "kind": p.kind,
                "ball_count": p.balls_drawn,
                "total": _money(p.total),
                "winning_cards": [
                    {
                        "series": w.series.order_number,
                        "card": w.card_number,
                        "completed_at_ball": w.completed_at_ball,
                    }
                    for w in p.cards.all()
                ],
                "amount_each": _money(p.amount_each),
                "remainder": _money(p.remainder),
            }
            for p in prizes
        ],
        "jackpot": _jackpot(game),
        "tax_withheld": _money(tax),
        "refunded": _money(refunded),
    }


def _jackpot(game: Game) -> dict[str, Any] | None:
    """The jackpot's movements caused by ``game``: its contribution (R10), and its win and reset
    (R11) when a bingo within the announced balls (R9) took it."""
    moves = list(JackpotMovement.objects.filter(game=game).order_by("pk"))
    if not game.jackpot_active and not moves:
        return None
    if not moves:
        return {
            "balance_before": None,
            "contribution": _money(None),
            "won": False,
            "paid": _money(None),
            "balance_after": None,
        }
    by_kind = {m.kind: m for m in moves}
    first, last = moves[0], moves[-1]
    win = by_kind.get(JackpotMovement.Kind.WIN)
    contribution = by_kind.get(JackpotMovement.Kind.CONTRIBUTION)
    return {
        "balance_before": _money(first.balance_after - first.amount),
        "contribution": _money(contribution.amount if contribution else None),
        "won": win is not None,
        "paid": _money(-win.amount if win else None),
        "balance_after": _money(last.balance_after),
    }
