"""Writes of responsible gaming (R101): a player's deposit and loss limits, self-exclusion, the
operator's exclusions, and the checks the purchase and the deposit run.

R101 leaves each player to decide when they start and stop and how much they play, save for the
restrictions they or the operator set against the risk of gambling disorder. Those restrictions
are checked here, in the service, inside the purchase's (or deposit's) transaction, after the
player's row is locked: two purchases at once queue on that lock, and the second sees the first's
stake before it is judged. The arithmetic (periods, tightening at once, loosening after 24 h)
is ``bingo.engine.limits``.

* ``player_limit_set``: ask for a limit (deposit or loss, daily/weekly/monthly, or none).
* ``player_self_exclude``: the player bars themself for a period or for good; never undone early.
* ``player_pause_take``: «fazer uma pausa», the player's break of 24 hours, 7 or 30 days, which
  bars the same as a self-exclusion and is never undone early either.
* ``player_exclude`` / ``player_exclusion_lift``: a manager of the hall bars a player, or lifts
  such an exclusion, with a reason.
* ``purchase_check`` / ``deposit_check``: refuse a purchase or a deposit that an exclusion or a
  limit forbids, saying which and how much is left.

An exclusion or a break, whoever sets it, ends the player's open standing orders in the online
rooms in its own transaction (``bingo.players.signals.player_barred``, heard by bingo/online).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from bingo.common import bounds
from bingo.common.clock import hall_zone
from bingo.common.money import money_display, quantum_for
from bingo.common.roles import Role
from bingo.engine import limits
from bingo.models import (
    LimitKind,
    LimitPeriod,
    Player,
    PlayerExclusion,
    PlayerExclusionLift,
    PlayerLimit,
    WalletEntry,
)
from bingo.players.signals import player_barred
from bingo.protection import selectors
from halls.selectors import hall_list_for

#: The largest limit a player may set (bingo.common.bounds).
MAX_LIMIT = bounds.AMOUNT_MAX

#: The lengths of an exclusion a player or a manager chooses from: months, None for good.
EXCLUSION_MONTHS: dict[str, int | None] = {"1m": 1, "3m": 3, "6m": 6, "1y": 12, "5y": 60, "forever": None}
EXCLUSION_CHOICES = [
    ("1m", gettext_lazy("1 month")),
    ("3m", gettext_lazy("3 months")),
    ("6m", gettext_lazy("6 months")),
    ("1y", gettext_lazy("1 year")),
    ("5y", gettext_lazy("5 years")),
    ("forever", gettext_lazy("For good")),
]


def _lock(player: Player) -> None:
    """Lock ``player``'s row until the transaction ends (the wallet's own lock, ``wallet_post``)."""
    Player.objects.select_for_update(no_key=True).filter(pk=player.pk).values_list("pk").get()


# --- limits ------------------------------------------------------------------------------------


def _amount(value: Decimal | str | None, currency: str) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        amount = Decimal(str(value))
        if not amount.is_finite():
            raise InvalidOperation
    except (InvalidOperation, ValueError):
        raise ValidationError({"amount": [_("Give the limit as an amount of money.")]}) from None
    if amount <= 0:
        raise ValidationError({"amount": [_("A limit is more than zero; leave it empty for no limit.")]})
    if amount > MAX_LIMIT:
        raise ValidationError({"amount": [_("A limit is at most %(max)s.") % {"max": MAX_LIMIT}]})
    if amount % quantum_for(currency):
        raise ValidationError(
            {
                "amount": [
                    _("Amounts in %(currency)s are in steps of %(step)s.")
                    % {"currency": currency, "step": quantum_for(currency)}
                ]
            }
        )
    return amount.quantize(Decimal("0.01"))


def player_limit_set(
    *, player: Player, kind: str, period: str, amount: Decimal | str | None, now: datetime | None = None
) -> PlayerLimit:
    """R101: ``player`` asks for their ``kind`` (deposit or loss) limit of ``period`` (day, week,
    month) to be ``amount`` (None: no limit). A tighter limit takes effect at once; a looser one
    (higher, or none) 24 hours after this request. The request supersedes a pending one. Stored
    as a new row: the history of requests is kept."""
    if kind not in LimitKind.values:
        raise ValidationError({"kind": [_("Choose a deposit limit or a loss limit.")]})
    if period not in LimitPeriod.values:
        raise ValidationError({"period": [_("Choose a daily, weekly or monthly limit.")]})
    checked = _amount(amount, player.hall.currency)
    with transaction.atomic():
        _lock(player)  # requests of one player one after another
        now = now or timezone.now()
        state = selectors.limit_state_get(player=player, kind=kind, period=period, now=now)
        return PlayerLimit.objects.create(
            player=player,
            kind=kind,
            period=period,
            amount=checked,
            requested_at=now,
            effective_at=limits.limit_effective_at(new=checked, in_force=state.in_force, requested_at=now),
        )


# --- exclusions --------------------------------------------------------------------------------


def _exclusion_end(length: str, start: datetime, player: Player) -> datetime | None:
    if length not in EXCLUSION_MONTHS:
        raise ValidationError({"length": [_("Choose how long the exclusion lasts.")]})
    months = EXCLUSION_MONTHS[length]
    return None if months is None else limits.add_months(start, months, hall_zone(player.hall))


def _covered(player: Player, ends_at: datetime | None, now: datetime) -> PlayerExclusion | None:
    """An exclusion in force that already lasts at least until ``ends_at``."""
    current = selectors.exclusion_active(player=player, now=now)
    if current is None:
        return None
    if current.ends_at is None or (ends_at is not None and current.ends_at >= ends_at):
        return current
    return None


def player_self_exclude(
    *, player: Player, length: str, confirmed: bool, now: datetime | None = None
) -> PlayerExclusion:
    """R101: ``player`` bars themself from buying and depositing, from now for ``length`` (a key
    of ``EXCLUSION_MONTHS``: 1, 3, 6 months, 1 or 5 years, or for good), once ``confirmed``. It
    cannot be undone before its end, by anyone. Refused when an exclusion in force already lasts
    as long. The player's open standing orders end with it (``player_barred``)."""
    if not confirmed:
        raise ValidationError({"confirmed": [_("Confirm that you want to exclude yourself.")]})
    return _own_exclusion_create(
        player=player,
        kind=PlayerExclusion.Kind.EXCLUSION,
        end=lambda start: _exclusion_end(length, start, player),
        covered=_("You are already excluded for at least as long; nothing was changed."),
        now=now,
    )


