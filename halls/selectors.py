"""Reads of the halls app: which halls a person works in, in which roles, and what they hold.

Access is per hall: a person sees a hall's rooms, desks, staff, sessions and series only while
they hold a ``StaffMembership`` there, and manages them only as its manager, so a manager of
one hall can do nothing in another. The role groups (bingo.common.roles) open the screens; the
memberships choose the halls. The one exception: a superuser who holds the manager role
manages every hall (and still needs that role, as bingo.common.roles wants for every superuser).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db.models import Count, QuerySet

from bingo.common.roles import STAFF_ROLES, Role, user_roles
from halls.models import CashDesk, Hall, Room, StaffMembership

AnyUser = AbstractBaseUser | AnonymousUser


def _manages_every_hall(user: AnyUser) -> bool:
    return bool(getattr(user, "is_superuser", False)) and Role.MANAGER in user_roles(user)


#: Where a request's user keeps their memberships once read (``staff_roles_remember``).
_STAFF_ROLES_ATTR = "_bingo_staff_roles"


def staff_roles_remember(user: AnyUser) -> dict[int, frozenset[Role]]:
    """The roles ``user`` holds in each hall they work in, read once and kept on ``user`` (which
    lives for one request): the API's checks of a request (``halls.access``) and the services it
    calls (``staff_has_role``, ``hall_roles_for``) then answer from them. Only the request's
    adapters call this, so a user object kept longer (a test's, a task's) is always read afresh."""
    kept: dict[int, frozenset[Role]] | None = getattr(user, _STAFF_ROLES_ATTR, None)
    if kept is None:
        by_hall: dict[int, set[Role]] = {}
        if user.is_authenticated:
            for hall_id, role in StaffMembership.objects.filter(user_id=user.pk).values_list(
                "hall_id", "role"
            ):
                by_hall.setdefault(hall_id, set()).add(Role(role))
        kept = {hall_id: frozenset(roles) for hall_id, roles in by_hall.items()}
        setattr(user, _STAFF_ROLES_ATTR, kept)
    return kept


def _kept_staff_roles(user: AnyUser) -> dict[int, frozenset[Role]] | None:
    kept: dict[int, frozenset[Role]] | None = getattr(user, _STAFF_ROLES_ATTR, None)
    return kept


def staff_hall_ids_known(user: AnyUser) -> frozenset[int] | None:
    """The halls where ``user`` holds a staff role, from the memberships this request has read
    already (``staff_roles_remember``); None when they were not read, or for a superuser manager
    (every hall): ask ``hall_list_for`` then."""
    kept = _kept_staff_roles(user)
    if kept is None or _manages_every_hall(user):
        return None
    return frozenset(hall_id for hall_id, roles in kept.items() if roles & set(STAFF_ROLES))


def staff_roles_anywhere(user: AnyUser, *roles: Role) -> bool:
    """Whether ``user`` holds one of ``roles`` in some hall (a superuser manager: every hall),
    from the memberships read once for the request (``staff_roles_remember``)."""
    if not user.is_authenticated:
        return False
    if Role.MANAGER in roles and _manages_every_hall(user):
        return Hall.objects.exists()
    return any(held & set(roles) for held in staff_roles_remember(user).values())


def hall_list_for(user: AnyUser, *roles: Role) -> QuerySet[Hall]:
    """The halls where ``user`` holds one of ``roles`` (any staff role when none is given)."""
    if not user.is_authenticated:
        return Hall.objects.none()
    wanted = roles or STAFF_ROLES
    if Role.MANAGER in wanted and _manages_every_hall(user):
        return Hall.objects.all()
    memberships = StaffMembership.objects.filter(user_id=user.pk, role__in=[role.value for role in wanted])
    return Hall.objects.filter(pk__in=memberships.values("hall_id"))


def hall_get_for(user: AnyUser, *roles: Role, hall_id: int) -> Hall:
    """One hall where ``user`` holds one of ``roles``; Hall.DoesNotExist for any other."""
    return hall_list_for(user, *roles).get(pk=hall_id)


def hall_roles_for(user: AnyUser, *, hall_id: int) -> frozenset[Role]:
    """The roles ``user`` holds in hall ``hall_id`` (empty where they do not work)."""
    if not user.is_authenticated:
        return frozenset()
    kept = _kept_staff_roles(user)
    if kept is not None:
        held = set(kept.get(hall_id, frozenset()))
    else:
        names = StaffMembership.objects.filter(user_id=user.pk, hall_id=hall_id).values_list(
            "role", flat=True
        )
        held = {Role(name) for name in names}
    if _manages_every_hall(user) and Hall.objects.filter(pk=hall_id).exists():
        held.add(Role.MANAGER)
    return frozenset(held)


def hall_overview_list(*, user: AnyUser) -> QuerySet[Hall]:
    """The halls ``user`` manages, by name, each with how many rooms, desks and staff it has."""
    return (
        hall_list_for(user, Role.MANAGER)
        .annotate(
            room_count=Count("rooms", distinct=True),
            desk_count=Count("cash_desks", distinct=True),
            staff_count=Count("staff", distinct=True),
        )
        .order_by("name")
    )


def room_list(*, hall: Hall) -> QuerySet[Room]:
    """``hall``'s rooms, by name."""
    return Room.objects.filter(hall=hall).order_by("name")


