"""Template context shared by every page."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from bingo.common.roles import Role, roles_in_order, user_roles


def roles(request: HttpRequest) -> dict[str, Any]:
    """``current_roles``: the logged-in user's roles in display order (empty when anonymous);
    ``rules_link``: whether the header links the online rules and how to complain (R103,
    PT-806/66: one click away from every player page; anyone not logged in sees it too);
    ``player_pages``: the same pages carry the player's large-print switch and link the web
    app's manifest and service worker (issue 25, bingo/pwa)."""
    user = getattr(request, "user", None)
    if user is None:
        return {"current_roles": [], "rules_link": True, "player_pages": True}
    current = roles_in_order(user_roles(user))
    player = not user.is_authenticated or Role.PLAYER in current
    return {"current_roles": current, "rules_link": player, "player_pages": player}


def server_clock(request: HttpRequest) -> dict[str, Any]:
    """``server_now``: the server's clock when the page was made (ISO 8601). The pages' countdowns
    (static/js/live.js) count from it, not from the device's clock, which may be minutes off."""
    return {"server_now": timezone.now().isoformat()}
