"""``{% load acta_notes %}`` then ``{% acta_notes_panel game next_url=... %}``: the acta's notes
panel (R61 j), l), m)) another feature's page shows — the caller's console and the game's page.

The panel is the acta's own (``actas.notes.views.notes_panel``, rendered by
``actas/notes/_panel.html``); a page of the draw or the games shows it through this tag, so
their views never import the acta's (docs/architecture.md «Layers»).
"""

from __future__ import annotations

from typing import Any

from django import template

from actas.notes.views import notes_panel
from bingo.models import Game

register = template.Library()


@register.inclusion_tag("actas/notes/_panel.html")
def acta_notes_panel(game: Game, *, next_url: str) -> dict[str, Any]:
    """The notes of ``game``'s session, the form to record one with ``game`` chosen, and the way
    back to ``next_url`` (the page it is shown on) once a note is recorded."""
    return {"panel": notes_panel(session=game.session, game=game, next_url=next_url)}
