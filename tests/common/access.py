"""Who may call what (docs/api.md): the staff of the access tests' halls, who calls, and the
answer a request gets when its caller may not make it."""

from __future__ import annotations

from collections.abc import Collection

from django.contrib.auth.models import User

from bingo.common.roles import Role
from halls.models import Hall, StaffMembership
from tests.factories import UserFactory

#: A hall's staff roles: the access tests' halls have one person in each.
STAFF = (Role.MANAGER, Role.CASHIER, Role.CALLER, Role.INSPECTOR)

#: Who calls: a role in the object's hall, the same role in another hall, someone holding every
#: staff role but working in no hall, or nobody logged in.
CALLERS = [("own", r) for r in STAFF] + [("other", r) for r in STAFF] + [("nobody", None), ("anon", None)]


def staff_of_each_role(hall: Hall, name: str) -> dict[Role, User]:
    """One person in each of ``STAFF``'s roles working in ``hall`` (a membership each), named
    "<role>-<name>", with no usable password: the tests log in with force_login, and skip the
    slow hashing."""
    staff = {role: UserFactory(username=f"{role.value}-{name}", password=None) for role in STAFF}
    for role, user in staff.items():
        StaffMembership.objects.create(hall=hall, user=user, role=role.value)
    return staff


def refused_status(*, where: str, role: Role | None, allowed: Collection[Role], method: str) -> int:
    """403 when not logged in (``where == "anon"``), or when the caller's role may not act: in
    their own hall, or, for a write, in any hall (checked before the body is read); 404 when the
    object is another hall's and the caller could act on their own (``where == "other"``)."""
    if where in ("anon", "own"):
        return 403
    if method.lower() != "get" and not (where == "other" and role in allowed):
        return 403
    return 404
