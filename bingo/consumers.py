"""Websocket consumers: they authenticate, join a group and relay (STYLE rule 3).

The price board is public (it hangs on a TV in the hall, R29), so anyone may watch one; it
sends nothing back. The figures are read afresh from the database at connect and at each
``board.changed`` event, so a board that reconnects shows the current state.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from bingo import selectors
from bingo.realtime import price_board_group


def _board_message(game_id: int) -> dict[str, Any] | None:
    figures = selectors.game_board(game_id=game_id)
    return None if figures is None else figures.as_message()


class PriceBoardConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """The live figures of one game's price board: sent at once, then after every sale."""

    group: str | None = None

    async def connect(self) -> None:
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        # Join before reading: a sale committed in between is then announced, not lost.
        group = price_board_group(game_id)
        await self.channel_layer.group_add(group, self.channel_name)
        self.group = group
        message = await database_sync_to_async(_board_message)(game_id)
        if message is None:  # no such game: nothing to watch
            await self.channel_layer.group_discard(group, self.channel_name)
            self.group = None
            await self.close()
            return
        await self.accept()
        await self.send_json(message)

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The board only listens."""

    async def board_changed(self, event: dict[str, Any]) -> None:
        """Sales changed (bingo.realtime.price_board_changed): send the new figures."""
        message = await database_sync_to_async(_board_message)(int(event["game"]))
        if message is not None:
            await self.send_json(message)
