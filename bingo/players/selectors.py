"""Reads of online players and their wallets (R85-R103)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from bingo.common.roles import Role
from bingo.models import Player, Sale, WalletEntry
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
