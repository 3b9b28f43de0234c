"""Websocket consumers: they authenticate, join a group and relay (STYLE rule 3).

The price board is public (it hangs on a TV in the hall, R29), so anyone may watch one; it
sends nothing back. The figures are read afresh from the database at connect and after each
``board.changed`` event, so a board that reconnects shows the current state. Events are
spaced out by the sellers (``bingo.realtime.BOARD_NOTICE_SECONDS``), so after each one the
board reads the figures once more a little later, and at most that often while sales go on.
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from bingo import selectors
from bingo.realtime import BOARD_NOTICE_SECONDS, price_board_group

#: After a ``board.changed`` event the board reads the figures at once and again this much
#: later, which covers the sales whose notice a busy seller skipped.
BOARD_TRAILING_SECONDS = 0.25
assert BOARD_TRAILING_SECONDS > BOARD_NOTICE_SECONDS


def _board_message(game_id: int) -> dict[str, Any] | None:
    figures = selectors.game_board(game_id=game_id)
    return None if figures is None else figures.as_message()


class PriceBoardConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """The live figures of one game's price board: sent at once, then after every sale."""

    group: str | None = None
    game_id: int = 0
    last_sent: dict[str, Any] | None = None
    refresher: asyncio.Task[None] | None = None
    dirty = False

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
        self.game_id = game_id
        await self._send(message)
        self.refresher = asyncio.create_task(self._refresh(at_once=False))

    async def disconnect(self, code: int) -> None:
        if self.refresher is not None:
            self.refresher.cancel()
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The board only listens."""

    async def board_changed(self, event: dict[str, Any]) -> None:
        """Sales changed (bingo.realtime.price_board_changed): send the new figures."""
        self.dirty = True
        if self.refresher is None or self.refresher.done():
            self.refresher = asyncio.create_task(self._refresh(at_once=True))

    async def _refresh(self, *, at_once: bool) -> None:
        # Then every BOARD_TRAILING_SECONDS while events keep coming, and once after the last:
        # a sale whose notice its seller skipped is never left off the board. A board that
        # joined just after a notice it missed is covered by the read scheduled at connect.
        if at_once:
            await self._send(await database_sync_to_async(_board_message)(self.game_id))
        while True:
            self.dirty = False
            await asyncio.sleep(BOARD_TRAILING_SECONDS)
            await self._send(await database_sync_to_async(_board_message)(self.game_id))
            if not self.dirty:
                break

    async def _send(self, message: dict[str, Any] | None) -> None:
        if message is not None and message != self.last_sent:
            self.last_sent = message
            await self.send_json(message)
