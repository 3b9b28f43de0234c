"""A session as plain data: what ``session_export`` writes and the acta is built on.

The format is documented in docs/session-export.md. Money is written as strings with two
decimals (never floats), times in ISO 8601 with their offset, in the hall's time zone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import Sum

from bingo.common.clock import hall_isoformat
from bingo.common.money import quantum_for
from bingo.engine.payout import tax_withheld
from bingo.games import doubles
from bingo.models import Ball, Game, GameSeries, Prize, PrizePayment, Refund, Sale, Session
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
    """Everything about ``session`` an acta needs, game by game: every game read at once, so the
    queries are as many for 200 games as for 2 (issue 23)."""
    session = Session.objects.select_related("room__hall").get(pk=session.pk)
    hall = session.room.hall
    when = _clock(hall)
    games = Game.objects.filter(session=session).select_related(*_GAME_JOINS).order_by("number")
    return {
        **_header(session, when),
        "ball_replacements": _ball_replacements(session, when),
        "games": _games(list(games), hall, when),
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
    return _games([game], hall, _clock(hall))[0]


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


def _double_cards(game: Game, entries: Iterable[GameSeries] | None = None) -> dict[str, Any] | None:
    """R15: which game of double cards this is, and the other one's number. The first game's
    entry in the acta is recorded when it ends, before the second game exists; R15 makes the
    session's next game the second (``doubles.doubles_before``), so the first names it by its
    number then. A first game annulled refunded the double cards in full: no second game."""
    if game.doubles_of_id is not None:
        return {"game": "second", "other_game": game.doubles_of.number if game.doubles_of else None}
    if doubles.sells_doubles(game, entries):
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


@dataclass
class _Reads:
    """What ``_games`` reads of every game at once, by game id: one query for each field (the
    sale amounts only when a game of double cards is among them), whatever the number of games."""

    entries: dict[int, list[GameSeries]] = field(default_factory=lambda: defaultdict(list))
    #: The cards sold and the money they brought (None for each when nothing was sold).
    sold: dict[int, tuple[int | None, Decimal | None]] = field(default_factory=dict)
    sale_amounts: dict[int, list[Decimal]] = field(default_factory=lambda: defaultdict(list))
    prizes: dict[int, list[Prize]] = field(default_factory=lambda: defaultdict(list))
    tax_withheld: dict[int, Decimal] = field(default_factory=dict)
    refunded: dict[int, Decimal] = field(default_factory=dict)
    balls: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    jackpot: dict[int, list[JackpotMovement]] = field(default_factory=lambda: defaultdict(list))


def _reads(games: Sequence[Game]) -> _Reads:
    """Read what ``_games`` needs of ``games`` beyond their rows: ten queries at most."""
    ids = [g.pk for g in games]
    reads = _Reads()
    for entry in (
        GameSeries.objects.filter(game_id__in=ids)
        .select_related("series__card_set")
        .order_by("game_id", "position")
    ):
        reads.entries[entry.game_id].append(entry)
    for row in (
        Sale.objects.filter(game_id__in=ids)
        .order_by()
        .values("game_id")
        .annotate(cards=Sum("quantity"), total=Sum("amount"))
    ):
        reads.sold[row["game_id"]] = (row["cards"], row["total"])
    # R15: the prize base of a game of double cards is half of each of its first game's sales.
    halved = {g.doubles_of_id for g in games if g.doubles_of_id is not None} | {
        g.pk for g in games if g.doubles_of_id is None and doubles.sells_doubles(g, reads.entries[g.pk])
    }
    for game_id, amount in (
        Sale.objects.filter(game_id__in=halved).order_by().values_list("game_id", "amount")
    ):
        reads.sale_amounts[game_id].append(amount)
    for prize in (
        Prize.objects.filter(game_id__in=ids)
        .prefetch_related("cards__series")
        .order_by("game_id", "awarded_at", "pk")
    ):
        reads.prizes[prize.game_id].append(prize)
    reads.tax_withheld = dict(
        PrizePayment.objects.filter(winner__prize__game_id__in=ids)
        .order_by()
        .values("winner__prize__game_id")
        .annotate(t=Sum("tax_withheld"))
        .values_list("winner__prize__game_id", "t")
    )
    reads.refunded = dict(
        Refund.objects.filter(game_id__in=ids)
        .order_by()
        .values("game_id")
        .annotate(t=Sum("amount"))
        .values_list("game_id", "t")
    )
    for game_id, number in (
        Ball.objects.filter(game_id__in=ids).order_by("game_id", "position").values_list("game_id", "number")
    ):
        reads.balls[game_id].append(number)
    for move in JackpotMovement.objects.filter(game_id__in=ids).order_by("pk"):
        if move.game_id is not None:  # always, by the filter: for the type checker
            reads.jackpot[move.game_id].append(move)
    return reads


def _games(games: Sequence[Game], hall: Hall, when: Clock) -> list[dict[str, Any]]:
    """Each of ``games`` (read with ``_GAME_JOINS``) as the export lists it, in as many queries
    for one game as for a whole session."""
    if not games:
        return []
    reads = _reads(games)
    quantum = quantum_for(hall.currency)

    def tax_on(share: Decimal) -> Decimal:
        # R61 g): what the hall's rule withholds from one winning card's share when it is paid.
        return tax_withheld(share, rate=hall.tax_rate, threshold=hall.tax_threshold, quantum=quantum)

    exported = []
    for game in games:
        entries = reads.entries[game.pk]
        cards, total = reads.sold.get(game.pk, (None, None))
        prizes = reads.prizes[game.pk]
        taxes = {p.pk: tax_on(p.amount_each) for p in prizes}
        exported.append(
            {
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
                "cards_sold": cards or 0,
                "total_collected": _money(total),
                "double_cards": _double_cards(game, entries),
                "cards_in_play": doubles.cards_in_play(game, entries=entries, sales_cards=cards or 0),
                "prize_base": _money(
                    doubles.prize_base(
                        game,
                        entries=entries,
                        sales_total=total or Decimal("0"),
                        sale_amounts=reads.sale_amounts,
                    )
                ),
                "prize_plan": {
                    "shares": dict(game.prize_plan),
                    "remainder": _money(game.prize_remainder) if game.prize_remainder is not None else None,
                    "jackpot_active": game.jackpot_active,
                    "win_rules": game.win_rules,
                },
                "ball_set": _ball_set(game),
                "balls": reads.balls[game.pk],
                "prizes": [_prize(p, taxes[p.pk]) for p in prizes],
                "jackpot": _jackpot(game, reads.jackpot[game.pk]),
                "tax_due": _money(sum((taxes[p.pk] * p.winners for p in prizes), Decimal(0))),
                "tax_withheld": _money(reads.tax_withheld.get(game.pk)),
                "refunded": _money(reads.refunded.get(game.pk)),
            }
        )
    return exported


def _jackpot(game: Game, moves: list[JackpotMovement]) -> dict[str, Any] | None:
    """The jackpot's movements caused by ``game`` (``moves``, in their order): its contribution
    (R10), and its win and reset (R11) when a bingo within the announced balls (R9) took it."""
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