def cash_desk_list(*, hall: Hall) -> QuerySet[CashDesk]:
    """``hall``'s cash desks, by name."""
    return CashDesk.objects.filter(hall=hall).order_by("name")


def room_list_for(user: AnyUser, *roles: Role) -> QuerySet[Room]:
    """The rooms of the halls where ``user`` holds one of ``roles``, hall joined, by hall and name."""
    return (
        Room.objects.filter(hall__in=hall_list_for(user, *roles))
        .select_related("hall")
        .order_by("hall__name", "name")
    )


def cash_desk_list_for(user: AnyUser, *roles: Role) -> QuerySet[CashDesk]:
    """The cash desks of the halls where ``user`` holds one of ``roles``, hall joined."""
    return (
        CashDesk.objects.filter(hall__in=hall_list_for(user, *roles))
        .select_related("hall")
        .order_by("hall__name", "name")
    )


def staff_list(*, hall: Hall) -> QuerySet[StaffMembership]:
    """Who works in ``hall`` in which role, person joined, by user name."""
    return StaffMembership.objects.filter(hall=hall).select_related("user").order_by("user__username", "role")


def staff_member_list(*, hall_id: int, role: Role) -> QuerySet[User]:
    """The people who hold ``role`` in hall ``hall_id``, by name (whom a shift report may be narrowed to)."""
    return (
        User.objects.filter(hall_roles__hall_id=hall_id, hall_roles__role=role.value)
        .distinct()
        .order_by("first_name", "last_name", "username")
    )


def staff_membership_get_for(user: AnyUser, *, hall_id: int, membership_id: int) -> StaffMembership:
    """One membership of a hall ``user`` manages; StaffMembership.DoesNotExist for any other."""
    return StaffMembership.objects.select_related("hall", "user").get(
        pk=membership_id, hall_id=hall_id, hall__in=hall_list_for(user, Role.MANAGER)
    )


def staff_has_role(*, user: AbstractBaseUser | AnonymousUser, hall_id: int, role: Role) -> bool:
    """Whether ``user`` works in hall ``hall_id`` in ``role`` (one hall's cashier has no say in another)."""
    if not user.is_authenticated:
        return False
    kept = _kept_staff_roles(user)
    if kept is not None:  # read for this request already (staff_roles_remember)
        return role in kept.get(hall_id, frozenset())
    return StaffMembership.objects.filter(user_id=user.pk, hall_id=hall_id, role=role.value).exists()
