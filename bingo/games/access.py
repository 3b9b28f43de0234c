"""Which game an API request may reach: the lookup by id the API views of the games, the sales
and the draw share (halls/access.py checks the roles of the game's hall next).

Not an adapter (views, api, forms, urls are a feature's own, docs/architecture.md «Layers»):
``bingo/sales/api.py`` and ``bingo/draw/api/`` import these from here, not from
``bingo/games/api.py``. It reads through the games' selectors, so it sits with the games, above
the tables it reads (``bingo.common`` imports no app).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import NotFound
from rest_framework.request import Request

from bingo.games import selectors
from bingo.models import Game, Session
from halls.access import request_user


def game_for(request: Request, game_id: int, *, series: bool = True) -> Game:
    """A game of a hall the requester works in (in any role); 404 for any other. ``series``
    False: without its series on sale (a sale reads its own: one query less)."""
    games = selectors.game_list_for(request_user(request))
    if not series:
        games = games.prefetch_related(None)
    try:
        return games.get(pk=game_id)
    except Game.DoesNotExist:
        raise NotFound(_("There is no game %(id)d.") % {"id": game_id}) from None


def session_for(request: Request, session_id: int) -> Session:
    """A session of a hall the requester works in (in any role); 404 for any other."""
    try:
        return selectors.session_list_for(request_user(request)).get(pk=session_id)
    except Session.DoesNotExist:
        raise NotFound(_("There is no session %(id)d.") % {"id": session_id}) from None


def hall_id_of(game: Game) -> int:
    """The id of ``game``'s hall, whose roles decide what may be done to it."""
    return game.session.room.hall_id
