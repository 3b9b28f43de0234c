"""The play session's state as the API describes it (``playtime_state``, R101, PT-806/70-71):
«As minhas sessões» through the API (bingo/playtime/api.py) and the player's game screen
(bingo/online/serializers.py) answer it.

Not an adapter: a serializer another feature's API reuses lives here, not in ``api.py``, which
is the feature's own (docs/architecture.md «Layers»).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class PlaytimeStateSerializer(serializers.Serializer[Any]):
    session = serializers.IntegerField(allow_null=True, help_text="The open play session; null if none.")
    started_at = serializers.DateTimeField(required=False)
    seconds = serializers.IntegerField(required=False, help_text="Seconds played so far.")
    minutes = serializers.IntegerField(required=False, help_text="Minutes played so far.")
    reminder_minutes = serializers.IntegerField(required=False, allow_null=True)
    limit_minutes = serializers.IntegerField(required=False, allow_null=True, help_text="R101, in force now.")
    limit_at = serializers.DateTimeField(required=False, allow_null=True)
    limit_reached = serializers.BooleanField(required=False)
    idle_games = serializers.IntegerField(
        required=False, help_text="PT-806/70 b: games in a row without a purchase."
    )
    inactivity = serializers.ChoiceField(choices=["none", "invite", "warn", "end"], required=False)
    end = serializers.BooleanField(required=False, help_text="The session must end now.")
    end_url = serializers.CharField(required=False)
