"""A session as plain data: what ``session_export`` writes and the acta is built on.

The format is documented in docs/session-export.md. Money is written as strings with two
decimals (never floats), times in ISO 8601 with their offset, in the hall's time zone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from django.db.models import Sum

from bingo.common.clock import hall_isoformat
from bingo.common.money import quantum_for
from bingo.engine.payout import tax_withheld
from bingo.games import doubles
from bingo.models import Ball, Game, GameSeries, Prize, PrizePayment, Session
from halls.models import BallReplacement, BallSetCheck, BallSetUse, Hall, JackpotMovement

#: Bumped when a field changes meaning or goes away (adding one does not).
FORMAT_VERSION = 1


def _money(value: Decimal | None) -> str:
    return f"{(value or Decimal(0)):.2f}"


Clock = Callable[[Any], str | None]


def _clock(hall: Hall) -> Clock:
    """``hall_isoformat`` on ``hall``'s clock."""

    def when(value: Any) -> str | None:
        return hall_isoformat(value, hall)

    return when


#: What a game's export reads with the game row itself.
_GAME_JOINS = ("doubles_of", "ball_set_use__ball_set")


def session_export_data(*, session: Session) -> dict[str, Any]:
    """Everything about ``session`` an acta needs, game by game."""
    session = Session.objects.select_related("room__hall").get(pk=session.pk)
    hall = session.room.hall
    when = _clock(hall)
    games = Game.objects.filter(session=session).select_related(*_GAME_JOINS).order_by("number")
    return {
        **_header(session, when),
        "ball_replacements": _ball_replacements(session, when),
        "games": [_game(game, hall, when) for game in games],
    }


def session_header_data(*, session: Session) -> dict[str, Any]:
    """The head of ``session``'s export: the format, the hall, and the session with its start
    (R61 a)), as ``session_export_data`` writes them (one query)."""
    session = Session.objects.select_related("room__hall").get(pk=session.pk)
    return _header(session, _clock(session.room.hall))


def _header(session: Session, when: Clock) -> dict[str, Any]:
    hall = session.room.hall
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
    }


def game_export_data(*, game: Game) -> dict[str, Any]:
    """One game exactly as ``session_export_data`` lists it among the session's games: what the
    acta records when the game ends (R59-R61). The same fixed number of queries whatever the
    game's position in its session."""
    game = Game.objects.select_related("session__room__hall", *_GAME_JOINS).get(pk=game.pk)
    hall = game.session.room.hall
    return _game(game, hall, _clock(hall))


def session_equipment_data(*, session: Session) -> dict[str, Any]:
    """What happened to ``session``'s ball sets: the checks of every ball at its start and end
    (R23) and the balls and sets replaced (R25-R26, R61 k), in the order they happened (two
    queries)."""
    session = Session.objects.select_related("room__hall").get(pk=session.pk)
    when = _clock(session.room.hall)
    checks = (
        BallSetCheck.objects.filter(session=session)
        .select_related("ball_set", "checked_by")
        .order_by("checked_at", "pk")
    )
    return {
        "ball_set_checks": [
            {
                "at": when(c.checked_at),
                "ball_set": c.ball_set.serial_number,
                "phase": c.phase,
                "result": c.result,
                "faulty_balls": list(c.faulty_balls),
                "notes": c.notes,
                "by": c.checked_by.get_username() if c.checked_by else None,
            }
            for c in checks
        ],
        "ball_replacements": _ball_replacements(session, when),
    }


def _ball_replacements(session: Session, when: Clock) -> list[dict[str, Any]]:
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
    """R15: which game of double cards this is, and the other one's number. The first game's
    entry in the acta is recorded when it ends, before the second game exists; R15 makes the
    session's next game the second (``doubles.doubles_before``), so the first names it by its
    number then. A first game annulled refunded the double cards in full: no second game."""
    if game.doubles_of_id is not None:
        return {"game": "second", "other_game": game.doubles_of.number if game.doubles_of else None}
    if doubles.sells_doubles(game):
        annulled = game.state == Game.State.ANNULLED
        return {"game": "first", "other_game": None if annulled else game.number + 1}
    return None


def _ball_set(game: Game) -> dict[str, Any] | None:
    """R22-R25: the ball set that drew ``game`` (a physical draw, or an electronic one's
    fallback) and its game count after it; None when none was named."""
    try:
        use = game.ball_set_use
    except BallSetUse.DoesNotExist:
        return None
    return {"serial_number": use.ball_set.serial_number, "games_played": use.number}


def _series_sold(entries: Iterable[GameSeries]) -> list[dict[str, Any]]:
    """R61 b-d): each series the game sold, its card set, its price and the cards sold."""
    return [
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
    ]


def _prize(p: Prize, tax_each: Decimal) -> dict[str, Any]:
    """A prize awarded: at which ball, its total and split among the winning cards, the tax on
    each share (R61 g)."""
    return {
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
        "tax_each": _money(tax_each),
    }


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
        "jackpot": _jackpot(game),
        "tax_due": _money(sum((taxes[p.pk] * p.winners for p in prizes), Decimal(0))),
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
