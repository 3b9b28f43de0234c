"""What the halls app announces to the features above it, which it may not import (the layers in
docs/architecture.md). Sent after commit; the project connects the receivers (bingo/apps.py)."""

from django.dispatch import Signal

#: A hall's jackpot was switched on or off (R9): its rooms' displays show it only while it runs
#: (R13). Keyword argument: ``hall_id``.
hall_jackpot_switched = Signal()
