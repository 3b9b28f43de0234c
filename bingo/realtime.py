"""The one module that sends websocket events (STYLE rule 4). Callers schedule these with
``transaction.on_commit`` so nothing is announced that the database may still roll back."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


def price_board_group(game_id: int) -> str:
    """The channel-layer group of a game's price board (R29)."""
    return f"price-board.{game_id}"


def price_board_changed(game_id: int) -> None:
    """Tell the price boards of ``game_id`` that sales changed: they fetch the new figures."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(
            price_board_group(game_id), {"type": "board.changed", "game": game_id}
        )
