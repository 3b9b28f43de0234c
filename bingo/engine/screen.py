"""The player's game screen: one state for a real online game and for a demo game (R94-R97, R102).

``screen_state`` is the one place that says what the game screen's JSON holds (the ``player.state``
that ``templates/online/_game_board.html`` and ``static/js/online_game.js`` read): the game, the
balls (the last one large), the player's cards marked, each with the prizes one number away (R95,
found by ``card_check``), the rules' ``targets`` so the page finds "one to go" itself as each ball
arrives, the prize in play and each card's count of numbers to go for it (the cards best first),
each ball's call in Portuguese words (``calls``, spoken by the page) and the 75-ball card's
B-I-N-G-O ``headers``, the prizes with their winners and whether the player won one (R97), the
balance, the marking chosen (R96) and what the player may do now (R94).

Two selectors gather its inputs from their tables and put the amounts in their own units (money
for a real game, whole demo credits for a demo): ``bingo.online.selectors.player_game_state`` and
``bingo.demo.selectors.demo_game_state``. A key the screen needs is added here, for both. What
only one of them shows is its part: ``DemoPart`` (no real money, R102; the winnings; when the next
ball shows) or ``RealPart`` (what the game left the player with, R99; the play session, R101).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bingo.engine.calls import ball_calls
from bingo.engine.detection import CardCheck, PrizeRules, card_check
from bingo.engine.gamestate import FINAL
from bingo.engine.prizes import PrizeKind
from bingo.engine.variants import Variant, geometry

#: The progressive jackpot (R9): won beside the board's prizes, by the bingo's card; its winners
#: count in ``won`` whether or not the board lists it. A demo game never plays it.
JACKPOT = "jackpot"


def card_label(series_label: str, number: int) -> str:
    """What a real card is called on the player's screens: «A-1 n.º 7»."""
    return f"{series_label} n.º {number}"


@dataclass(frozen=True)
class ScreenGame:
    """The game as the screen heads it, its amounts already in the screen's units."""

    id: int
    number: int
    room: str
    variant: str
    state: str
    state_name: str
    #: A real card's price as "10.00", a demo card's in whole credits; None when not set.
    price: str | int | None
    price_display: str | None
    #: ISO 8601; None when the game announces no close.
    sales_close_at: str | None
    ball_interval: str | None
    #: The 75-ball pattern the bingo is (R73 b)), as the screens draw it: ``{"key", "name",
    #: "rows"}`` (bingo.common.patterns.pattern_shown); None for the full card.
    pattern: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ScreenCard:
    """One of the player's cards: the series it belongs to, its number and its rows."""

    series: str
    series_id: int | str
    number: int
    label: str
    #: The card's rows, None for a blank.
    grid: list[list[int | None]]


@dataclass(frozen=True)
class ScreenPrize:
    """A prize of the game's board, in the board's order, its value in the screen's units."""

    kind: str
    name: str
    amount: str | int
    display: str
    #: The plan's share, which the demo shows beside the prize; None: not shown.
    share: str | None = None


@dataclass(frozen=True)
class ScreenAward:
    """A prize awarded so far: its winning cards' labels, each one's part as shown, and whether
    one of them is the player's."""

    winners: tuple[str, ...]
    each: str
    mine: bool


@dataclass(frozen=True)
class ScreenPlayer:
    """The player beside the game: the marking (R96), the balance, the cards bought and the most
    they may buy (R35; None: no limit)."""

    marking: str
    balance: str | int
    balance_display: str
    cards_bought: int
    card_limit: int | None


@dataclass(frozen=True)
class ScreenOutcome:
    """R99: what a real game left the player with once it is over, for one who was away."""

    over: bool
    annulled: bool
    reason: str
    credited: str
    credited_display: str
    refunded: str
    refunded_display: str


@dataclass(frozen=True)
class RealPart:
    """What only a real game's screen shows: its outcome (R99) and the play session (reminders,
    time limit R101, inactivity PT-806/70-71), whose reached limit stops buying; ``excluded``:
    an exclusion (a self-exclusion or a pause, R101) bars the player from buying."""

    outcome: ScreenOutcome
    playtime: dict[str, Any]
    excluded: bool = False


@dataclass(frozen=True)
class DemoPart:
    """What only a demo game's screen shows (R102): that no real money is played, when it started
    and shows its next ball, the simulated cards it plays against, the winnings once over."""

    notice: str
    started_at: str
    next_ball_at: str | None
    cards_simulated: int
    winnings: int | None
    winnings_display: str | None
    play_again: bool


def _heading(game: ScreenGame, demo: DemoPart | None) -> dict[str, Any]:
    """The game's heading; a demo's adds when it started, its next ball and the simulated cards."""
    heading: dict[str, Any] = {
        "id": game.id,
        "number": game.number,
        "room": game.room,
        "variant": game.variant,
        "size": int(Variant(game.variant).value),
        "state": game.state,
        "state_name": game.state_name,
        "price": game.price,
        "price_display": game.price_display,
        "sales_close_at": game.sales_close_at,
        "ball_interval": game.ball_interval,
        "pattern": dict(game.pattern) if game.pattern is not None else None,
        # R70: the 75-ball card's columns are headed B I N G O; the others have no headings.
        "headers": list(headers) if (headers := geometry(Variant(game.variant)).headers) else None,
    }
    if demo:
        heading |= {
            "started_at": demo.started_at,
            "next_ball_at": demo.next_ball_at,
            "cards_simulated": demo.cards_simulated,
        }
    return heading


