"""Reads of online players, their wallets (R85-R103) and their history of online games (R100)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db import connection
from django.db.models import Min, Q, QuerySet
from django.utils.translation import gettext as _

from bingo.common import rows
from bingo.common.clock import hall_day_start
from bingo.common.roles import Role, role_flags, user_roles, user_roles_remember, user_roles_remember_set
from bingo.engine.screen import card_label
from bingo.models import Game, GameState, Player, PrizeKind, Sale, WalletEntry
from halls.models import Hall
from halls.selectors import hall_list_for

#: The roles that handle players' money at the desk.
WALLET_STAFF = (Role.CASHIER, Role.MANAGER)


def wallet_balance(*, player: Player) -> Decimal:
    """The player's balance: the last entry's ``balance_after`` (0 before the first)."""
    last = (
        WalletEntry.objects.filter(player=player)
        .order_by("-seq")
        .values_list("balance_after", flat=True)
        .first()
    )
    return last if last is not None else Decimal("0.00")


def player_age(*, birth_date: date, today: date) -> int:
    """Whole years from ``birth_date`` to ``today`` (born on 29 February: a year older on 1 March)."""
    return today.year - birth_date.year - ((today.month, today.day) < (birth_date.month, birth_date.day))


def player_email_taken(*, email: str) -> bool:
    """Whether a player is registered with ``email``, compared without regard to case."""
    return Player.objects.filter(user__email__iexact=email.strip()).exists()


def player_register_hall_list() -> QuerySet[Hall]:
    """The operators a new player may register with, by name."""
    return Hall.objects.order_by("name")


def player_get(*, user: AbstractBaseUser | AnonymousUser) -> Player:
    """The player ``user`` is (Player.DoesNotExist for anyone else), hall and user joined."""
    if not user.is_authenticated:
        raise Player.DoesNotExist
    return Player.objects.select_related("user", "hall").get(pk=user.pk)


def player_and_roles_get(*, user: AbstractBaseUser) -> tuple[Player | None, frozenset[Role]]:
    """The roles ``user`` holds (kept on ``user`` for the request, as ``user_roles`` keeps them)
    and the player they are, hall joined (None for anyone else, or for a user given the player
    role by hand who never registered), in one query: the request's player and roles are read
    once, by whichever of the middleware and the view asks first, or with the user
    (``user_session_get``)."""
    if hasattr(user, _PLAYER_READ_ATTR):
        return getattr(user, _PLAYER_READ_ATTR), user_roles(user)
    if connection.vendor == "postgresql":
        return _player_and_roles_sql(user)
    row = User.objects.filter(pk=user.pk).select_related("player__hall").annotate(**role_flags()).first()
    if row is None:  # gone since the session was opened
        return None, frozenset()
    roles = user_roles_remember(user, row)
    player: Player | None = getattr(row, "player", None)
    if player is not None:
        player.user = user  # type: ignore[assignment]
    return (player if Role.PLAYER in roles else None), roles


# PostgreSQL: the same read written out (compiling the queryset cost more than running it). The
# user's roles come as one array; the player and their hall by outer joins (NULL: not a player).
_PLAYER_AND_ROLES = f"""
SELECT ARRAY(SELECT g.name FROM auth_group g JOIN auth_user_groups ug ON ug.group_id = g.id
              WHERE ug.user_id = %(user)s AND g.name = ANY(%(roles)s)),
       {rows.columns(Player, "p")}, {rows.columns(Hall, "h")}
  FROM (SELECT 1) AS one
  LEFT JOIN bingo_player p ON p.user_id = %(user)s
  LEFT JOIN halls_hall h ON h.id = p.hall_id
"""  # noqa: S608 - the models' column names, no input


#: Where ``user_session_get`` keeps, on the user it read, the player they are (None: not one).
_PLAYER_READ_ATTR = "_bingo_player_read"

# The logged-in user of a request, read from the session's user id (bingo.players.backends):
# the user, their roles and the player they are, hall joined, in one statement.
_USER_PLAYER_AND_ROLES = f"""
SELECT {rows.columns(User, "u")},
       ARRAY(SELECT g.name FROM auth_group g JOIN auth_user_groups ug ON ug.group_id = g.id
              WHERE ug.user_id = u.id AND g.name = ANY(%(roles)s)),
       {rows.columns(Player, "p")}, {rows.columns(Hall, "h")}
  FROM auth_user u
  LEFT JOIN bingo_player p ON p.user_id = u.id
  LEFT JOIN halls_hall h ON h.id = p.hall_id
 WHERE u.id = %(user)s
