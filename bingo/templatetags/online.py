"""``{% load online %}`` then ``{% marking_form as marking_form %}``: the player's «Change marking»
form (R96), set to their marking, for the game screens' ``templates/online/_marking.html`` — the
online game's and the demo's (R102), whose views need not build the online feature's form."""

from __future__ import annotations

from django import template

from bingo.online.forms import MarkingForm
from bingo.players.access import player_from_request

register = template.Library()


@register.simple_tag(takes_context=True)
def marking_form(context: template.Context) -> MarkingForm:
    """The marking form of the player making the request (read once per request)."""
    player = player_from_request(context["request"])
    return MarkingForm(initial={"marking": player.marking})