def _own_exclusion_create(
    *,
    player: Player,
    kind: str,
    end: Callable[[datetime], datetime | None],
    covered: str,
    now: datetime | None,
) -> PlayerExclusion:
    """The player's own exclusion of ``kind`` from now to ``end(now)``, under the player's lock
    (a purchase waiting for it sees the row once it commits); refused with ``covered`` on the
    length when an exclusion in force already lasts as long."""
    with transaction.atomic():
        _lock(player)
        now = now or timezone.now()
        ends_at = end(now)
        if _covered(player, ends_at, now) is not None:
            raise ValidationError({"length": [covered]})
        exclusion = PlayerExclusion.objects.create(
            player=player,
            source=PlayerExclusion.Source.SELF,
            kind=kind,
            starts_at=now,
            ends_at=ends_at,
            reason="",
            created_by=player.user,
            created_at=now,
        )
        # R101: nothing is bought for the player from now on, their standing orders neither:
        # they end here, in this transaction (bingo/online).
        player_barred.send(sender=PlayerExclusion, player=player, now=now)
        return exclusion


#: «Fazer uma pausa» (R101): the player's break, shorter than any self-exclusion, and its lengths.
PAUSE_LENGTHS: dict[str, timedelta] = {
    "24h": timedelta(hours=24),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}
PAUSE_CHOICES = [
    ("24h", gettext_lazy("24 hours")),
    ("7d", gettext_lazy("7 days")),
    ("30d", gettext_lazy("30 days")),
]