"""  # noqa: S608 - the models' column names, no input


def user_session_get(*, user_id: int) -> User | None:
    """The user ``user_id`` (None: gone), read on PostgreSQL with their roles (kept as
    ``user_roles`` keeps them) and the player they are, hall joined (kept for
    ``player_and_roles_get``), in one statement: what every logged-in request reads first."""
    with connection.cursor() as cursor:
        cursor.execute(_USER_PLAYER_AND_ROLES, {"user": user_id, "roles": list(Role.values)})
        row = cursor.fetchone()
    if row is None:
        return None
    user_width = rows.width(User)
    user = rows.instance(User, row[:user_width])
    assert user is not None
    _player_and_roles_keep(user, row[user_width:])
    return user


def player_read_with_user(*, user: AbstractBaseUser) -> bool:
    """Whether ``user`` was read with the player they are (``user_session_get``)."""
    return hasattr(user, _PLAYER_READ_ATTR)


def _player_and_roles_keep(
    user: AbstractBaseUser, row: Sequence[Any]
) -> tuple[Player | None, frozenset[Role]]:
    """Keep on ``user`` the roles and the player of ``row`` (the roles' array, the player's and
    the hall's columns) and return them."""
    roles = frozenset(Role(name) for name in row[0])
    user_roles_remember_set(user, roles)
    player = rows.instance(Player, row[1 : 1 + rows.width(Player)])
    if player is None or Role.PLAYER not in roles:
        player = None
    else:
        player.user = user  # type: ignore[assignment]
        player.hall = rows.instance(Hall, row[1 + rows.width(Player) :])  # type: ignore[assignment]
    setattr(user, _PLAYER_READ_ATTR, player)
    return player, roles


def _player_and_roles_sql(user: AbstractBaseUser) -> tuple[Player | None, frozenset[Role]]:
    with connection.cursor() as cursor:
        cursor.execute(_PLAYER_AND_ROLES, {"user": user.pk, "roles": list(Role.values)})
        row = cursor.fetchone()
    return _player_and_roles_keep(user, row)


def wallet_staff_hall_list(*, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Hall]:
    """The halls whose players' wallets ``user`` handles: where they are cashier or manager."""
    return hall_list_for(user, *WALLET_STAFF)


def player_list_for_staff(
    *, user: AbstractBaseUser | AnonymousUser, query: str, limit: int = 50
) -> list[Player]:
    """The players of the halls where ``user`` is cashier or manager whose username, e-mail or
    name contains ``query`` (every word of it), by username; ``limit`` at most."""
    players = Player.objects.filter(hall__in=wallet_staff_hall_list(user=user)).select_related("user", "hall")
    words = query.split()
    if not words:
        return []
    for word in words:
        players = players.filter(
            Q(user__username__icontains=word)
            | Q(user__email__icontains=word)
            | Q(user__first_name__icontains=word)
            | Q(user__last_name__icontains=word)
        )
    return list(players.order_by("user__username")[:limit])


def player_get_for_staff(*, user: AbstractBaseUser | AnonymousUser, player_id: int) -> Player:
    """One player of a hall where ``user`` is cashier or manager; Player.DoesNotExist otherwise."""
    return Player.objects.select_related("user", "hall").get(
        pk=player_id, hall__in=wallet_staff_hall_list(user=user)
    )


@dataclass(frozen=True)
class StatementLine:
    """One movement of the statement, with what it was for in words."""

    entry: WalletEntry
    what: str


def wallet_entry_list(*, player: Player) -> QuerySet[WalletEntry]:
    """``player``'s movements, newest first, with what each was for joined."""
    return (
        WalletEntry.objects.filter(player=player)
        .select_related(
            "recorded_by",
            "sale__game__session__room",
            "sale__series",
            "prize_payment__winner__prize__game__session__room",
            "prize_payment__winner__series",
            "refund__game__session__room",
            "refund__sale__series",
        )
        .order_by("-seq")
    )


def _game(game: object) -> str:
    return _("%(room)s, game %(number)s") % {
        "room": game.session.room.name,  # type: ignore[attr-defined]
        "number": game.number,  # type: ignore[attr-defined]
    }


def _cards(sales: list[Sale]) -> str:
    return "; ".join(
        f"{s.series.label} {s.first_number}"
        if s.first_number == s.last_number
        else f"{s.series.label} {s.first_number}-{s.last_number}"
        for s in sales
    )


def wallet_statement(*, entries: list[WalletEntry]) -> list[StatementLine]:
    """The lines of a page of ``entries`` (from ``wallet_entry_list``): a purchase names its game
    and cards (every part of the purchase: one query for the page), a prize its game, card and
    kind, a refund its game, a deposit or withdrawal who recorded it."""
    keys = [e.sale.request_key for e in entries if e.sale is not None]
    parts: dict[str, list[Sale]] = {}
    if keys:
        for sale in Sale.objects.filter(request_key__in=keys).select_related("series").order_by("part"):
            parts.setdefault(sale.request_key, []).append(sale)
    lines = []
    for entry in entries:
        if entry.sale is not None:
            sales = parts.get(entry.sale.request_key) or [entry.sale]
            what = _("%(game)s: %(count)d cards (%(cards)s)") % {
                "game": _game(entry.sale.game),
                "count": sum(s.quantity for s in sales),
                "cards": _cards(sales),
            }
        elif entry.prize_payment is not None:
            winner = entry.prize_payment.winner
            what = _("%(game)s: %(prize)s, card %(card)s") % {
                "game": _game(winner.prize.game),
                "prize": winner.prize.get_kind_display(),
                "card": f"{winner.series.label} {winner.card_number}",
            }
        elif entry.refund is not None:
            what = _("%(game)s annulled: cards %(cards)s refunded") % {
                "game": _game(entry.refund.game),
                "cards": _cards([entry.refund.sale]),
            }
            if entry.refund.reason:  # why (R61 i): a system fault reads «Avaria do sistema (R98): …»
                what = f"{what} — {entry.refund.reason}"
        elif entry.recorded_by is not None:
            who = entry.recorded_by.get_full_name() or entry.recorded_by.get_username()
            what = _("At the desk, by %(who)s") % {"who": who}
        else:
            what = ""
        lines.append(StatementLine(entry=entry, what=what))
    return lines


# --- the player's history (R100) ------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryPrize:
    """A prize the player won in a game: its kind, its name and the net amount credited."""

    kind: str
    name: str
    card: str
    gross: Decimal
    net: Decimal


@dataclass(frozen=True)
class HistoryGame:
    """One online game the player bought cards in, with what it cost and what it gave back."""

    game: Game
    at: datetime  # the player's first purchase in the game
    cards: int
    numbers: str
    staked: Decimal
    prizes: list[HistoryPrize]
    refunded: Decimal

    @property
    def won(self) -> Decimal:
        return sum((p.net for p in self.prizes), Decimal("0.00"))

    @property
    def net(self) -> Decimal:
        """What the game left the wallet with: prizes + refund - stake (0 for a refunded game)."""
        return self.won + self.refunded - self.staked

    @property
    def outcome(self) -> str:
        """finished, annulled (the stake refunded, R98) or playing (not over yet)."""
        if self.game.state == GameState.ANNULLED.value:
            return "annulled"
        if self.game.state == GameState.FINISHED.value:
            return "finished"
        return "playing"

    @property
    def reason(self) -> str:
        """Why an annulled game was null and its stake refunded (R61 i), as recorded: a system
        fault reads «Avaria do sistema (R98): …»; empty for a game not annulled."""
        return self.game.state_reason if self.outcome == "annulled" else ""

    @property
    def result(self) -> str:
        """won (a prize), refunded (annulled), lost (over with no prize) or pending."""
        if self.prizes:
            return "won"
        return {"annulled": "refunded", "finished": "lost"}.get(self.outcome, "pending")


@dataclass(frozen=True)
class History:
    """The player's games (newest first) and their totals."""

    player: Player
    currency: str
    time_zone: str
    games: list[HistoryGame]
    staked: Decimal
    won: Decimal
    refunded: Decimal
    net: Decimal


def _history_sales(
    *, player: Player, hall: Hall, date_from: date | None, date_to: date | None
) -> dict[int, list[Sale]]:
    """The player's sales by game, of the games whose first purchase falls between the hall's
    dates ``date_from`` and ``date_to`` (both included), each game's in card order."""
    firsts = Sale.objects.filter(buyer=player).values("game_id").annotate(first=Min("created_at"))
    if date_from is not None:
        firsts = firsts.filter(first__gte=hall_day_start(hall=hall, day=date_from))
    if date_to is not None:
        firsts = firsts.filter(first__lt=hall_day_start(hall=hall, day=date_to + timedelta(days=1)))
    sales = (
        Sale.objects.filter(buyer=player, game_id__in=firsts.values("game_id"))
        .select_related("game__session__room", "series")
        .order_by("game_id", "series__order_number", "first_number", "pk")
    )
    by_game: dict[int, list[Sale]] = {}
    for sale in sales:
        by_game.setdefault(sale.game_id, []).append(sale)
    return by_game


def _history_credits(
    *, player: Player, game_ids: list[int]
) -> tuple[dict[int, list[HistoryPrize]], dict[int, Decimal]]:
    """The prizes credited to the player's wallet (net of tax) and the refunds, by game."""
    prizes: dict[int, list[HistoryPrize]] = {}
    refunds: dict[int, Decimal] = {}
    if not game_ids:
        return prizes, refunds
    credits = (
        WalletEntry.objects.filter(player=player, kind__in=(WalletEntry.Kind.PRIZE, WalletEntry.Kind.REFUND))
        .filter(Q(prize_payment__winner__prize__game_id__in=game_ids) | Q(refund__game_id__in=game_ids))
        .select_related("prize_payment__winner__prize", "prize_payment__winner__series", "refund")
        .order_by("seq")
    )
    names = {kind.value: str(kind.label) for kind in PrizeKind}
    for entry in credits:
        if entry.prize_payment is not None:
            payment = entry.prize_payment
            winner = payment.winner
            prizes.setdefault(winner.prize.game_id, []).append(
                HistoryPrize(
                    kind=winner.prize.kind,
                    name=names.get(winner.prize.kind, winner.prize.kind),
                    card=card_label(winner.series.label, winner.card_number),
                    gross=payment.gross,
                    net=entry.amount,
                )
            )
        elif entry.refund is not None:
            refunds[entry.refund.game_id] = refunds.get(entry.refund.game_id, Decimal("0.00")) + entry.amount
    return prizes, refunds


def player_history(*, player: Player, date_from: date | None = None, date_to: date | None = None) -> History:
    """R100 (PT-806/65, PT-803/37): every online game ``player`` bought cards in, newest first,
    whose first purchase falls between ``date_from`` and ``date_to`` (both included, the hall's
    dates): the cards (count and numbers), the stake, the prizes credited (net of tax), the
    refund of an annulled game, the net; the totals. The newest game's full state is the game
    screen's (``bingo.online.selectors.player_game_state``), which the history page adds.

    A fixed number of queries whatever the number of games: the hall, the sales (games joined),
    the prize and refund credits of the wallet."""
    hall = Hall.objects.get(pk=player.hall_id)
    by_game = _history_sales(player=player, hall=hall, date_from=date_from, date_to=date_to)
    prizes, refunds = _history_credits(player=player, game_ids=list(by_game))
    games = [
        HistoryGame(
            game=game_sales[0].game,
            at=min(s.created_at for s in game_sales),
            cards=sum(s.quantity for s in game_sales),
            numbers=_cards(game_sales),
            staked=sum((s.amount for s in game_sales), Decimal("0.00")),
            prizes=prizes.get(game_id, []),
            refunded=refunds.get(game_id, Decimal("0.00")),
        )
        for game_id, game_sales in by_game.items()
    ]
    games.sort(key=lambda g: (g.at, g.game.pk), reverse=True)
    staked = sum((g.staked for g in games), Decimal("0.00"))
    won = sum((g.won for g in games), Decimal("0.00"))
    refunded = sum((g.refunded for g in games), Decimal("0.00"))
    return History(
        player=player,
        currency=hall.currency,
        time_zone=hall.time_zone,
        games=games,
        staked=staked,
        won=won,
        refunded=refunded,
        net=won + refunded - staked,
    )
