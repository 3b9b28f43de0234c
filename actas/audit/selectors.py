"""Reads of the audit trail: who sold, drew, confirmed, paid, suspended, corrected, logged in, and
when (R61), for the inspector.

**Where each fact lives.** Most actions already keep who and when in their own insert-only row,
so the trail reads them there rather than copying them: a sale (``Sale.cashier``; one sale
request may be several rows, one per series, so they are grouped by ``request_key``), a ball
(``drawn_by``), a claim (``claimed_by``, with its outcome), a prize (``awarded_by``), a prize
payment (``cashier``), an annulment's refunds (``created_by``, one row per game), a session
opened (``opened_by``), a ball-set check or replacement, a jackpot movement, a desk's drawer
opened and closed (``opened_by``, ``closed_by``), a deposit or
withdrawal of an online player's wallet at the desk (``recorded_by``) or a refund credited to it,
an online purchase (``buyer``, the wallet in place of the desk) and a prize paid into a wallet
(the system, no desk), and the logins,
logouts and failed logins django-axes writes (``AccessLog``, ``AccessFailureLog``). What no row
says — who opened or closed a game's sales, started its draw, suspended, resumed or annulled it,
switched it to manual extraction, closed a session — is in ``AuditEvent`` (actas/audit/models.py).

**How a page is read.** Every source is one query, filtered in SQL by hall, person and time and
cut at ``limit + 1`` rows, newest first; the sources' rows are then merged in Python by time and
the first ``limit`` kept. A page costs a fixed number of queries whatever the volume (thousands
of sales a day). Pages follow a keyset cursor, not an offset: rows are ordered by
``(time, source, id)`` descending, a total order even when two actions share a microsecond, and
the next page asks for what comes strictly after the last row shown. Each source turns the
cursor into a filter on its own time and id columns, so no row is shown twice or skipped when
new actions arrive between pages (they go on the first page, never shift the others).

**Which halls.** ``halls`` are the halls the reader may see (the view asks
``hall_list_for(user, Role.INSPECTOR, Role.MANAGER)``); nothing of another hall is read. Logins
belong to no hall: they are shown for the people who work in one of those halls, and a failed
login under a name no such person holds is not shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from axes.models import AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Count, Max, Q, QuerySet, Sum
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from actas.audit.models import AuditEvent
from bingo.common.money import money_display
from bingo.models import (
    Ball,
    Claim,
    DrawerShift,
    Game,
    Prize,
    PrizePayment,
    Refund,
    Sale,
    Session,
    WalletEntry,
)
from halls.models import BallReplacement, BallSetCheck, Hall, JackpotMovement

#: What each source's rows are called on the trail (the ``AuditEvent`` rows use their action's).
SOURCE_LABELS = {
    "sale": gettext_lazy("Sold cards"),
    "ball": gettext_lazy("Drew a ball"),
    "claim": gettext_lazy("Checked a claim"),
    "prize": gettext_lazy("Awarded a prize"),
    "payment": gettext_lazy("Paid a prize"),
    "refund": gettext_lazy("Refunded the sales"),
    "session": gettext_lazy("Opened the session"),
    "ballcheck": gettext_lazy("Checked the ball set"),
    "replacement": gettext_lazy("Replaced balls"),
    "jackpot": gettext_lazy("Jackpot movement"),
    "wallet": gettext_lazy("Player's wallet"),
    "draweropen": gettext_lazy("Opened the drawer"),
    "drawerclose": gettext_lazy("Closed the drawer"),
    "login": gettext_lazy("Logged in"),
    "logout": gettext_lazy("Logged out"),
    "loginfail": gettext_lazy("Failed login"),
}

#: The most rows one page shows.
LIMIT_MAX = 500


@dataclass(frozen=True, order=True)
class AuditCursor:
    """Where a page ends: the (time, source, id) of its last row; the next page starts after it."""

    at: datetime
    source: str
    pk: int

    def __str__(self) -> str:
        return f"{self.at.isoformat()}~{self.source}~{self.pk}"

    @classmethod
    def parse(cls, text: str) -> AuditCursor:
        """The cursor ``str(cursor)`` wrote; ValueError for anything else."""
        at_text, source, pk_text = text.split("~")
        at = parse_datetime(at_text)
        if at is None or at.tzinfo is None or source not in SOURCES:
            raise ValueError(text)
        return cls(at, source, int(pk_text))


@dataclass(frozen=True)
class AuditRow:
    """One action on the trail: when, who, where, what."""

    at: datetime
    source: str
    pk: int
    label: str
    user_id: int | None
    who: str
    hall_id: int | None
    hall: str
    time_zone: str
    session_id: int | None = None
    game_number: int | None = None
    what: str = ""
    amount: str = ""

    @property
    def cursor(self) -> AuditCursor:
        return AuditCursor(self.at, self.source, self.pk)


@dataclass(frozen=True)
class AuditPage:
    """A page of the trail, newest first; ``next_cursor`` asks for the next one (None: the last)."""

    rows: list[AuditRow]
    next_cursor: AuditCursor | None


@dataclass(frozen=True)
class _Query:
    """What every source filters on."""

    hall_ids: list[int]
    user_id: int | None
    since: datetime | None
    until: datetime | None
    before: AuditCursor | None
    limit: int


def _window(qs: QuerySet[Any], query: _Query, source: str, at: str, key: str = "pk") -> QuerySet[Any]:
    """``qs`` cut to the time range and to the rows after the cursor, newest first, ``limit + 1``.

    The trail's order is (time, source, id) descending, so at the cursor's very time a source
    named before the cursor's comes after it (all its rows at that time are next), the cursor's
    own source continues below the cursor's id, and a source named after it is already shown.
    """
    if query.since is not None:
        qs = qs.filter(**{f"{at}__gte": query.since})
    if query.until is not None:
        qs = qs.filter(**{f"{at}__lt": query.until})
    if (cursor := query.before) is not None:
        if source < cursor.source:
            qs = qs.filter(**{f"{at}__lte": cursor.at})
        elif source == cursor.source:
            qs = qs.filter(Q(**{f"{at}__lt": cursor.at}) | Q(**{at: cursor.at, f"{key}__lt": cursor.pk}))
        else:
            qs = qs.filter(**{f"{at}__lt": cursor.at})
    return qs.order_by(f"-{at}", f"-{key}")[: query.limit + 1]


def _who(user: User | None) -> str:
    if user is None:
        return _("the system")
    return user.get_full_name() or user.get_username()


def _mine(qs: QuerySet[Any], query: _Query, hall: str, user: str) -> QuerySet[Any]:
    qs = qs.filter(**{f"{hall}__in": query.hall_ids})
    if query.user_id is not None:
        qs = qs.filter(**{user: query.user_id})
    return qs


def _row(source: str, pk: int, at: datetime, user: User | None, hall: Hall, **fields: Any) -> AuditRow:
    return AuditRow(
        at=at,
        source=source,
        pk=pk,
        label=str(SOURCE_LABELS[source]),
        user_id=user.pk if user is not None else None,
        who=_who(user),
        hall_id=hall.pk,
        hall=hall.name,
        time_zone=hall.time_zone,
        **fields,
    )


# --- the sources, one query each -----------------------------------------------------------------


#: Where the desk's name goes for what no desk did: an online purchase paid from the player's
#: wallet, a prize paid into it (R97).
ONLINE_PLACE = gettext_lazy("online (wallet)")


def _at_desk_or_online(
    qs: QuerySet[Any],
    query: _Query,
    *,
    desk_hall: str,
    online_hall: str,
    desk_user: str,
    online_user: str | None,
) -> QuerySet[Any]:
    """``qs`` (rows with a nullable ``cash_desk``) cut to the reader's halls: a desk's row by its
    desk's hall, an online row (no desk) by its game's hall; narrowed to one person, the desk's
    staff member or, for an online row, ``online_user`` (the buyer), when given."""
    qs = qs.filter(
        Q(**{f"{desk_hall}__in": query.hall_ids})
        | Q(cash_desk__isnull=True, **{f"{online_hall}__in": query.hall_ids})
    )
    if query.user_id is not None:
        person = Q(**{desk_user: query.user_id})
        if online_user is not None:
            person |= Q(cash_desk__isnull=True, **{online_user: query.user_id})
        qs = qs.filter(person)
    return qs


def _sales(query: _Query) -> list[AuditRow]:
    # One request, one row: its first part stands for it (every part is written in one insert,
    # at one time); the other parts' series and numbers are fetched for the page's requests only.
    # An online purchase (R85) has no desk: the buyer bought it, from their wallet, in the game's
    # hall (a player's pk is their user's id).
    qs = _at_desk_or_online(
        Sale.objects.filter(part=1),
        query,
        desk_hall="cash_desk__hall_id",
        online_hall="game__session__room__hall_id",
        desk_user="cashier_id",
        online_user="buyer_id",
    )
    firsts = list(
        _window(
            qs.select_related(
                "cashier", "cash_desk__hall", "series", "game__session__room__hall", "buyer__user"
            ),
            query,
            "sale",
            "created_at",
        )
    )
    more: dict[str, list[Sale]] = {}
    if firsts:
        for part in (
            Sale.objects.filter(request_key__in=[s.request_key for s in firsts], part__gt=1)
            .select_related("series")
            .order_by("part")
        ):
            more.setdefault(part.request_key, []).append(part)
    rows = []
    for sale in firsts:
        parts = [sale, *more.get(sale.request_key, [])]
        desk = sale.cash_desk
        hall = desk.hall if desk is not None else sale.game.session.room.hall
        who = sale.cashier if desk is not None or sale.buyer is None else sale.buyer.user
        rows.append(
            _row(
                "sale",
                sale.pk,
                sale.created_at,
                who,
                hall,
                session_id=sale.game.session_id,
                game_number=sale.game.number,
                what=_("%(cards)d cards: %(ranges)s (%(desk)s)")
                % {
                    "cards": sum(p.quantity for p in parts),
                    "ranges": "; ".join(f"{p.series.label} {p.first_number}-{p.last_number}" for p in parts),
                    "desk": desk.name if desk is not None else str(ONLINE_PLACE),
                },
                amount=money_display(sum((p.amount for p in parts), Decimal(0)), hall.currency),
            )
        )
    return rows


def _balls(query: _Query) -> list[AuditRow]:
    qs = _mine(Ball.objects.all(), query, "game__session__room__hall_id", "drawn_by_id")
    qs = qs.select_related("drawn_by", "game__session__room__hall")
    return [
        _row(
            "ball",
            ball.pk,
            ball.drawn_at,
            ball.drawn_by,
            ball.game.session.room.hall,
            session_id=ball.game.session_id,
            game_number=ball.game.number,
            what=_("Ball %(number)d at count %(position)d (%(source)s)")
            % {"number": ball.number, "position": ball.position, "source": ball.get_source_display()},
        )
        for ball in _window(qs, query, "ball", "drawn_at")
    ]


def _claims(query: _Query) -> list[AuditRow]:
    qs = _mine(Claim.objects.all(), query, "game__session__room__hall_id", "claimed_by_id")
    qs = qs.select_related("claimed_by", "series", "game__session__room__hall")
    return [
        _row(
            "claim",
            claim.pk,
            claim.created_at,
            claim.claimed_by,
            claim.game.session.room.hall,
            session_id=claim.game.session_id,
            game_number=claim.game.number,
            what=_("%(kind)s, card %(card)d of series %(series)s at ball %(balls)d: %(outcome)s")
            % {
                "kind": claim.get_kind_display(),
                "card": claim.card_number,
                "series": claim.series.label,
                "balls": claim.balls_drawn,
                "outcome": claim.get_outcome_display(),
            },
        )
        for claim in _window(qs, query, "claim", "created_at")
    ]


def _prizes(query: _Query) -> list[AuditRow]:
    qs = _mine(Prize.objects.all(), query, "game__session__room__hall_id", "awarded_by_id")
    qs = qs.select_related("awarded_by", "game__session__room__hall")
    return [
        _row(
            "prize",
            prize.pk,
            prize.awarded_at,
            prize.awarded_by,
            prize.game.session.room.hall,
            session_id=prize.game.session_id,
            game_number=prize.game.number,
            what=_("%(kind)s at ball %(balls)d: %(winners)d winning cards, %(each)s each")
            % {
                "kind": prize.get_kind_display(),
                "balls": prize.balls_drawn,
                "winners": prize.winners,
                "each": money_display(prize.amount_each, prize.game.session.room.hall.currency),
            },
            amount=money_display(prize.total, prize.game.session.room.hall.currency),
        )
        for prize in _window(qs, query, "prize", "awarded_at")
    ]


def _payments(query: _Query) -> list[AuditRow]:
    # A prize of an online card is paid into the buyer's wallet by the system (R97): no desk, no
    # cashier; it belongs to the game's hall.
    qs = _at_desk_or_online(
        PrizePayment.objects.all(),
        query,
        desk_hall="cash_desk__hall_id",
        online_hall="winner__prize__game__session__room__hall_id",
        desk_user="cashier_id",
        online_user=None,
    )
    qs = qs.select_related(
        "cashier", "cash_desk__hall", "winner__series", "winner__prize__game__session__room__hall"
    )
    rows = []
    for pay in _window(qs, query, "payment", "paid_at"):
        desk = pay.cash_desk
        hall = desk.hall if desk is not None else pay.winner.prize.game.session.room.hall
        rows.append(
            _row(
                "payment",
                pay.pk,
                pay.paid_at,
                pay.cashier,
                hall,
                session_id=pay.winner.prize.game.session_id,
                game_number=pay.winner.prize.game.number,
                what=_("%(kind)s, card %(card)d of series %(series)s: tax %(tax)s, paid %(net)s (%(desk)s)")
                % {
                    "kind": pay.winner.prize.get_kind_display(),
                    "card": pay.winner.card_number,
                    "series": pay.winner.series.label,
                    "tax": money_display(pay.tax_withheld, hall.currency),
                    "net": money_display(pay.net, hall.currency),
                    "desk": desk.name if desk is not None else str(ONLINE_PLACE),
                },
                amount=money_display(pay.gross, hall.currency),
            )
        )
    return rows


def _refunds(query: _Query) -> list[AuditRow]:
    # An annulment refunds every sale of the game at once (one row each): one line per game.
    qs = _mine(Refund.objects.all(), query, "game__session__room__hall_id", "created_by_id")
    grouped = list(
        _window(
            qs.values("game_id").annotate(
                at=Max("created_at"), sales=Count("pk"), total=Sum("amount"), by=Max("created_by_id")
            ),
            query,
            "refund",
            "at",
            key="game_id",
        )
    )
    game_rows = {
        game.pk: game
        for game in Game.objects.filter(pk__in=[g["game_id"] for g in grouped]).select_related(
            "session__room__hall"
        )
    }
    users = _users([g["by"] for g in grouped])
    rows = []
    for group in grouped:
        game = game_rows[group["game_id"]]
        hall = game.session.room.hall
        rows.append(
            _row(
                "refund",
                game.pk,
                group["at"],
                users.get(group["by"]),
                hall,
                session_id=game.session_id,
                game_number=game.number,
                what=_("%(sales)d sales refunded in full") % {"sales": group["sales"]},
                amount=money_display(group["total"] or Decimal(0), hall.currency),
            )
        )
    return rows


def _users(ids: Iterable[int | None]) -> dict[int, User]:
    wanted = {pk for pk in ids if pk is not None}
    return {u.pk: u for u in User.objects.filter(pk__in=wanted)} if wanted else {}


def _sessions(query: _Query) -> list[AuditRow]:
    qs = _mine(Session.objects.all(), query, "room__hall_id", "opened_by_id")
    qs = qs.select_related("opened_by", "room__hall")
    return [
        _row(
            "session",
            session.pk,
            session.created_at,
            session.opened_by,
            session.room.hall,
            session_id=session.pk,
            what=_("Room %(room)s") % {"room": session.room.name},
        )
        for session in _window(qs, query, "session", "created_at")
    ]


def _ball_checks(query: _Query) -> list[AuditRow]:
    qs = _mine(BallSetCheck.objects.all(), query, "ball_set__hall_id", "checked_by_id")
    qs = qs.select_related("checked_by", "ball_set__hall")
    return [
        _row(
            "ballcheck",
            check.pk,
            check.checked_at,
            check.checked_by,
            check.ball_set.hall,
            session_id=check.session_id,
            what=_("Set %(set)s, %(phase)s: %(result)s%(faulty)s")
            % {
                "set": check.ball_set.serial_number,
                "phase": check.get_phase_display(),
                "result": check.get_result_display(),
                "faulty": f" ({', '.join(str(n) for n in check.faulty_balls)})" if check.faulty_balls else "",
            },
        )
        for check in _window(qs, query, "ballcheck", "checked_at")
    ]


def _replacements(query: _Query) -> list[AuditRow]:
    qs = _mine(BallReplacement.objects.all(), query, "ball_set__hall_id", "replaced_by_id")
    qs = qs.select_related("replaced_by", "ball_set__hall", "replacement_set")
    rows = []
    for r in _window(qs, query, "replacement", "replaced_at"):
        if r.replacement_set is not None:
            what = _("Set %(set)s replaced by set %(new)s: %(reason)s") % {
                "set": r.ball_set.serial_number,
                "new": r.replacement_set.serial_number,
                "reason": r.reason,
            }
        else:
            what = _("Ball %(ball)s of set %(set)s replaced: %(reason)s") % {
                "ball": r.ball_number,
                "set": r.ball_set.serial_number,
                "reason": r.reason,
            }
        rows.append(
            _row(
                "replacement",
                r.pk,
                r.replaced_at,
                r.replaced_by,
                r.ball_set.hall,
                session_id=r.session_id,
                what=what,
            )
        )
    return rows


def _jackpot(query: _Query) -> list[AuditRow]:
    qs = _mine(JackpotMovement.objects.all(), query, "jackpot__hall_id", "created_by_id")
    qs = qs.select_related("created_by", "jackpot__hall", "game")
    rows = []
    for move in _window(qs, query, "jackpot", "created_at"):
        hall = move.jackpot.hall
        rows.append(
            _row(
                "jackpot",
                move.pk,
                move.created_at,
                move.created_by,
                hall,
                session_id=move.game.session_id if move.game is not None else None,
                game_number=move.game.number if move.game is not None else None,
                what=_("%(kind)s; balance %(balance)s%(note)s")
                % {
                    "kind": move.get_kind_display(),
                    "balance": money_display(move.balance_after, hall.currency),
                    "note": f" · {move.note}" if move.note else "",
                },
                amount=money_display(move.amount, hall.currency),
            )
        )
    return rows


def _wallet(query: _Query) -> list[AuditRow]:
    # Deposits and withdrawals at the desk: the entry itself says who recorded it, for whom and
    # against which identity document (bingo/players/services.py wallet_deposit, wallet_withdraw);
    # and the refunds the system credits to a wallet when a game is annulled (R98). Purchases and
    # prizes paid into a wallet are on the trail as sales and payments ("online (wallet)").
    kinds = [WalletEntry.Kind.DEPOSIT, WalletEntry.Kind.WITHDRAWAL, WalletEntry.Kind.REFUND]
    qs = WalletEntry.objects.filter(kind__in=kinds)
    qs = _mine(qs, query, "player__hall_id", "recorded_by_id")
    qs = qs.select_related("recorded_by", "player__hall", "player__user")
    rows = []
    for entry in _window(qs, query, "wallet", "created_at"):
        hall = entry.player.hall
        facts = {
            "kind": entry.get_kind_display(),
            "player": entry.player.user.get_username(),
            "reference": entry.reference,
            "balance": money_display(entry.balance_after, hall.currency),
        }
        rows.append(
            _row(
                "wallet",
                entry.pk,
                entry.created_at,
                entry.recorded_by,
                hall,
                what=(
                    _("%(kind)s, player %(player)s, document %(reference)s; balance %(balance)s")
                    if entry.reference
                    else _("%(kind)s, player %(player)s; balance %(balance)s")
                )
                % facts,
                amount=money_display(entry.amount, hall.currency),
            )
        )
    return rows


def _drawers(query: _Query, source: str, at: str, user: str) -> list[AuditRow]:
    # A desk's drawer keeps who opened it and when, and who closed it and when, in its own row,
    # never changed once closed (bingo/drawers/, bingo/migrations/0024): two sources over it.
    qs = _mine(DrawerShift.objects.all(), query, "cash_desk__hall_id", f"{user}_id")
    if source == "drawerclose":
        qs = qs.filter(closed_at__isnull=False)
    qs = qs.select_related(user, "cash_desk__hall")
    rows = []
    for shift in _window(qs, query, source, at):
        hall = shift.cash_desk.hall
        facts = {"desk": shift.cash_desk.name}
        if source == "draweropen":
            what = _("%(desk)s, opening float") % facts
            amount = shift.opening_float
        else:
            facts["over_short"] = money_display(shift.over_short or Decimal(0), hall.currency)
            what = _("%(desk)s, cash counted; over/short %(over_short)s") % facts
            amount = shift.counted_cash or Decimal(0)
        rows.append(
            _row(
                source,
                shift.pk,
                getattr(shift, at),
                getattr(shift, user),
                hall,
                what=what,
                amount=money_display(amount, hall.currency),
            )
        )
    return rows


def _drawers_opened(query: _Query) -> list[AuditRow]:
    return _drawers(query, "draweropen", "opened_at", "opened_by")


def _drawers_closed(query: _Query) -> list[AuditRow]:
    return _drawers(query, "drawerclose", "closed_at", "closed_by")


def _events(query: _Query) -> list[AuditRow]:
    qs = _mine(AuditEvent.objects.all(), query, "hall_id", "user_id")
    qs = qs.select_related("user", "hall", "game")
    return [
        AuditRow(
            at=event.at,
            source="event",
            pk=event.pk,
            label=event.get_action_display(),
            user_id=event.user_id,
            who=_who(event.user),
            hall_id=event.hall_id,
            hall=event.hall.name,
            time_zone=event.hall.time_zone,
            session_id=event.session_id,
            game_number=event.game.number if event.game is not None else None,
            what=event.detail,
        )
        for event in _window(qs, query, "event", "at")
    ]


def _staff_usernames(query: _Query) -> QuerySet[User, Any]:
    """The user names whose logins the reader sees: people who work in one of the halls."""
    people = User.objects.filter(hall_roles__hall_id__in=query.hall_ids)
    if query.user_id is not None:
        people = people.filter(pk=query.user_id)
    return people.values("username")


def _login_rows(source: str, records: Iterable[Any], at: Callable[[Any], datetime]) -> list[AuditRow]:
    records = list(records)
    people = {u.username: u for u in User.objects.filter(username__in={r.username for r in records})}
    rows = []
    for record in records:
        user = people.get(record.username)
        rows.append(
            AuditRow(
                at=at(record),
                source=source,
                pk=record.pk,
                label=str(SOURCE_LABELS[source]),
                user_id=user.pk if user is not None else None,
                who=_who(user) if user is not None else record.username,
                hall_id=None,
                hall="",
                time_zone=settings.TIME_ZONE,
                what=_("From %(address)s") % {"address": record.ip_address or "?"},
            )
        )
    return rows


def _logins(query: _Query) -> list[AuditRow]:
    qs = AccessLog.objects.filter(username__in=_staff_usernames(query))
    return _login_rows("login", _window(qs, query, "login", "attempt_time"), lambda r: r.attempt_time)


def _logouts(query: _Query) -> list[AuditRow]:
    qs = AccessLog.objects.filter(username__in=_staff_usernames(query), logout_time__isnull=False)
    return _login_rows("logout", _window(qs, query, "logout", "logout_time"), lambda r: r.logout_time)


def _failed_logins(query: _Query) -> list[AuditRow]:
    # Each failure is a row of its own (settings.AXES_ENABLE_ACCESS_FAILURE_LOG); AccessAttempt
    # only counts the failures behind a lockout, and a manager's unlock deletes it.
    qs = AccessFailureLog.objects.filter(username__in=_staff_usernames(query))
    return _login_rows("loginfail", _window(qs, query, "loginfail", "attempt_time"), lambda r: r.attempt_time)


#: Every source of the trail, by the name its rows carry in the cursor.
SOURCES: dict[str, Callable[[_Query], list[AuditRow]]] = {
    "sale": _sales,
    "ball": _balls,
    "claim": _claims,
    "prize": _prizes,
    "payment": _payments,
    "refund": _refunds,
    "session": _sessions,
    "ballcheck": _ball_checks,
    "replacement": _replacements,
    "jackpot": _jackpot,
    "wallet": _wallet,
    "draweropen": _drawers_opened,
    "drawerclose": _drawers_closed,
    "event": _events,
    "login": _logins,
    "logout": _logouts,
    "loginfail": _failed_logins,
}


def audit_event_list(
    *,
    halls: Iterable[Hall] | QuerySet[Hall],
    user_id: int | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    before: AuditCursor | None = None,
    limit: int = 100,
) -> AuditPage:
    """The actions in ``halls`` (by ``user_id`` when given, from ``since`` to before ``until``),
    newest first, ``limit`` of them after the cursor ``before``; a fixed number of queries."""
    hall_ids = [h.pk for h in halls]
    if not hall_ids:
        return AuditPage([], None)
    query = _Query(hall_ids, user_id, since, until, before, max(1, min(limit, LIMIT_MAX)))
    merged = sorted(
        (row for read in SOURCES.values() for row in read(query)),
        key=lambda row: (row.at, row.source, row.pk),
        reverse=True,
    )
    rows = merged[: query.limit]
    more = len(merged) > query.limit
    return AuditPage(rows, rows[-1].cursor if more else None)


def audit_people(*, halls: Iterable[Hall] | QuerySet[Hall]) -> QuerySet[User]:
    """The people who work in ``halls``, by name: whom the trail may be narrowed to."""
    return (
        User.objects.filter(hall_roles__hall__in=list(halls))
        .distinct()
        .order_by("first_name", "last_name", "username")
    )
