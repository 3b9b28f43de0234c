"""Reads of responsible gaming (R101): a player's limits in force and pending, how much of each
period is used, their exclusion in force, and the operator's list of exclusions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common.clock import hall_clock_text, hall_zone
from bingo.common.roles import Role
from bingo.engine import limits
from bingo.models import LimitKind, LimitPeriod, Player, PlayerExclusion, PlayerLimit, WalletEntry
from halls.models import Hall
from halls.selectors import hall_list_for

ZERO = Decimal("0.00")


def _sum(entries: QuerySet[WalletEntry]) -> Decimal:
    return entries.aggregate(total=Sum("amount"))["total"] or ZERO


def player_deposits(*, player: Player, start: datetime, end: datetime) -> Decimal:
    """What ``player`` deposited at the desk in [start, end)."""
    return _sum(
        WalletEntry.objects.filter(
            player=player, kind=WalletEntry.Kind.DEPOSIT, created_at__gte=start, created_at__lt=end
        )
    )


def player_loss(*, player: Player, start: datetime, end: datetime) -> Decimal:
    """R101: what ``player`` lost in [start, end): their stakes (purchases) less the prizes and
    refunds paid into the wallet then (negative when they won more than they staked)."""
    entries = WalletEntry.objects.filter(
        player=player,
        kind__in=(WalletEntry.Kind.PURCHASE, WalletEntry.Kind.PRIZE, WalletEntry.Kind.REFUND),
        created_at__gte=start,
        created_at__lt=end,
    )
    # Purchases are negative in the ledger, prizes and refunds positive: the loss is minus the sum.
    return -_sum(entries)


def limit_used(*, player: Player, kind: str, start: datetime, end: datetime) -> Decimal:
    """How much of a ``kind`` limit the player used in [start, end)."""
    if kind == LimitKind.DEPOSIT:
        return player_deposits(player=player, start=start, end=end)
    return player_loss(player=player, start=start, end=end)


def limit_state_get(*, player: Player, kind: str, period: str, now: datetime) -> limits.LimitState:
    """The limit in force at ``now`` and its pending change (``bingo.engine.limits.limit_state``)."""
    return limit_states_get(player=player, kind=kind, now=now)[period]


def limit_states_get(*, player: Player, kind: str, now: datetime) -> dict[str, limits.LimitState]:
    """``limit_state_get`` for every period of one ``kind`` at once, in one query (the purchase's
    and the deposit's check read all three)."""
    requests: dict[str, list[limits.LimitRequest]] = {period: [] for period in LimitPeriod.values}
    for row in PlayerLimit.objects.filter(player=player, kind=kind).order_by("requested_at", "pk"):
        requests[row.period].append(limits.LimitRequest(row.amount, row.requested_at, row.effective_at))
    return {period: limits.limit_state(found, now) for period, found in requests.items()}


@dataclass(frozen=True)
class LimitLine:
    """One of the player's six limits at a moment, with its period's use."""

    kind: str
    period: str
    in_force: Decimal | None
    pending: limits.LimitRequest | None
    used: Decimal
    left: Decimal | None
    period_start: datetime
    period_end: datetime

    @property
    def kind_label(self) -> str:
        return str(LimitKind(self.kind).label)

    @property
    def period_label(self) -> str:
        return str(LimitPeriod(self.period).label)

    @property
    def used_shown(self) -> Decimal:
        """The use shown to the player: a period with more won than lost has used nothing."""
        return max(self.used, ZERO)


def limit_overview(*, player: Player, now: datetime | None = None) -> list[LimitLine]:
    """The player's deposit and loss limits, daily, weekly and monthly: the one in force, the
    change pending and when it takes effect, and how much of the current period is used."""
    now = now or timezone.now()
    zone = hall_zone(player.hall)
    lines = []
    for kind in LimitKind.values:
        for period, state in limit_states_get(player=player, kind=kind, now=now).items():
            start, end = limits.period_bounds(period, now, zone)
            used = limit_used(player=player, kind=kind, start=start, end=end)
            lines.append(
                LimitLine(
                    kind=kind,
                    period=period,
                    in_force=state.in_force,
                    pending=state.pending,
                    used=used,
                    left=limits.limit_room(limit=state.in_force, used=used),
                    period_start=start,
                    period_end=end,
                )
            )
    return lines


def _in_force(now: datetime) -> Q:
    # An exclusion starts when it is recorded (never later), so any row not ended and not lifted
    # counts, even one recorded while this request waited for the player's lock.
    return (Q(ends_at__isnull=True) | Q(ends_at__gt=now)) & Q(lift__isnull=True)


def exclusion_active(*, player: Player, now: datetime | None = None) -> PlayerExclusion | None:
    """The exclusion barring ``player`` at ``now`` (R101), the one ending last (for good first);
    None when they are free to play."""
    now = now or timezone.now()
    found = list(PlayerExclusion.objects.filter(_in_force(now), player=player))
    if not found:
        return None
    forever = [e for e in found if e.ends_at is None]
    if forever:
        return forever[0]
    return max(found, key=lambda e: e.ends_at or now)


def exclusion_history(*, player: Player) -> QuerySet[PlayerExclusion]:
    """Every exclusion of ``player``, newest first, with its lifting."""
    return PlayerExclusion.objects.filter(player=player).select_related(
        "lift", "created_by", "lift__lifted_by"
    )


def exclusion_hall_list(*, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Hall]:
    """The halls whose exclusion list ``user`` keeps: where they are manager."""
    return hall_list_for(user, Role.MANAGER)


def exclusion_list_for_staff(
    *, user: AbstractBaseUser | AnonymousUser, now: datetime | None = None, active_only: bool = False
) -> QuerySet[PlayerExclusion]:
    """Every exclusion (self and operator) of the players of the halls ``user`` manages, newest
    first; only those in force at ``now`` with ``active_only``."""
    rows = PlayerExclusion.objects.filter(player__hall__in=exclusion_hall_list(user=user)).select_related(
        "player__user", "player__hall", "created_by", "lift", "lift__lifted_by"
    )
    if active_only:
        rows = rows.filter(_in_force(now or timezone.now()))
    return rows


def exclusion_get_for_staff(*, user: AbstractBaseUser | AnonymousUser, exclusion_id: int) -> PlayerExclusion:
    """One exclusion of a player of a hall ``user`` manages; DoesNotExist otherwise."""
    return exclusion_list_for_staff(user=user).get(pk=exclusion_id)


def player_get_for_manager(*, user: AbstractBaseUser | AnonymousUser, player_id: int) -> Player:
    """A player of a hall ``user`` manages; Player.DoesNotExist otherwise."""
    return Player.objects.select_related("user", "hall").get(
        pk=player_id, hall__in=exclusion_hall_list(user=user)
    )


def exclusion_is_active(*, exclusion: PlayerExclusion, now: datetime | None = None) -> bool:
    """Whether ``exclusion`` bars its player at ``now``."""
    now = now or timezone.now()
    if hasattr(exclusion, "lift"):
        return False
    return exclusion.ends_at is None or exclusion.ends_at > now


def player_find_for_manager(*, user: AbstractBaseUser | AnonymousUser, username: str) -> Player:
    """The player called ``username`` (any case) of a hall ``user`` manages; DoesNotExist otherwise."""
    return Player.objects.select_related("user", "hall").get(
        user__username__iexact=username.strip(), hall__in=exclusion_hall_list(user=user)
    )


def exclusion_text(*, exclusion: PlayerExclusion, player: Player, deposit: bool = False) -> str:
    """What ``player`` (or, for a ``deposit``, the desk) is told while ``exclusion`` (or a break)
    bars them (R101)."""
    until = hall_clock_text(exclusion.ends_at, player.hall) if exclusion.ends_at is not None else None
    if exclusion.kind == PlayerExclusion.Kind.PAUSE:
        if deposit:
            return _(
                "This player is taking a break from play until %(until)s (R101): no deposit is "
                "accepted. The balance may still be withdrawn. Nothing was deposited."
            ) % {"until": until}
        return _("You are taking a break from play until %(until)s (R101): you cannot buy cards.") % {
            "until": until
        }
    if deposit:
        if until is None:
            return _(
                "This player is excluded from play for good (R101): no deposit is accepted. "
                "The balance may still be withdrawn. Nothing was deposited."
            )
        return _(
            "This player is excluded from play until %(until)s (R101): no deposit is accepted. "
            "The balance may still be withdrawn. Nothing was deposited."
        ) % {"until": until}
    if exclusion.source == PlayerExclusion.Source.SELF:
        if until is None:
            return _("You excluded yourself from play for good (R101): you cannot buy cards.")
        return _("You excluded yourself from play until %(until)s (R101): you cannot buy cards.") % {
            "until": until
        }
    if until is None:
        return _("The operator has excluded you from play (R101): you cannot buy cards.")
    return _("The operator has excluded you from play until %(until)s (R101): you cannot buy cards.") % {
        "until": until
    }


def player_notice(*, player: Player, now: datetime | None = None) -> str:
    """Why ``player`` cannot buy now, for the lobby and game pages; empty when they can."""
    exclusion = exclusion_active(player=player, now=now)
    return exclusion_text(exclusion=exclusion, player=player) if exclusion is not None else ""


def desk_notice(*, player: Player, now: datetime | None = None) -> str:
    """What the desk is told about ``player`` while an exclusion bars their deposits; empty otherwise."""
    exclusion = exclusion_active(player=player, now=now)
    if exclusion is None:
        return ""
    if exclusion.kind == PlayerExclusion.Kind.PAUSE and exclusion.ends_at is not None:
        return _(
            "On a break from play until %(until)s (R101): no deposit is taken; the balance may be withdrawn."
        ) % {"until": hall_clock_text(exclusion.ends_at, player.hall)}
    if exclusion.ends_at is None:
        return _("Excluded from play for good (R101): no deposit is taken; the balance may be withdrawn.")
    return _(
        "Excluded from play until %(until)s (R101): no deposit is taken; the balance may be withdrawn."
    ) % {"until": hall_clock_text(exclusion.ends_at, player.hall)}
