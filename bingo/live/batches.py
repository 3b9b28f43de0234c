"""Database reads shared by the websockets that connect at about the same time.

Thousands of screens connect at once when a hall opens or a server restarts. Each used to read
what it needed (the session, the user, the game, the room's state) in a call of its own on the
one thread where Channels runs database work, which the event loop then waited for, call by
call: 5,000 players took over a minute to connect. A ``Batched`` read answers every ask that
came while the previous round ran in one call, with a fixed number of queries whatever the
number of asks: the first ask of a quiet moment starts a round at once (it waits for nothing),
and a round always starts after each of the asks it answers was made, so an answer is never
older than its ask (a display that subscribed, then asked for its state, gets a state read
after it subscribed).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

from channels.db import database_sync_to_async

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")

#: Asks answered in one round at most; more wait for the next.
ROUND_LIMIT = 1000


class _Round(Generic[Key, Value]):
    def __init__(self) -> None:
        self.waiting: dict[Key, list[asyncio.Future[Value]]] = {}
        self.task: asyncio.Task[None] | None = None


class Batched(Generic[Key, Value]):
    """``await batched.ask(key)``: ``answer(keys)``'s value for ``key``, computed in a round
    with the other keys asked meanwhile (each key once), in Channels' database thread."""

    def __init__(self, answer: Callable[[list[Key]], dict[Key, Value]]) -> None:
        self.answer = answer
        self._rounds: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Round[Key, Value]] = (
            weakref.WeakKeyDictionary()
        )

    async def ask(self, key: Key) -> Value:
        loop = asyncio.get_running_loop()
        state = self._rounds.get(loop)
        if state is None:
            state = self._rounds[loop] = _Round()
        future: asyncio.Future[Value] = loop.create_future()
        state.waiting.setdefault(key, []).append(future)
        if state.task is None or state.task.done():
            state.task = loop.create_task(self._run(state))
        return await future

    async def _run(self, state: _Round[Key, Value]) -> None:
        while state.waiting:
            keys = list(state.waiting)[:ROUND_LIMIT]
            futures = {key: state.waiting.pop(key) for key in keys}
            try:
                answers = await database_sync_to_async(self.answer)(keys)
            except Exception as error:
                _settle(futures.values(), error=error)
                continue
            for key, waiting in futures.items():
                _settle([waiting], value=answers[key])


def _settle(
    groups: Iterable[list[asyncio.Future[Value]]], *, value: object = None, error: BaseException | None = None
) -> None:
    for group in groups:
        for future in group:
            if future.done():  # its connect was cancelled (the client left)
                continue
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value)  # type: ignore[arg-type]
