"""Reads of double cards (R15, R45): cards bought once and valid for two consecutive games.

How they play:

* A double series is sold in a game like any other series: its **first game**. Both series a
  game puts on sale (R38) are double, or neither.
* The session's next game is their **second game**. ``services.game_play_doubles`` records the
  same cards there (``GameSeries.carried``) and links it (``Game.doubles_of``): it plays those
  cards again and sells none of its own, so no card can be in it twice (R38 c)).
* Each of the two games works out its prize money (R7) on half of what the cards cost
  (``bingo.engine.sales.double_card_halves``, per sale: the first game half rounded down to the
  cent, the second the rest), so the two games together pay out on exactly what was paid.
* Their prizes, in either game, are paid once the second game has ended (R45); a session does
  not close while double cards wait for their second game.
* Annulling the first game refunds the cards in full (they never play); annulling the second
  refunds its half.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

from django.db.models import Sum

from bingo.engine.sales import double_card_halves
from bingo.models import Game, GameSeries, GameState, Sale, Session


def sells_doubles(game: Game, entries: Iterable[GameSeries] | None = None) -> bool:
    """Whether ``game`` puts double cards on sale (it is their first game)."""
    if entries is not None:
        return any(e.series.double and not e.carried for e in entries)
    return GameSeries.objects.filter(game=game, carried=False, series__double=True).exists()


def _halves(
    first_game_id: int, *, second: bool, sale_amounts: Mapping[int, Iterable[Decimal]] | None
) -> Decimal:
    if sale_amounts is not None:
        amounts: Iterable[Decimal] = sale_amounts.get(first_game_id, ())
    else:
        amounts = Sale.objects.filter(game_id=first_game_id).values_list("amount", flat=True)
    return sum((double_card_halves(a)[1 if second else 0] for a in amounts), Decimal("0"))


def prize_base(
    game: Game,
    *,
    entries: Iterable[GameSeries] | None = None,
    sales_total: Decimal | None = None,
    sale_amounts: Mapping[int, Iterable[Decimal]] | None = None,
) -> Decimal:
    """The face value of the cards playing in ``game``, on which its prize money is worked out
    (R7): what its cards cost, or the half of it for each game of double cards (R15).

    ``entries`` (with their series), ``sales_total`` and ``sale_amounts`` (every sale's amount
    by game id, for the games of double cards: ``game`` or the first game it plays again) spare
    queries when the caller has them.
    """
    if game.doubles_of_id is not None:
        return _halves(game.doubles_of_id, second=True, sale_amounts=sale_amounts)
    if sells_doubles(game, entries):
        return _halves(game.pk, second=False, sale_amounts=sale_amounts)
    if sales_total is None:
        sales_total = Sale.objects.filter(game=game).aggregate(t=Sum("amount"))["t"] or Decimal("0")
    return sales_total


def cards_in_play(
    game: Game, *, entries: Iterable[GameSeries] | None = None, sales_cards: int | None = None
) -> int:
    """How many cards play in ``game``: those it sold, or in the second game of double cards,
    those its first game sold.

    ``entries`` (all of ``game``'s) and ``sales_cards`` spare queries when the caller has them.
    """
    if game.doubles_of_id is not None:
        if entries is not None:
            ranges = [(e.start_number, e.last_number) for e in entries if e.carried]
        else:
            ranges = list(
                GameSeries.objects.filter(game=game, carried=True).values_list("start_number", "last_number")
            )
        return sum(last - start + 1 for start, last in ranges if last is not None)
    if sales_cards is not None:
        return sales_cards
    return Sale.objects.filter(game=game).aggregate(n=Sum("quantity"))["n"] or 0


def second_game_over(game: Game) -> bool:
    """R45: whether the double cards that played in ``game`` have played both their games, so
    their prizes may be paid."""
    if game.doubles_of_id is not None:
        return game.state == GameState.FINISHED.value
    second = Game.objects.filter(doubles_of=game).values_list("state", flat=True).first()
    return second in (GameState.FINISHED.value, GameState.ANNULLED.value)


def doubles_before(game: Game) -> Game | None:
    """The session's previous game, when it sells or sold double cards that ``game`` is to play
    again (R15); None otherwise."""
    previous = Game.objects.filter(session=game.session_id, number=game.number - 1).first()
    return previous if previous is not None and doubles_pending(previous) else None


def doubles_pending(game: Game) -> bool:
    """Whether ``game`` puts double cards on sale, or sold some, that the session's next game
    is to play again (R15): not when it was annulled (they were refunded in full)."""
    if game.state == GameState.ANNULLED.value:
        return False
    entries = GameSeries.objects.filter(game=game, carried=False, series__double=True)
    if game.sales_closed_at is not None:
        entries = entries.filter(last_number__isnull=False)  # closed: it sold some
    return entries.exists()


def awaiting_second_game(session: Session) -> list[int]:
    """The numbers of the games of ``session`` whose double cards have not played their second
    game yet (R15): they sold some, were not annulled, and no game plays them again."""
    return list(
        Game.objects.filter(
            session=session,
            on_sale__carried=False,
            on_sale__series__double=True,
            on_sale__last_number__isnull=False,
            doubles_second__isnull=True,
        )
        .exclude(state=GameState.ANNULLED.value)
        .values_list("number", flat=True)
        .distinct()
        .order_by("number")
    )
