"""The rules page (R103, PT-806/66, PT-803/38): the open online rooms with their card prices,
prize plans, the time between balls and whether the jackpot takes its share."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from bingo.common.money import money_display
from bingo.common.patterns import pattern_shown
from bingo.engine import Variant
from bingo.engine.prizes import default_plan
from bingo.models import Game, OnlineRoom, Player, RoomMode
from bingo.online.selectors.rooms import online_series_pick, prize_names, room_game_list
from halls.models import Hall


@dataclass(frozen=True)
class RulesGame:
    """A coming game of a session room as the rules page lists it: its card price, plan and the
    pattern its bingo is (R73 b), R103), as it was when the game was created (None: the full
    card), whatever the room's pattern now."""

    game: Game
    price_display: str | None
    plan: tuple[tuple[str, str], ...]
    pattern: dict[str, Any] | None = None


@dataclass(frozen=True)
class RulesRoom:
    """One open online room on the rules page: how it runs, the price of its cards, its prize
    plan (percent of the sales of each game, R5-R7) and the time between balls (R88)."""

    online_room: OnlineRoom
    mode_name: str
    variant_name: str
    ball_interval: Decimal
    price_display: str | None
    plan: tuple[tuple[str, str], ...]
    games: tuple[RulesGame, ...]
    jackpot: bool


def _plan_rows(shares: dict[str, str] | None, variant: str) -> tuple[tuple[str, str], ...]:
    """A plan's prizes and their percent of sales, as stored on a game or room (the variant's
    default plan when the room sets none, as the games it opens then get)."""
    names = prize_names()
    if shares:
        return tuple(
            (names.get(kind, kind), f"{Decimal(str(share)).normalize():f}") for kind, share in shares.items()
        )
    return tuple(
        (names.get(kind.value, kind.value), f"{share.normalize():f}")
        for kind, share in default_plan(Variant(variant)).shares
    )


def rules_player(*, user: AbstractBaseUser | AnonymousUser) -> Player | None:
    """The player ``user`` is, with their hall; None for anyone else (not logged in, staff)."""
    if not user.is_authenticated:
        return None
    return Player.objects.select_related("hall").filter(user_id=user.pk).first()


def rules_hall_list(*, player: Player | None) -> QuerySet[Hall]:
    """The halls whose online rooms the rules page shows: the player's operator; for anyone else
    every hall with an open online room."""
    if player is not None:
        return Hall.objects.filter(pk=player.hall_id)
    return Hall.objects.filter(rooms__online__active=True).distinct().order_by("name")


def online_rules(*, halls: QuerySet[Hall]) -> list[RulesRoom]:
    """The open online rooms of ``halls`` with what a player needs before buying (R103,
    PT-806/66): a continuous room's card price (its next series') and plan, a session room's
    coming games with theirs; the interval between balls; whether the jackpot takes its share."""
    found = []
    for online_room in (
        OnlineRoom.objects.filter(room__hall__in=halls, active=True)
        .select_related("room__hall")
        .order_by("room__hall__name", "room__name")
    ):
        hall = online_room.room.hall
        price = None
        games: list[RulesGame] = []
        if online_room.mode == RoomMode.CONTINUOUS:
            series = online_series_pick(hall=hall, variant=online_room.variant)
            price = money_display(series.price, hall.currency) if series is not None else None
        else:
            for game in room_game_list(online_room=online_room):
                games.append(
                    RulesGame(
                        game=game,
                        price_display=money_display(game.price, hall.currency)
                        if game.price is not None
                        else None,
                        plan=_plan_rows(game.prize_plan, game.variant),
                        pattern=pattern_shown(game.win_rules),
                    )
                )
        found.append(
            RulesRoom(
                online_room=online_room,
                mode_name=str(RoomMode(online_room.mode).label),
                variant_name=online_room.get_variant_display(),
                ball_interval=online_room.ball_interval,
                price_display=price,
                plan=_plan_rows(online_room.prize_plan, online_room.variant),
                games=tuple(games),
                jackpot=hall.jackpot_active,
            )
        )
    return found
