"""Who reaches a hall's objects: the hall-scoped access rules every screen and API view shares.

Access is per hall, not per role group: a person sees a hall only while they hold a
``StaffMembership`` in it (manager, cashier, caller or inspector), and may do there only what
their role in *that* hall allows, so a cashier of one hall can do nothing in another. Objects
of a hall the caller does not work in answer 404, as if they did not exist; a role that does
not allow the action answers 403. Which halls those are is halls/selectors.py's answer, the
same on the screens and in the API; a superuser holding the manager role manages every hall.

Not an adapter (views, api, forms, urls are a feature's own, docs/architecture.md «Layers»):
the API views of halls, games, sales, the draw, ball sets, the jackpot and the acta's notes,
and the hall pages of the ball sets and the jackpot, import these from here.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404, HttpRequest
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView

from bingo.common.api import HasRole
from bingo.common.roles import Role
from halls import selectors
from halls.models import Hall

# --- the API ----------------------------------------------------------------------------------


def request_user(request: Request) -> User:
    """The logged-in user (views here all require IsAuthenticated)."""
    user: User = request.user  # type: ignore[assignment]
    return user


def staff_halls(user: User) -> QuerySet[Hall]:
    """The halls ``user`` works in, in any staff role."""
    return selectors.hall_list_for(user)


def hall_roles(user: User, hall_id: int) -> frozenset[Role]:
    """The roles ``user`` holds in hall ``hall_id`` (empty when they do not work there), from
    their memberships read once for the request."""
    selectors.staff_roles_remember(user)
    return selectors.hall_roles_for(user, hall_id=hall_id)


def require_hall_role(request: Request, hall_id: int, *roles: Role) -> frozenset[Role]:
    """The caller's roles in the hall; 403 unless one of them is among ``roles``."""
    held = hall_roles(request_user(request), hall_id)
    if not held & set(roles):
        raise PermissionDenied(HasRole.message)
    return held


class WriteRoleInSomeHall(BasePermission):
    """Writes need one of the view's ``write_roles`` in at least one hall, checked before the body
    is read: a person whose role may never do this gets 403, not field errors (docs/api.md).
    The object's own hall is checked next, by ``require_hall_role(..., *view.write_roles)``."""

    message = HasRole.message

    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.method in SAFE_METHODS:
            return True
        roles: tuple[Role, ...] = view.write_roles  # type: ignore[attr-defined]
        # The memberships are read once for the request: the object's hall is checked next
        # (require_hall_role), and the service checks them again (staff_has_role).
        return selectors.staff_roles_anywhere(request.user, *roles)


#: The permissions of an API view whose writes need a role in the object's hall.
HALL_WRITES = (IsAuthenticated, WriteRoleInSomeHall)


def visible_hall(request: Request, hall_id: int) -> Hall:
    """Hall ``hall_id`` when the caller works there in any staff role; 404 for any other."""
    try:
        return staff_halls(request_user(request)).get(pk=hall_id)
    except Hall.DoesNotExist:
        raise NotFound(_("There is no hall %(id)d.") % {"id": hall_id}) from None


# --- the screens ------------------------------------------------------------------------------


def hall_managed_or_404(request: HttpRequest, pk: int) -> Hall:
    """Hall ``pk`` when the user manages it (a superuser with the manager role: every hall); 404
    for any other, as if it did not exist. The hall pages of the ball sets and the jackpot use it too."""
    try:
        return selectors.hall_get_for(request.user, Role.MANAGER, hall_id=pk)
    except Hall.DoesNotExist:
        raise Http404 from None
