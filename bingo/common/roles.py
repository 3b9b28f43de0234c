"""The five roles of the system, how a user holds them, and how views require them.

A role is a Django ``Group`` whose name is the role's value (``manager``, ``cashier``...); the
groups are created by the migration ``bingo/migrations/0001_role_groups.py``. Roles are read
from group membership only: a superuser holds no role unless given one, so that the
separation of duties between cashier, caller and inspector is never bypassed silently.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from django.contrib.auth.mixins import AccessMixin
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.http import HttpRequest, HttpResponse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django.contrib.auth.models import User

_ROLES_CACHE_ATTR = "_bingo_roles"


class Role(models.TextChoices):
    """A role a person plays in the system (SPEC, "The people who use it")."""

    MANAGER = "manager", _("Manager")
    CASHIER = "cashier", _("Cashier")
    CALLER = "caller", _("Caller")
    INSPECTOR = "inspector", _("Inspector")
    PLAYER = "player", _("Player")

    @property
    def dashboard_url_name(self) -> str:
        """The URL name of this role's dashboard, e.g. ``dashboard-manager``."""
        return f"dashboard-{self.value}"

    @property
    def dashboard_title(self) -> str | Promise:
        """The heading of this role's dashboard."""
        return _DASHBOARD_TITLES[self]


_DASHBOARD_TITLES: dict[Role, str | Promise] = {
    Role.MANAGER: _("Manager dashboard"),
    Role.CASHIER: _("Cashier dashboard"),
    Role.CALLER: _("Caller dashboard"),
    Role.INSPECTOR: _("Inspector dashboard"),
    Role.PLAYER: _("Player dashboard"),
}

# The dashboards list roles in this order; so does every page that shows a user's roles.
ROLE_ORDER: tuple[Role, ...] = tuple(Role)

#: The roles a person may hold in a hall (players are not staff).
STAFF_ROLES: tuple[Role, ...] = (Role.MANAGER, Role.CASHIER, Role.CALLER, Role.INSPECTOR)


def roles_in_order(roles: Iterable[Role]) -> list[Role]:
    """The given roles sorted in the system's fixed order (manager first, player last)."""
    return sorted(set(roles), key=ROLE_ORDER.index)


def user_roles(user: AbstractBaseUser | AnonymousUser) -> frozenset[Role]:
    """The roles a user holds: the role groups they belong to. Anonymous users hold none.

    The answer is cached on the user object, which lives for one request.
    """
    if not user.is_authenticated:
        return frozenset()
    cached: frozenset[Role] | None = getattr(user, _ROLES_CACHE_ATTR, None)
    if cached is None:
        names = Group.objects.filter(user__pk=user.pk, name__in=Role.values).values_list("name", flat=True)
        cached = frozenset(Role(name) for name in names)
        setattr(user, _ROLES_CACHE_ATTR, cached)
    return cached


def role_flags(user: str = "pk") -> dict[str, models.Exists]:
    """Annotations for a query of users (or of rows whose ``user`` field holds a user's key) that
    say which roles each holds, so another read of the request brings the roles with it; read
    them with ``user_roles_remember``."""
    return {
        f"_holds_{role.value}": models.Exists(
            Group.objects.filter(user=models.OuterRef(user), name=role.value)
        )
        for role in Role
    }


def user_roles_remember(user: AbstractBaseUser, row: object) -> frozenset[Role]:
    """The roles ``row`` (annotated with ``role_flags``) says ``user`` holds, cached on ``user``
    for the request as ``user_roles`` caches them."""
    return user_roles_remember_set(
        user, frozenset(role for role in Role if getattr(row, f"_holds_{role.value}"))
    )


def user_roles_remember_set(user: AbstractBaseUser, roles: frozenset[Role]) -> frozenset[Role]:
    """``roles``, read with another query of the request, cached on ``user`` as ``user_roles``
    caches them."""
    setattr(user, _ROLES_CACHE_ATTR, roles)
    return roles


