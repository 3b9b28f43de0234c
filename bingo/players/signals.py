"""What a player's R101 bars tell the features above (docs/architecture.md «Layers»: a lower
layer speaks through a signal, the project connects the receivers in bingo/apps.py)."""

from django.dispatch import Signal

#: Sent inside the transaction that bars ``player`` from buying from ``now`` (R101), which holds
#: the player's row (the wallet's lock): a self-exclusion or a break, the operator's exclusion
#: (bingo/protection), the hall's break after a play session ended at its time limit
#: (bingo/playtime). A receiver acts in that same transaction and never waits for a row of the
#: lock order taken before the wallet's: the online standing orders end
#: (``bingo.online.services.on_player_barred``, SKIP LOCKED).
player_barred = Signal()
