"""Template context shared by every page."""

from __future__ import annotations

from django.http import HttpRequest

from bingo.common.roles import Role, roles_in_order, user_roles


def roles(request: HttpRequest) -> dict[str, list[Role]]:
    """``current_roles``: the logged-in user's roles in display order (empty when anonymous)."""
    user = getattr(request, "user", None)
    if user is None:
        return {"current_roles": []}
    return {"current_roles": roles_in_order(user_roles(user))}
