"""The player's game screen as the API describes it (``player.state``, bingo/online/selectors.py):
the state the online game's API and websocket send (bingo/online/api.py), and the demo game's,
which has the same keys (bingo/demo/api.py subclasses these, R102).

Not an adapter: serializers another feature's API reuses live here, not in ``api.py``, which is
the feature's own (docs/architecture.md «Layers»).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from bingo.playtime.serializers import PlaytimeStateSerializer

# --- the player's game screen (``player.state``, bingo/online/selectors.py) ----------------------
# What ``player_game_state`` answers, described for the schema (the view sends the selector's
# dict as it is, the page's websocket the same): a client generated from it reads the game.


def _grid_field(child: serializers.Field[Any, Any, Any, Any], help_text: str) -> serializers.ListField:
    return serializers.ListField(child=serializers.ListField(child=child), help_text=help_text)


class PatternShownSerializer(serializers.Serializer[Any]):
    """A 75-ball pattern as the screens draw it (R73 b)): ``bingo.common.patterns.pattern_shown``."""

    key = serializers.CharField(help_text="The library's key (docs/draw.md), or custom.")
    name = serializers.CharField(help_text="Its name in the request's language.")
    rows = serializers.ListField(
        child=serializers.CharField(),
        help_text="Five rows of five: X a cell of the pattern, . another, * the free centre (R72).",
    )


class StateGameSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    room = serializers.CharField()
    variant = serializers.CharField()
    size = serializers.IntegerField(help_text="Balls in the drum: 90, 80, 75 or 30.")
    state = serializers.CharField()
    state_name = serializers.CharField()
    price = serializers.CharField(allow_null=True, help_text="A decimal string; null before sales open.")
    price_display = serializers.CharField(allow_null=True)
    sales_close_at = serializers.DateTimeField(allow_null=True)
    ball_interval = serializers.CharField(allow_null=True, help_text="Seconds between balls (R88).")
    headers = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="The 75-ball card's B I N G O; null otherwise.",
    )
    pattern = PatternShownSerializer(
        allow_null=True, required=False, help_text="The pattern the bingo is (R73 b)); null: the full card."
    )


class StateCardSerializer(serializers.Serializer[Any]):
    series = serializers.CharField(help_text="The series' label (K-12).")
    series_id = serializers.IntegerField()
    number = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]
    grid = _grid_field(serializers.IntegerField(allow_null=True), "Rows; null where nothing is printed.")
    marks = _grid_field(serializers.BooleanField(), "Rows; true where the number is drawn.")
    one_to_go = serializers.ListField(
        child=serializers.CharField(), help_text="Prizes one number away (R95)."
    )
    held = serializers.ListField(child=serializers.CharField(), help_text="Prizes the card holds.")
    order = serializers.IntegerField(help_text="Its place in the order bought (0 first).")
    to_go = serializers.IntegerField(
        allow_null=True, help_text="Numbers it lacks for the prize in play; null when none is in play."
    )


class StateTargetSerializer(serializers.Serializer[Any]):
    prize = serializers.CharField()
    cells = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))


class StateInPlaySerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    name = serializers.CharField()


class StatePrizeSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    name = serializers.CharField()
    amount = serializers.CharField(help_text="Its value as the sales stand, a decimal string.")
    display = serializers.CharField()
    won = serializers.BooleanField()
    winners = serializers.ListField(child=serializers.CharField())
    each = serializers.CharField(allow_null=True, help_text="Each winning card's share, once awarded.")
    mine = serializers.BooleanField(help_text="The player holds a winning card (R97).")


class StateOutcomeSerializer(serializers.Serializer[Any]):
    over = serializers.BooleanField()
    annulled = serializers.BooleanField()
    reason = serializers.CharField()
    credited = serializers.CharField()
    credited_display = serializers.CharField()
    refunded = serializers.CharField()
    refunded_display = serializers.CharField()


class StateChoicesSerializer(serializers.Serializer[Any]):
    buy = serializers.BooleanField()
    marking = serializers.BooleanField()
    mark_by_hand = serializers.BooleanField()
    lobby = serializers.BooleanField()


class PlayerGameStateSerializer(serializers.Serializer[Any]):
    """The player's game screen: the game, the balls, the player's cards and marks, the prizes
    and their winners, the wallet, the marking and what may be done now (R94-R99)."""

    type = serializers.CharField(help_text="Always player.state.")
    game = StateGameSerializer()
    balls = serializers.ListField(child=serializers.IntegerField(), help_text="In the order drawn.")
    count = serializers.IntegerField()
    last = serializers.IntegerField(allow_null=True)
    cards = StateCardSerializer(many=True, help_text="Best first: fewest to go, then as bought.")
    targets = StateTargetSerializer(many=True)
    in_play = StateInPlaySerializer(
        allow_null=True, help_text="The first prize not yet awarded; null once the game is over."
    )
    calls = serializers.ListField(
        child=serializers.CharField(), help_text="Ball n called in Portuguese words at n - 1 (R77)."
    )
    prizes = StatePrizeSerializer(many=True)
    awarded = serializers.ListField(child=serializers.CharField())
    won = serializers.ListField(child=serializers.CharField())
    marking = serializers.CharField()
    balance = serializers.CharField(help_text="The wallet, a decimal string.")
    balance_display = serializers.CharField()
    cards_bought = serializers.IntegerField()
    card_limit = serializers.IntegerField(allow_null=True)
    outcome = StateOutcomeSerializer(help_text="What the game left the player with (R99).")
    playtime = PlaytimeStateSerializer()
    choices = StateChoicesSerializer()
