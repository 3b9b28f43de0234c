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
from halls.selectors import staff_hall_ids_known


def game_for(request: Request, game_id: int, *, series: bool = True) -> Game:
    """A game of a hall the requester works in (in any role); 404 for any other. ``series``
    False: without its series on sale (a sale reads its own: one query less)."""
    user = request_user(request)
    halls = staff_hall_ids_known(user)
    if halls is not None:
        # The permission has read the requester's memberships: the game by its key, its hall
        # checked against them (the sale's hot path, issue 23), not a query on the memberships.
        game = selectors.game_get_joined(game_id=game_id, series=series)
        if game is None or hall_id_of(game) not in halls:
            raise NotFound(_("There is no game %(id)d.") % {"id": game_id})
        return game
    games = selectors.game_list_for(user)
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