def user_roles_known(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Whether ``user``'s roles were read for this request already."""
    return getattr(user, _ROLES_CACHE_ATTR, None) is not None


@transaction.atomic
def user_roles_set(*, user: User, roles: Iterable[Role]) -> None:
    """Make ``roles`` exactly the roles ``user`` holds; other (non-role) groups are kept."""
    wanted = {Role(role) for role in roles}
    # get_or_create: a flushed test database, or one restored without the data migration,
    # still gets the groups the first time a role is given.
    groups = [Group.objects.get_or_create(name=role.value)[0] for role in roles_in_order(wanted)]
    user.groups.remove(*user.groups.filter(name__in=Role.values).exclude(name__in=[r.value for r in wanted]))
    user.groups.add(*groups)
    if hasattr(user, _ROLES_CACHE_ATTR):
        delattr(user, _ROLES_CACHE_ATTR)


def _check_roles(roles: tuple[Role, ...]) -> frozenset[Role]:
    if not roles:
        raise ValueError("At least one role is required.")
    return frozenset(Role(role) for role in roles)


ViewFunc = TypeVar("ViewFunc", bound=Callable[..., HttpResponse])


def role_required(*roles: Role) -> Callable[[ViewFunc], ViewFunc]:
    """Decorate a function view so only users holding one of ``roles`` reach it.

    Anonymous users are sent to the login page; a logged-in user without the role gets 403.
    """
    allowed = _check_roles(roles)

    def decorator(view: ViewFunc) -> ViewFunc:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not user_roles(request.user) & allowed:
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorator


class RoleRequiredMixin(AccessMixin):
    """Class-based view mixin: only users holding one of ``required_roles`` get through.

    Anonymous users are sent to the login page; a logged-in user without the role gets 403.
    """

    required_roles: ClassVar[tuple[Role, ...]] = ()

    def get_required_roles(self) -> tuple[Role, ...]:
        return self.required_roles

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        allowed = _check_roles(self.get_required_roles())
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        if not user_roles(request.user) & allowed:
            raise PermissionDenied
        response: HttpResponse = super().dispatch(request, *args, **kwargs)  # type: ignore[misc]
        return response


# --- what each role will do (the dashboards list it) ------------------------------------------


@dataclass(frozen=True)
class Duty:
    """One thing a role does in the system, as its dashboard shows it.

    ``url_name`` is None while the feature is not built: the dashboard then says so.
    """

    title: str | Promise
    description: str | Promise
    rules: str
    url_name: str | None = None


#: Managers and cashiers alike handle the online players' money at the desk.
_WALLETS_DUTY = Duty(
    _("Players' wallets"),
    _(
        "Find an online player, check their identity document and record a deposit or a "
        "withdrawal; see their last movements."
    ),
    "R85, R100",
    url_name="players:staff_search",
)

ROLE_DUTIES: dict[Role, tuple[Duty, ...]] = {
    Role.MANAGER: (
        Duty(
            _("Halls and rooms"),
            _("Set up the halls, their rooms, cash desks and displays."),
            "R29",
            url_name="halls:hall_list",
        ),
        # A series carries its cards' price (R18); the sale's announcement states it (R33).
        Duty(
            _("Card prices"),
            _("Set the price of the cards on sale in each room."),
            "R18, R33",
            "cards:series_list",
        ),
        Duty(
            _("Prize plan"),
            _("Split the prize money between line and bingo; the bingo never gets below 55%."),
            "R5-R7",
            url_name="games:session_list",
        ),
        Duty(
            _("Progressive jackpot"),
            _("Set the base value, the number of balls and the conditions of the jackpot."),
            "R9-R13",
            url_name="jackpot_calculator",
        ),
        Duty(
            _("Card series"),
            _("Register the series of cards: letter, number and colours."),
            "R16-R19",
            url_name="cards:series_list",
        ),
        Duty(
            _("Ball sets"),
            _("Register the serialized ball sets and record their checks."),
            "R20-R26",
            url_name="halls:ball_set_halls",
        ),
        Duty(
            _("Sessions"),
            _("Open and close game sessions and their games."),
            "R32, R53, R58-R60",
            url_name="games:session_list",
        ),
        Duty(
            _("Suspend or annul a game"),
            _(
                "Suspend a game before its first ball, resume it, or annul it with full refunds, "
                "as the caller can."
            ),
            "R55, R57",
            url_name="games:session_list",
        ),
        Duty(
            _("Cards used"),
            _(
                "Record each game's cards destroyed, naming those kept as evidence; see the winning "
                "cards kept 8 days, which fall due and which a complaint holds."
            ),
            "R51, R52",
            url_name="acta_cards:home",
        ),
        _WALLETS_DUTY,
        Duty(
            _("Payout slips"),
            _("Find a prize payout's slip by the code printed on it, and print it again."),
            "R50",
            url_name="sales:payout_slip_find",
        ),
        Duty(
            _("Players' complaints"),
            _(
                "Read the online players' complaints about your halls' games and record your decision; "
                "both go into the session's acta and the player reads the answer."
            ),
            "R61 j)",
            url_name="complaints:staff_list",
        ),
        Duty(
            _("Exclusion list"),
            _("See every player excluded from play, exclude a player with the reason, or lift it."),
            "R101",
            url_name="protection:exclusions",
        ),
        Duty(
            _("Close-outs"),
            _(
                "Read every cash desk's close-outs: the float, the sales and the change given, the "
                "prizes paid and the tax withheld, the wallets' cash, the cash counted and the "
                "over/short; the cash of any period; print them."
            ),
            "R8, R39, R50",
            url_name="drawers:closeout_list",
        ),
    ),
    Role.CASHIER: (
        Duty(
            _("Sell cards"),
            _("Sell cards for cash in numbered order, with no number skipped or sold twice."),
            "R34-R39",
            url_name="sales:cashier",
        ),
        Duty(
            _("Pay prizes"),
            _("Pay prizes in cash against the winning card."),
            "R8, R50",
            url_name="sales:prize_pay",
        ),
        _WALLETS_DUTY,
        Duty(
            _("Close-out"),
            _(
                "Open your desk's drawer with a float and close it with the cash counted: the "
                "close-out records the cash expected and the over/short."
            ),
            "R8, R39, R50",
            url_name="drawers:drawer",
        ),
    ),
    Role.CALLER: (
        Duty(
            _("Run the draw"),
            _("Draw the balls electronically or key them in from the blower."),
            "R42, R55",
            url_name="draw:caller_games",
        ),
        Duty(
            _("Check claims"),
            _("Check line and bingo claims against the balls drawn, and ask for any other winner."),
            "R43-R47, R49",
            url_name="draw:caller_games",
        ),
        Duty(
            _("Check the ball sets"),
            _("Run every ball through the mechanism at the start and end of each session; record it."),
            "R23",
            url_name="halls:ball_set_halls",
        ),
    ),
    Role.INSPECTOR: (
        Duty(
            _("Read the actas"),
            _("Read each session's acta, game by game, on screen and as a PDF."),
            "R58-R61",
            url_name="actas:hall_list",
        ),
        Duty(
            _("Verify integrity"),
            _("Check that no acta was altered and regenerate card sets to compare fingerprints."),
            "R14, R58-R61",
            url_name="actas:hall_list",
        ),
        Duty(
            _("Audit trail"),
            _("See who sold, drew, confirmed, paid, suspended, corrected and logged in, and when."),
            "R61",
            url_name="actas:audit_trail",
        ),
    ),
    Role.PLAYER: (
        Duty(
            _("My wallet"),
            _("Your balance and every movement: deposits, withdrawals, cards bought, prizes, refunds."),
            "R100",
            url_name="players:wallet",
        ),
        Duty(
            _("Buy cards"),
            _("Buy cards for a session or a continuous room from your wallet."),
            "R89-R93",
            url_name="online:lobby",
        ),
        Duty(
            _("Play"),
            _("Follow the draw with your cards marked for you."),
            "R94-R97",
            url_name="online:lobby",
        ),
        Duty(
            _("History"),
            _("See every game you played: stakes, results and totals."),
            "R100, R103",
            url_name="players:history",
        ),
        Duty(
            _("Rules and complaints"),
            _("The rules, the card prices and prize plans of each room, and how to complain."),
            "R103, R61 j)",
            url_name="online:rules",
        ),
        Duty(
            _("Limits"),
            _("Set deposit and loss limits, or exclude yourself."),
            "R101",
            url_name="protection:mine",
        ),
    ),
}