def player_pause_take(
    *, player: Player, length: str, confirmed: bool, now: datetime | None = None
) -> PlayerExclusion:
    """R101, «fazer uma pausa»: ``player`` stops buying and depositing from now for ``length`` (a
    key of ``PAUSE_LENGTHS``: 24 hours, 7 or 30 days), once ``confirmed``. Like a self-exclusion
    it cannot be ended early, by anyone; refused when an exclusion or break in force already
    lasts as long. The player's open standing orders end with it (``player_barred``)."""
    if length not in PAUSE_LENGTHS:
        raise ValidationError({"length": [_("Choose how long the break lasts.")]})
    if not confirmed:
        raise ValidationError({"confirmed": [_("Confirm that you want to take a break.")]})
    return _own_exclusion_create(
        player=player,
        kind=PlayerExclusion.Kind.PAUSE,
        end=lambda start: start + PAUSE_LENGTHS[length],
        covered=_("You cannot play for at least as long already; nothing was changed."),
        now=now,
    )


def _require_manager(user: AbstractBaseUser | AnonymousUser, player: Player) -> None:
    if not hall_list_for(user, Role.MANAGER).filter(pk=player.hall_id).exists():
        raise PermissionDenied(_("Only a manager of the player's hall keeps its exclusion list."))


def player_exclude(
    *, player: Player, staff: User, length: str, reason: str, now: datetime | None = None
) -> PlayerExclusion:
    """R101: a manager of ``player``'s hall bars them from buying and depositing, from now for
    ``length`` (as ``player_self_exclude``), for ``reason`` (required: e.g. a diagnosis by an
    accredited body). A manager may lift it later (``player_exclusion_lift``). The player's open
    standing orders end with it (``player_barred``); a lifting does not reopen them."""
    _require_manager(staff, player)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": [_("Give the reason for the exclusion.")]})
    with transaction.atomic():
        _lock(player)
        now = now or timezone.now()
        ends_at = _exclusion_end(length, now, player)
        exclusion = PlayerExclusion.objects.create(
            player=player,
            source=PlayerExclusion.Source.OPERATOR,
            starts_at=now,
            ends_at=ends_at,
            reason=reason,
            created_by=staff,
            created_at=now,
        )
        player_barred.send(sender=PlayerExclusion, player=player, now=now)  # R101: orders end too
        return exclusion


def player_exclusion_lift(
    *, exclusion: PlayerExclusion, staff: User, reason: str, now: datetime | None = None
) -> PlayerExclusionLift:
    """R101: a manager of the player's hall lifts an operator's exclusion before its end, for
    ``reason`` (required). A self-exclusion is never lifted; nor one already ended or lifted.
    The exclusion stays on record with its lifting beside it."""
    player = exclusion.player
    _require_manager(staff, player)
    reason = (reason or "").strip()
    if exclusion.source != PlayerExclusion.Source.OPERATOR:
        raise ValidationError(_("A self-exclusion cannot be lifted before its end (R101)."))
    if not reason:
        raise ValidationError({"reason": [_("Give the reason for lifting the exclusion.")]})
    with transaction.atomic():
        _lock(player)
        now = now or timezone.now()
        fresh = PlayerExclusion.objects.select_related("lift").get(pk=exclusion.pk)
        if hasattr(fresh, "lift"):
            raise ValidationError(_("This exclusion was lifted already."))
        if fresh.ends_at is not None and fresh.ends_at <= now:
            raise ValidationError(_("This exclusion has ended already."))
        return PlayerExclusionLift.objects.create(
            exclusion=fresh, lifted_at=now, lifted_by=staff, reason=reason
        )


# --- the checks a purchase and a deposit run ---------------------------------------------------


def _exclusion_refusal(exclusion: PlayerExclusion, player: Player, *, deposit: bool) -> ValidationError:
    text = selectors.exclusion_text(exclusion=exclusion, player=player, deposit=deposit)
    return ValidationError({"amount": [text]}) if deposit else ValidationError(text)


_LOSS_REFUSED = {
    "day": gettext_lazy(
        "Your daily loss limit of %(limit)s would be passed: %(left)s is left today and these "
        "cards cost %(cost)s (R101). Nothing was bought."
    ),
    "week": gettext_lazy(
        "Your weekly loss limit of %(limit)s would be passed: %(left)s is left this week and these "
        "cards cost %(cost)s (R101). Nothing was bought."
    ),
    "month": gettext_lazy(
        "Your monthly loss limit of %(limit)s would be passed: %(left)s is left this month and "
        "these cards cost %(cost)s (R101). Nothing was bought."
    ),
}
_DEPOSIT_REFUSED = {
    "day": gettext_lazy(
        "The player's daily deposit limit of %(limit)s would be passed: %(left)s is left today "
        "(R101). Nothing was deposited."
    ),
    "week": gettext_lazy(
        "The player's weekly deposit limit of %(limit)s would be passed: %(left)s is left this week "
        "(R101). Nothing was deposited."
    ),
    "month": gettext_lazy(
        "The player's monthly deposit limit of %(limit)s would be passed: %(left)s is left this "
        "month (R101). Nothing was deposited."
    ),
}


