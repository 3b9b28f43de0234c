"""Reads of demo mode (R102, PT-803/43-44): the player's demo credits, the rooms a demo game
may mirror, and a demo game as the game screen shows it, with only the balls whose time has come.

Nothing here reads the real books for a demo game's outcome: the demo ledger
(``DemoCreditEntry``) and the demo games (``DemoGame``) stand apart from the wallet, the sales,
the draw's records, the actas and the jackpot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from bingo.common import bounds
from bingo.common.patterns import pattern_shown
from bingo.draw import detection
from bingo.engine.demo import CREDIT
from bingo.engine.prizes import PrizeKind as EnginePrizeKind
from bingo.engine.prizes import PrizePlan, prize_amounts
from bingo.engine.screen import (
    DemoPart,
    ScreenAward,
    ScreenCard,
    ScreenGame,
    ScreenPlayer,
    ScreenPrize,
    screen_state,
)
from bingo.models import DemoCreditEntry, DemoGame, OnlineRoom, Player, PrizeKind

#: Free demo credits given when the player has run out (R102: the prize is more free play).
DEMO_GRANT = 1000
#: At most one free grant in this time (the free extension is not an endless tap).
DEMO_GRANT_EVERY = timedelta(hours=1)
#: What one demo card costs, in demo credits.
DEMO_CARD_PRICE = 10
#: The most cards a player plays in one demo game.
DEMO_MAX_CARDS = bounds.DEMO_MAX_CARDS
#: The simulated other players' cards a demo game plays against, so its prizes and odds are a
#: real room's (the plan's shares of every card's stake, won by the first to complete).
DEMO_OTHER_CARDS = 24
#: Shown on every demo page and in every demo API answer.
DEMO_NOTICE_EN = "DEMO — no real money"


def demo_notice() -> str:
    """The demo notice in the request's language («DEMONSTRAÇÃO — sem dinheiro real»)."""
    return _("DEMO — no real money")


def credits_display(credits: int) -> str:
    """``1 000 demo credits``: whole credits, never a currency."""
    grouped = f"{credits:,}".replace(",", " ")
    return ngettext("%(n)s demo credit", "%(n)s demo credits", credits) % {"n": grouped}


def demo_balance(*, player: Player) -> int:
    """The player's demo credits: the last demo entry's balance (0 before the first grant)."""
    last = (
        DemoCreditEntry.objects.filter(player=player).order_by("-seq").values_list("balance_after", flat=True)
    ).first()
    return last or 0


@dataclass(frozen=True)
class GrantStatus:
    """Whether the player may take free demo credits now, and if not, why and from when."""

    allowed: bool
    reason: str
    next_at: datetime | None


def demo_grant_status(*, player: Player, now: datetime | None = None) -> GrantStatus:
    """Free credits (R102's free extension) are given when the balance cannot pay a card, at
    most once every ``DEMO_GRANT_EVERY``."""
    now = now or timezone.now()
    if demo_balance(player=player) >= DEMO_CARD_PRICE:
        return GrantStatus(False, _("You still have demo credits to play with."), None)
    last = (
        DemoCreditEntry.objects.filter(player=player, kind=DemoCreditEntry.Kind.GRANT)
        .order_by("-seq")
        .values_list("created_at", flat=True)
        .first()
    )
    if last is not None and now < last + DEMO_GRANT_EVERY:
        return GrantStatus(
            False, _("Free demo credits are given at most once an hour."), last + DEMO_GRANT_EVERY
        )
    return GrantStatus(True, "", None)


def demo_room_list(*, player: Player) -> QuerySet[OnlineRoom]:
    """The operator's open online rooms, which a demo game may mirror."""
    return (
        OnlineRoom.objects.filter(room__hall_id=player.hall_id, active=True)
        .select_related("room__hall")
        .order_by("room__name")
    )


def demo_room_get(*, player: Player, room_id: int) -> OnlineRoom:
    """One of ``demo_room_list``; OnlineRoom.DoesNotExist otherwise."""
    return demo_room_list(player=player).get(pk=room_id)


def demo_game_get(*, player: Player, game_id: int) -> DemoGame:
    """One of the player's own demo games; DemoGame.DoesNotExist otherwise (another's too)."""
    return DemoGame.objects.select_related("online_room__room").get(pk=game_id, player=player)


def demo_game_list(*, player: Player, limit: int = 10) -> list[DemoGame]:
    """The player's latest demo games, newest first."""
    return list(
        DemoGame.objects.filter(player=player).select_related("online_room__room").order_by("-pk")[:limit]
    )


