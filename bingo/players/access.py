"""Who is a player: the one test every player's screen and API view makes.

A player is a logged-in user holding the player role *and* registered as one (a ``Player``
row, R85). Anyone else — not logged in, another role, or a user given the player role by hand
who never registered — is refused like any role check (``bingo.common.roles``): 403, with the
API's ``{"detail": "Your role does not allow this."}`` (docs/api.md, docs/players.md). A user
not logged in is sent to the login page (screens) or told so (API, 403).

* ``player_from_request(request)`` — the player making a request; PermissionDenied for anyone
  else. Read once per request, with the user's roles (``request_player``: None for anyone else):
  the play sessions' middleware, the decorator or the permission and the view share the row.
* ``player_required`` — the decorator of a player's screen.
* ``IsPlayer`` — the permission of a player's API view.

Not an adapter (views, api, forms, urls are a feature's own, docs/architecture.md «Layers»):
the screens and API views of the players, online play, demo mode, the play sessions,
complaints and responsible gaming import these from here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from rest_framework.request import Request
from rest_framework.views import APIView

from bingo.common.api import HasRole
from bingo.common.roles import Role, role_required, user_roles, user_roles_known
from bingo.models import Player
from bingo.players import selectors

ViewFunc = TypeVar("ViewFunc", bound=Callable[..., HttpResponse])

#: Where a request keeps its player once read (None: not a player).
_PLAYER_ATTR = "_bingo_player"


def request_player(request: HttpRequest | Request, *, likely: bool = False) -> Player | None:
    """The player making ``request``, read once and kept on the request; None for anyone else.
    ``likely``: the caller has reason to think the user is a player (a play session in their
    Django session): their roles and their player row are then read together, in one query;
    otherwise the roles first (staff requests read no player)."""
    # DRF's Request wraps Django's: the player is kept on Django's, which the middleware, the
    # permission and the view share.
    http: HttpRequest = getattr(request, "_request", request)
    user = request.user
    if not user.is_authenticated:
        return None  # nothing read, nothing kept: DRF may authenticate the request later
    if not hasattr(http, _PLAYER_ATTR):
        player = None
        if (likely and not user_roles_known(user)) or selectors.player_read_with_user(user=user):
            player, _roles = selectors.player_and_roles_get(user=user)
        elif Role.PLAYER in user_roles(user):
            try:
                player = selectors.player_get(user=user)
            except Player.DoesNotExist:
                player = None  # given the player role by hand, never registered
        setattr(http, _PLAYER_ATTR, player)
    found: Player | None = getattr(http, _PLAYER_ATTR)
    return found


def player_from_request(request: HttpRequest | Request) -> Player:
    """The player making ``request`` (hall and user joined); PermissionDenied (403) for anyone
    who is not one."""
    player = request_player(request)
    if player is None:
        raise PermissionDenied
    return player


def player_required(view: ViewFunc) -> ViewFunc:
    """Decorate a player's screen: not logged in, the login page; logged in but not a player,
    403; a player, the view (which reads them with ``player_from_request``)."""

    @role_required(Role.PLAYER)
    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        player_from_request(request)
        return view(request, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


class IsPlayer(HasRole):
    """The permission of a player's API view: 403 for anyone who is not a player, as for any
    role that may not (``HasRole``); the view reads them with ``player_from_request``."""

    roles = frozenset({Role.PLAYER})
    write_roles = roles

    def has_permission(self, request: Request, view: APIView) -> bool:
        return super().has_permission(request, view) and request_player(request) is not None