def _limits_check(*, player: Player, kind: str, amount: Decimal, now: datetime) -> None:
    zone = hall_zone(player.hall)
    currency = player.hall.currency
    for period, state in selectors.limit_states_get(player=player, kind=kind, now=now).items():
        limit = state.in_force
        if limit is None:
            continue
        start, end = limits.period_bounds(period, now, zone)
        used = selectors.limit_used(player=player, kind=kind, start=start, end=end)
        if limits.limit_passed(limit=limit, used=used, amount=amount):
            left = limits.limit_room(limit=limit, used=used) or Decimal("0")
            words = {
                "limit": money_display(limit, currency),
                "left": money_display(left, currency),
                "cost": money_display(amount, currency),
            }
            if kind == LimitKind.DEPOSIT:
                raise ValidationError({"amount": [str(_DEPOSIT_REFUSED[period]) % words]})
            raise ValidationError(str(_LOSS_REFUSED[period]) % words)


#: R101 in the purchase's one-statement debit (``bingo.players.services.wallet_purchase_debit``):
#: nothing is left to judge when no exclusion bars the player at %(now)s and they never asked for
#: a loss limit; otherwise the debit is not taken there and ``purchase_check`` judges.
PURCHASE_UNRESTRICTED_SQL = """
    NOT EXISTS (SELECT 1 FROM bingo_playerexclusion e
                 WHERE e.player_id = %(player)s AND (e.ends_at IS NULL OR e.ends_at > %(now)s)
                   AND NOT EXISTS (SELECT 1 FROM bingo_playerexclusionlift l WHERE l.exclusion_id = e.id))
    AND NOT EXISTS (SELECT 1 FROM bingo_playerlimit WHERE player_id = %(player)s AND kind = 'loss')
"""


def purchase_check(*, player: Player, amount: Decimal, now: datetime | None = None) -> None:
    """R101: refuse (ValidationError, saying why) a purchase of ``amount`` by ``player`` while an
    exclusion or a break bars them, or when their loss in a period so far plus ``amount`` would pass a loss
    limit in force. Runs inside the purchase's transaction, which holds the player's row (the
    wallet's lock, ``bingo.players.services.wallet_lock``) until it ends, so a purchase made at
    the same moment is counted, and an exclusion or a limit set meanwhile is seen."""
    now = now or timezone.now()
    if (exclusion := selectors.exclusion_active(player=player, now=now)) is not None:
        raise _exclusion_refusal(exclusion, player, deposit=False)
    _limits_check(player=player, kind=LimitKind.LOSS, amount=amount, now=now)


def deposit_check(*, player: Player, amount: Decimal, key: str = "", now: datetime | None = None) -> None:
    """R101: refuse (ValidationError on ``amount``) a desk deposit of ``amount`` while an exclusion
    bars ``player``, or when their deposits in a period plus ``amount`` would pass a deposit limit
    in force. Locks the player's row first (the caller's transaction keeps it until the deposit is
    written). A retry of a deposit already written under ``key`` is not checked again."""
    _lock(player)
    if key and WalletEntry.objects.filter(player=player, key=key).exists():
        return  # wallet_post answers the retry with the first entry
    now = now or timezone.now()
    if (exclusion := selectors.exclusion_active(player=player, now=now)) is not None:
        raise _exclusion_refusal(exclusion, player, deposit=True)
    _limits_check(player=player, kind=LimitKind.DEPOSIT, amount=amount, now=now)


__all__ = [
    "EXCLUSION_CHOICES",
    "EXCLUSION_MONTHS",
    "PAUSE_CHOICES",
    "PAUSE_LENGTHS",
    "PURCHASE_UNRESTRICTED_SQL",
    "deposit_check",
    "player_exclude",
    "player_exclusion_lift",
    "player_limit_set",
    "player_pause_take",
    "player_self_exclude",
    "purchase_check",
]