def demo_ball_at(*, game: DemoGame, position: int) -> datetime:
    """When ball ``position`` (from 1) of ``game`` is shown: ``position`` intervals after the start."""
    return game.started_at + timedelta(seconds=float(game.ball_interval) * position)


def demo_visible(*, game: DemoGame, now: datetime | None = None) -> int:
    """How many of the game's balls have been shown by ``now`` (never one before its time)."""
    now = now or timezone.now()
    elapsed = (now - game.started_at).total_seconds()
    if elapsed <= 0:
        return 0
    return min(len(game.balls), math.floor(elapsed / float(game.ball_interval) + 1e-9))


def demo_game_over(*, game: DemoGame, now: datetime | None = None) -> bool:
    """Whether every ball of the game (to its bingo) has been shown."""
    return demo_visible(game=game, now=now) >= len(game.balls)


def _card_label(index: int, mine: int) -> str:
    if index < mine:
        return _("Your card %(n)d") % {"n": index + 1}
    return _("Simulated card %(n)d") % {"n": index - mine + 1}


def _demo_prizes(game: DemoGame) -> list[ScreenPrize]:
    """The plan's prizes with their shares and values. Each value comes from the plan and the
    stakes (as a real game's board shows it), never from the outcome: a prize that will not be
    won must not show it before the end."""
    names = {kind.value: str(kind.label) for kind in PrizeKind}
    plan = PrizePlan(tuple((EnginePrizeKind(k), Decimal(v)) for k, v in game.prize_plan.items()))
    values = prize_amounts(
        plan, Decimal(game.card_price * len(game.cards)), jackpot_active=False, quantum=CREDIT
    ).by_kind
    prizes = []
    for kind, share in game.prize_plan.items():
        value = int(values[EnginePrizeKind(kind)])
        prizes.append(
            ScreenPrize(
                kind=kind,
                name=names.get(kind, kind),
                share=share,
                amount=value,
                display=credits_display(value),
            )
        )
    return prizes


def demo_game_state(*, player: Player, game: DemoGame, now: datetime | None = None) -> dict[str, Any]:
    """The demo game screen's state, built by the engine's ``screen_state`` as the online game's
    (``player_game_state``) is, so the same page and script show it: the balls shown so far (never
    a later one), the player's cards marked with one number to go (R95), the prizes won so far and
    by whom, the demo balance. ``demo`` and ``notice`` say it is a demonstration with no real
    money (R102)."""
    now = now or timezone.now()
    shown = demo_visible(game=game, now=now)
    over = shown >= len(game.balls)
    mine = game.cards_mine
    awarded: dict[str, ScreenAward] = {}
    for result in game.results:
        if result["at"] <= shown:
            awarded.setdefault(
                result["kind"],
                ScreenAward(
                    winners=tuple(_card_label(w, mine) for w in result["winners"]),
                    each=credits_display(result["each"]),
                    mine=any(w < mine for w in result["winners"]),
                ),
            )
    cards = [
        ScreenCard(
            series="demo", series_id=f"demo{game.pk}", number=i + 1, label=_card_label(i, mine), grid=grid
        )
        for i, grid in enumerate(game.cards[:mine])
    ]
    balance = demo_balance(player=player)
    return screen_state(
        game=ScreenGame(
            id=game.pk,
            number=game.pk,
            room=game.online_room.room.name,
            variant=game.variant,
            state="finished" if over else "drawing",
            state_name=_("Finished") if over else _("Drawing"),
            price=game.card_price,
            price_display=credits_display(game.card_price),
            sales_close_at=None,
            ball_interval=f"{game.ball_interval}",
            pattern=pattern_shown(game.win_rules),
        ),
        rules=detection.rules_from(
            game.variant,
            list(game.prize_plan),
            (game.win_rules or {}).get("line_kinds"),
            (game.win_rules or {}).get("pattern"),
        ),
        balls=list(game.balls[:shown]),
        cards=cards,
        prizes=_demo_prizes(game),
        awarded=awarded,
        player=ScreenPlayer(player.marking, balance, credits_display(balance), mine, DEMO_MAX_CARDS),
        selling=False,
        part=DemoPart(
            notice=demo_notice(),
            started_at=game.started_at.isoformat(),
            next_ball_at=None if over else demo_ball_at(game=game, position=shown + 1).isoformat(),
            cards_simulated=len(game.cards) - mine,
            winnings=game.winnings if over else None,
            winnings_display=credits_display(game.winnings) if over else None,
            play_again=over,
        ),
    )
