"""What an online game left a player with (R99): the prizes credited and the stake refunded as the
wallet shows them, whether or not they were connected; the games that ended while they were
away, for the lobby's «While you were away»."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import QuerySet, Sum
from django.utils import timezone

from bingo.models import Game, GameState, Player, PlayerVisit, Sale, WalletEntry


@dataclass(frozen=True)
class GameOutcome:
    """What an online game left one player with: over or not, null (R98) and why, the prizes
    credited to their wallet (net of tax) and the stake refunded."""

    game: Game
    over: bool
    annulled: bool
    reason: str
    credited: Decimal
    refunded: Decimal
    staked: Decimal

    @property
    def won(self) -> bool:
        return self.credited > 0


def game_outcome(*, player: Player, game: Game) -> GameOutcome:
    """R99: the player's result in ``game`` as their wallet shows it, whether or not they were
    connected when it was decided (prizes are paid by the system, R97; a null game refunds)."""
    return game_outcomes(player=player, games=[game])[0]


def _amounts_by_game(rows: QuerySet[Any], game: str) -> dict[int, Decimal]:
    """The sum of ``rows``' amounts by the game id at ``game``, in one query."""
    return dict(rows.values(game).annotate(s=Sum("amount")).order_by().values_list(game, "s"))


def game_outcomes(*, player: Player, games: list[Game]) -> list[GameOutcome]:
    """``game_outcome`` for each of ``games``, in their order, in three queries for all of them
    (the lobby reads many)."""
    ids = [game.pk for game in games]
    if not ids:
        return []
    credits = WalletEntry.objects.filter(player=player)
    credited = _amounts_by_game(
        credits.filter(kind=WalletEntry.Kind.PRIZE, prize_payment__winner__prize__game_id__in=ids),
        "prize_payment__winner__prize__game_id",
    )
    refunded = _amounts_by_game(
        credits.filter(kind=WalletEntry.Kind.REFUND, refund__game_id__in=ids), "refund__game_id"
    )
    staked = _amounts_by_game(Sale.objects.filter(buyer=player, game_id__in=ids), "game_id")
    zero = Decimal("0.00")
    return [
        GameOutcome(
            game=game,
            over=game.state in (GameState.FINISHED.value, GameState.ANNULLED.value),
            annulled=game.state == GameState.ANNULLED.value,
            reason=game.state_reason if game.state == GameState.ANNULLED.value else "",
            credited=credited.get(game.pk) or zero,
            refunded=refunded.get(game.pk) or zero,
            staked=staked.get(game.pk) or zero,
        )
        for game in games
    ]


#: A player never seen in the lobby before is shown the games that ended in this last stretch.
AWAY_FIRST_VISIT = timedelta(hours=24)


def player_lobby_seen_at(*, player: Player) -> datetime | None:
    """When ``player`` last opened the lobby (None: never)."""
    return PlayerVisit.objects.filter(player=player).values_list("lobby_seen_at", flat=True).first()


def player_games_ended_since(
    *, player: Player, since: datetime | None, now: datetime | None = None
) -> list[GameOutcome]:
    """R99: the online games ``player`` had cards in that ended (finished or null) after
    ``since`` (their last visit to the lobby; the last ``AWAY_FIRST_VISIT`` if never), newest
    first, each with what it left them with: the lobby's «While you were away»."""
    now = now or timezone.now()
    since = since if since is not None else now - AWAY_FIRST_VISIT
    games = list(
        Game.objects.filter(
            pk__in=Sale.objects.filter(buyer=player).values("game_id"),
            state__in=(GameState.FINISHED.value, GameState.ANNULLED.value),
            finished_at__gt=since,
            session__room__online__isnull=False,
        )
        .select_related("session__room")
        .order_by("-finished_at", "-pk")
    )
    return game_outcomes(player=player, games=games)
