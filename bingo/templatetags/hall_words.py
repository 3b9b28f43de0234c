"""``{% load hall_words %}``: what a person reads in place of a code (issue 25, one Portuguese):

* ``{{ hall.time_zone|zone_name }}``: «hora de Cabo Verde», not «Atlantic/Cape_Verde»;
* ``{{ prize.kind|prize_name }}``: «Prémio de linha», not «line»;
* ``{{ state|game_state_name }}``: «Terminada», not «finished» (a game's state or an acta entry's
  kind);
* ``{{ note.kind|acta_note_name }}``: an acta note's kind in words;
* ``{{ "2026-11-28T07:49:00-01:00"|clock }}``: an ISO 8601 moment of the acta's data as the hall's
  clock reads it, «28/11/2026 07:49» (the data keeps its own offset, the hall's);
* ``{{ game.win_rules|pattern_of }}``, ``{{ online_room.pattern|pattern_of }}``: the 75-ball
  pattern a game's (or a room's games') bingo is, ``{"key", "name", "rows"}`` to name it or draw
  it with ``bingo/_pattern_picture.html``; None for the full card (R73).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django import template

from actas.models import ActaNote
from bingo.common.clock import CLOCK_FORMAT
from bingo.common.clock import zone_name as zone_name_of
from bingo.common.patterns import pattern_shown, pattern_stored_shown
from bingo.engine.prizes import PrizeKind
from bingo.games.services import PRIZE_NAMES
from bingo.models import GameState

register = template.Library()


@register.filter
def zone_name(zone: str) -> str:
    return zone_name_of(zone) if zone else ""


@register.filter
def prize_name(kind: str) -> str:
    try:
        return str(PRIZE_NAMES[PrizeKind(kind)])
    except ValueError:
        return kind


@register.filter
def game_state_name(state: str) -> str:
    try:
        return str(GameState(state).label)
    except ValueError:
        return state


@register.filter
def acta_note_name(kind: str) -> str:
    try:
        return str(ActaNote.Kind(kind).label)
    except ValueError:
        return kind


@register.filter
def clock(moment: str | datetime | None) -> str:
    if not moment:
        return ""
    if isinstance(moment, datetime):
        return moment.strftime(CLOCK_FORMAT)
    try:
        return datetime.fromisoformat(moment).strftime(CLOCK_FORMAT)
    except ValueError:
        return moment


@register.filter
def pattern_of(value: Mapping[str, Any] | str | None) -> dict[str, Any] | None:
    """A game's ``win_rules`` or an online room's stored ``pattern``, as the screens show it."""
    if isinstance(value, str):
        return pattern_stored_shown(value)
    return pattern_shown(value)