def prize_in_play(rules: PrizeRules, awarded: Mapping[str, ScreenAward], state: str) -> PrizeKind | None:
    """The prize the game plays for now: the first of its prizes in the board's order (line,
    column, four corners, bingo) not yet awarded; None once the bingo is awarded (R44: it ends
    the game) or the game is over."""
    if state in FINAL or PrizeKind.BINGO.value in awarded:
        return None
    return next((p for p in rules.prizes if p.value not in awarded), None)


def _to_go(checked: CardCheck, in_play: PrizeKind | None) -> int | None:
    """The numbers ``checked`` still needs for the prize in play (0: it holds it); None when no
    prize is in play."""
    return checked.prize(in_play).missing if in_play is not None else None


def _card_rows(
    rules: PrizeRules,
    cards: Sequence[ScreenCard],
    balls: Sequence[int],
    awarded: Mapping[str, ScreenAward],
    in_play: PrizeKind | None,
) -> list[dict[str, Any]]:
    """Each card marked with the balls, its prizes one number away not yet awarded (R95) and held,
    and the numbers it lacks for the prize in play (``to_go``); best first: fewest to go, then in
    the order bought (``order``)."""
    rows = []
    for order, card in enumerate(cards):
        checked = card_check(rules, card.grid, balls)
        rows.append(
            {
                "series": card.series,
                "series_id": card.series_id,
                "number": card.number,
                "label": card.label,
                "order": order,
                "grid": [list(row) for row in checked.grid],
                "marks": [list(row) for row in checked.marks],
                "one_to_go": [
                    p.prize.value for p in checked.prizes if p.missing == 1 and p.prize.value not in awarded
                ],
                "held": [p.value for p in checked.held],
                "to_go": _to_go(checked, in_play),
            }
        )
    # The page sorts again with the same key as balls arrive (static/js/online_game.js).
    return sorted(rows, key=lambda row: (row["to_go"] is None, row["to_go"] or 0, row["order"]))


def _prize_rows(prizes: Sequence[ScreenPrize], awarded: Mapping[str, ScreenAward]) -> list[dict[str, Any]]:
    """The board's prizes, each with its winners once awarded and whether one is the player's."""
    rows = []
    for prize in prizes:
        award = awarded.get(prize.kind)
        row: dict[str, Any] = {"kind": prize.kind, "name": prize.name}
        if prize.share is not None:
            row["share"] = prize.share
        row |= {
            "amount": prize.amount,
            "display": prize.display,
            "won": award is not None,
            "winners": list(award.winners) if award else [],
            "each": award.each if award else None,
            "mine": bool(award and award.mine),
        }
        rows.append(row)
    return rows


def _in_play_row(in_play: PrizeKind | None, prizes: Sequence[ScreenPrize]) -> dict[str, str] | None:
    """The prize in play as the screen names it (the board's name), or None."""
    if in_play is None:
        return None
    names = {p.kind: p.name for p in prizes}
    return {"kind": in_play.value, "name": names.get(in_play.value, in_play.value)}


def _won(prizes: Sequence[ScreenPrize], awarded: Mapping[str, ScreenAward]) -> list[str]:
    """The prizes the player won (R97): the board's in its order, then the jackpot (R9)."""
    won = [p.kind for p in prizes if (award := awarded.get(p.kind)) is not None and award.mine]
    jackpot = awarded.get(JACKPOT)
    if jackpot is not None and jackpot.mine:
        won.append(JACKPOT)
    return won


def screen_state(
    *,
    game: ScreenGame,
    rules: PrizeRules,
    balls: Sequence[int],
    cards: Sequence[ScreenCard],
    prizes: Sequence[ScreenPrize],
    awarded: Mapping[str, ScreenAward],
    player: ScreenPlayer,
    selling: bool,
    part: RealPart | DemoPart,
) -> dict[str, Any]:
    """The game screen's state (``player.state``) as JSON-ready values: ``balls`` drawn (shown) so
    far in order, ``awarded`` the prizes awarded so far by kind, ``selling`` whether the game sells
    cards to this player now (R94, R93)."""
    demo = part if isinstance(part, DemoPart) else None
    real = part if isinstance(part, RealPart) else None
    state: dict[str, Any] = {"type": "player.state"}
    if demo:
        state |= {"demo": True, "notice": demo.notice}
    in_play = prize_in_play(rules, awarded, game.state)
    card_rows = _card_rows(rules, cards, balls, awarded, in_play)
    state |= {
        "game": _heading(game, demo),
        "balls": list(balls),
        "count": len(balls),
        "last": balls[-1] if balls else None,
        "cards": card_rows,
        "targets": [{"prize": t.prize.value, "cells": [list(c) for c in t.cells]} for t in rules.targets],
        "in_play": _in_play_row(in_play, prizes),
        "calls": list(ball_calls(Variant(game.variant))),
        "prizes": _prize_rows(prizes, awarded),
        "awarded": sorted(awarded),
        "won": _won(prizes, awarded),
    }
    if demo:
        state |= {"winnings": demo.winnings, "winnings_display": demo.winnings_display}
    state |= {
        "marking": player.marking,
        "balance": player.balance,
        "balance_display": player.balance_display,
        "cards_bought": player.cards_bought,
        "card_limit": player.card_limit,
    }
    if real:
        state |= {"outcome": asdict(real.outcome), "playtime": real.playtime}
    # R94: what the player may do now; buying stops at the card limit (R35), the play
    # session's limit and an exclusion (R101): no form to buy is offered then.
    limit = player.card_limit
    blocked = bool(real and (real.playtime.get("limit_reached") or real.excluded))
    choices: dict[str, Any] = {
        "buy": selling and (limit is None or player.cards_bought < limit) and not blocked
    }
    if demo:
        choices["play_again"] = demo.play_again
    state["choices"] = choices | {
        "marking": True,
        "mark_by_hand": player.marking == "manual" and bool(card_rows),
        "lobby": True,
    }
    return state
