"""Topics: one message per server process, fanned out there to that process's own websockets.

Sending (``publish``): the sender hands the message over and returns at once; it never waits
for Redis nor for the screens. The message goes out from an event loop that is not the
sender's thread: the server's own loop when this process serves websockets (the in-memory
layer needs that: it lives in that loop), or else a sending thread of this process with a loop
of its own that keeps its Redis connections (a cashier's request, a Celery task). One sender
per loop sends in the order it was handed, and stamps each message with the next number of its
topic (``seq``): Redis ``INCR`` on the Redis layer, so it grows across every process; a
counter of the process on the in-memory layer, which has one process only.

Notices (``publish_notice``): a "read your state again" with no state in it, which a busy
seller may send at most once in ``every`` seconds *across all processes*: the sender takes the
topic's window in Redis (``SET … NX PX``, in the same round trip as the sequence number) and
drops the notice when another process holds it. The listeners' trailing read (longer than
``every`` after a notice) covers what was dropped.

Receiving (``TopicConsumerMixin``): each event loop serving websockets has one ``Hub``, which
holds one channel of the channel layer and joins the group of each topic that one of its
consumers listens to, once, however many of them do. Redis therefore carries one message per
topic and server process instead of one per screen (1,000 displays on 2 workers: 2 messages
per ball, not 1,000), and nothing rides on a channel's capacity per screen. The hub encodes a
message to JSON and to a websocket frame once, and writes that frame to each listener's socket
at once (``bingo.live.frames``: the bytes ``websockets.broadcast`` would write, with no
``websocket.send`` event, middleware or compression per socket). A listener that still has
something waiting, or whose socket does not take the frame (its write buffer full, an extension
negotiated, not uvicorn), gets it in its own queue instead, sent in order from a task of its
own, so a slow client delays itself only.

Nothing shown is ever wrong, and a lost message is caught up from the state:

* a hub that sees a number out of sequence for a topic (a message lost between the sender and
  this process, or two senders overtaking each other) has each listener of the topic read its
  state again (``topic_resync``) and drops a message older than one already relayed;
* a listener whose queue overflows (a stalled client) drops its backlog and resyncs;
* a hub whose channel fails (Redis restarted) joins its topics again and resyncs every listener;
* a consumer subscribes before it reads the state it sends at connect, so a message published
  in between is relayed after it, never lost (a screen ignores a state older than its own).

Every ``HEARTBEAT_SECONDS`` the hub sends a heartbeat to its own channel through the channel
layer and, when it reads it back, hands ``{"type": "live.heartbeat", "every": seconds}`` to
each of its listeners: a page that hears nothing at all — no message, no heartbeat — for a
few intervals knows its live path is down (the socket, this process's hub, or its channel
layer) and says so («A restabelecer a ligação…») while it connects again (static/js/live.js).

The hub renews its groups every ``GROUP_RENEW_SECONDS``: channels_redis forgets a group's
member after the layer's ``group_expiry`` (settings.py: half an hour, so the groups of a
worker that died are left soon), and a hub lives as long as its worker.
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import json
import logging
import os
import threading
import weakref
from collections import defaultdict, deque
from collections.abc import Iterator
from typing import Any

from channels.layers import BaseChannelLayer, get_channel_layer
from channels_redis.core import RedisChannelLayer
from django.conf import settings

from bingo.live.frames import SCOPE_KEY, RawSocket, text_frame

logger = logging.getLogger(__name__)

#: A hub joins the channel-layer group ``live.<topic>`` for each topic it listens to.
GROUP_PREFIX = "live."
#: How long Redis keeps a topic's sequence number after its last message (give or take 255
#: messages: the time to live is set again every 256th).
SEQ_TTL_SECONDS = 7 * 24 * 3600
#: A hub joins its groups again this often: channels_redis forgets a member after the layer's
#: ``group_expiry`` (settings: 30 minutes, so a worker that died stops being sent to).
GROUP_RENEW_SECONDS = 600.0
#: Messages waiting for one client at most; past that its backlog is dropped and it resyncs.
BACKLOG_LIMIT = 64
#: The type of the channel-layer event that carries a topic's message.
EVENT_TYPE = "live.message"
#: The type of the event a hub sends itself, and of the message its listeners get from it.
HEARTBEAT_TYPE = "live.heartbeat"
#: How often a hub's listeners hear from it when no topic has news (static/js/live.js counts a
#: page offline after 2.5 intervals of silence).
HEARTBEAT_SECONDS = 10.0


def heartbeat_seconds() -> float:
    """The hubs' heartbeat interval: ``LIVE_HEARTBEAT_SECONDS`` in settings, else the default."""
    return float(getattr(settings, "LIVE_HEARTBEAT_SECONDS", HEARTBEAT_SECONDS))


def topic_group(topic: str) -> str:
    """The channel-layer group of ``topic`` (the hubs listening to it join it)."""
    return GROUP_PREFIX + topic


# --- sending -----------------------------------------------------------------------------------


#: In one round trip: take the topic's notice window (``KEYS[2]``, for ``ARGV[1]`` ms; none
#: when 0) or answer 0 if another process holds it, else the topic's next sequence number
#: (``KEYS[1]``), its time to live (``ARGV[2]``) set again every 256th.
_NEXT_SEQ_SCRIPT = """
if ARGV[1] ~= '0' and not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then
  return 0
end
local seq = redis.call('INCR', KEYS[1])
if seq % 256 == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return seq
"""


class _Sender:
    """Sends the messages handed to it, in order, from one event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        #: (topic, message, window in seconds: 0 for a message that always goes)
        self.waiting: deque[tuple[str, dict[str, Any], float]] = deque()
        self.task: asyncio.Task[None] | None = None
        self.counters: defaultdict[str, Iterator[int]] = defaultdict(lambda: itertools.count(1))
        self.script: Any = None

    def hand(self, topic: str, message: dict[str, Any], every: float = 0.0) -> None:
        """From any thread: queue ``message`` and return."""
        self.loop.call_soon_threadsafe(self._queue, topic, message, every)

    def flush(self, timeout: float) -> None:
        """From another thread: wait until what was handed so far is sent."""
        try:
            on_loop = asyncio.get_running_loop() is self.loop
        except RuntimeError:
            on_loop = False
        if on_loop or not self.loop.is_running():
            return
        asyncio.run_coroutine_threadsafe(self._idle(), self.loop).result(timeout)

    async def _idle(self) -> None:
        while self.waiting or (self.task is not None and not self.task.done()):
            if self.task is not None and not self.task.done():
                await asyncio.wait([self.task])
            else:
                await asyncio.sleep(0)

    def _queue(self, topic: str, message: dict[str, Any], every: float) -> None:
        self.waiting.append((topic, message, every))
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self._drain())

    async def _drain(self) -> None:
        while self.waiting:
            topic, message, every = self.waiting.popleft()
            try:
                layer = get_channel_layer()
                if layer is None:
                    continue
                seq = await self._next_seq(layer, topic, every)
                if not seq:  # a notice another process sent within its window covers it
                    continue
                event = {"type": EVENT_TYPE, "topic": topic, "seq": seq, "message": message}
                await layer.group_send(topic_group(topic), event)
            except Exception:  # a message lost here shows as a gap to the hubs, which resync
                logger.exception("publishing to %s failed", topic)

    async def _next_seq(self, layer: BaseChannelLayer, topic: str, every: float) -> int:
        """The topic's next sequence number, or 0 for a notice whose window another process
        holds (``every`` seconds, shared by every process through Redis)."""
        if isinstance(layer, RedisChannelLayer):
            key = f"{layer.prefix}:live-seq:{topic}"
            connection = layer.connection(layer.consistent_hash(key))
            if self.script is None:
                self.script = connection.register_script(_NEXT_SEQ_SCRIPT)
            window = f"{layer.prefix}:live-notice:{topic}"
            milliseconds = max(1, round(every * 1000)) if every > 0 else 0
            return int(
                await self.script(keys=[key, window], args=[milliseconds, SEQ_TTL_SECONDS], client=connection)
            )
        # The in-memory layer serves one process, whose callers space their notices already;
        # its own count is the topic's.
        return next(self.counters[topic])


class _SendingThread:
    """This process's thread for sending when no server loop runs here (requests of a WSGI or
    a cashier's process, Celery tasks, commands): a loop of its own keeps its connections."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        loop = asyncio.new_event_loop()
        self.sender = _Sender(loop)
        self.thread = threading.Thread(target=loop.run_forever, name="live-publisher", daemon=True)
        self.thread.start()


_senders: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Sender] = weakref.WeakKeyDictionary()
_sending_thread: _SendingThread | None = None
_sending_lock = threading.Lock()


def _sender() -> _Sender:
    """The sender for a message handed over now, from this thread."""
    global _sending_thread
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    # The server's loop when this process serves websockets: the in-memory layer lives there,
    # and with Redis its connections are there already. Ours if we run in it, else the latest.
    with _sending_lock:  # the hubs are made in the server's thread
        loops = [running] if running is not None and running in _hubs else list(_hubs)
    for loop in reversed(loops):
        if loop.is_running() and not loop.is_closed():
            with _sending_lock:
                if loop not in _senders:
                    _senders[loop] = _Sender(loop)
                return _senders[loop]
    with _sending_lock:
        if _sending_thread is None or _sending_thread.pid != os.getpid():  # none yet, or forked
            _sending_thread = _SendingThread()
        return _sending_thread.sender


@atexit.register
def flush(timeout: float = 5.0) -> None:
    """Wait (``timeout`` seconds at most) until this process's sending thread has sent what it
    was handed. Runs at exit, so a command or a task's process that publishes and ends loses
    nothing; a server's loop sends as it goes and is not waited for."""
    sending = _sending_thread
    if sending is not None and sending.pid == os.getpid():
        try:
            sending.sender.flush(timeout)
        except TimeoutError:
            logger.warning("live messages still unsent at exit")


def publish(topic: str, message: dict[str, Any]) -> None:
    """Hand ``message`` (JSON-able) to every websocket subscribed to ``topic``, in every server
    process, and return at once: the sending happens in an event loop, not in the caller.

    Call it after commit (``transaction.on_commit``). Messages published from one thread
    reach each listener in the order published.
    """
    _sender().hand(topic, message)


def publish_notice(topic: str, message: dict[str, Any], *, every: float) -> None:
    """Like ``publish``, for a notice (a "read your state again", no state in it) that may be
    dropped when another process has sent one on ``topic`` less than ``every`` seconds ago:
    one notice per window for all the processes, not one per process (with Redis; the
    in-memory layer has one process). Use it only where the listeners read their state
    again longer than ``every`` after each notice they hear, so a dropped notice's change is
    read all the same.
    """
    _sender().hand(topic, message, every)


# --- receiving ---------------------------------------------------------------------------------


class _Delivery:
    """One message for the listeners of one hub, encoded to JSON once, and to a websocket frame
    once, when first needed."""

    __slots__ = ("_frame", "_text", "message")

    def __init__(self, message: dict[str, Any], text: str | None = None) -> None:
        self.message = message
        self._text = text
        self._frame: bytes | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = json.dumps(self.message)
        return self._text

    @property
    def frame(self) -> bytes:
        """The text as the frame written to every socket that takes it as it is (frames.py)."""
        if self._frame is None:
            self._frame = text_frame(self.text)
        return self._frame


#: A listener's own text sent in order with its topics' messages (``topic_send``).
SEND_TYPE = "live.send"

#: What a listener's queue holds: (topic, message or ``None`` for "read your state again", and
#: whether it goes to the client as it is: True, False for ``topic_message``, None when not
#: decided yet by ``topic_relay``).
_Item = tuple[str, _Delivery | None, bool | None]


class Hub:
    """The listeners of one event loop (one server process), and its one channel."""

    def __init__(self, layer: BaseChannelLayer) -> None:
        self.layer = layer
        self.channel: str | None = None
        self.topics: dict[str, set[TopicConsumerMixin]] = {}
        self.last_seq: dict[str, int] = {}
        self.lock = asyncio.Lock()
        self.reader: asyncio.Task[None] | None = None
        self.renewer: asyncio.Task[None] | None = None
        self.beater: asyncio.Task[None] | None = None

    async def subscribe(self, topic: str, listener: TopicConsumerMixin) -> None:
        """``listener`` hears ``topic`` from now on (the group joined once it returns)."""
        async with self.lock:
            if self.channel is None:
                self.channel = await self.layer.new_channel("live-hub")
            listeners = self.topics.get(topic)
            if listeners is None:
                await self.layer.group_add(topic_group(topic), self.channel)
                listeners = self.topics[topic] = set()
            listeners.add(listener)
            if self.reader is None or self.reader.done():
                self.reader = asyncio.create_task(self._read())
                self.renewer = asyncio.create_task(self._renew())
                self.beater = asyncio.create_task(self._beat())

    async def unsubscribe(self, topic: str, listener: TopicConsumerMixin) -> None:
        """``listener`` stops hearing ``topic``; the hub leaves the group with its last listener."""
        async with self.lock:
            listeners = self.topics.get(topic)
            if listeners is None or listener not in listeners:
                return
            listeners.discard(listener)
            if listeners:
                return
            del self.topics[topic]
            self.last_seq.pop(topic, None)
            if not self.topics:
                for task in (self.reader, self.renewer, self.beater):
                    if task is not None:
                        task.cancel()
                self.reader = self.renewer = self.beater = None
            if self.channel is not None:
                await self.layer.group_discard(topic_group(topic), self.channel)

    def listeners(self, topic: str) -> int:
        """How many listeners of ``topic`` this hub serves."""
        return len(self.topics.get(topic, ()))

    async def _read(self) -> None:
        assert self.channel is not None
        while True:
            try:
                event = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                # The layer failed (Redis went away): join again, and everyone reads its state.
                logger.exception("the live hub's channel failed")
                await asyncio.sleep(1)
                await self._join_all()
                self.last_seq.clear()
                for topic in list(self.topics):
                    self._resync(topic)
                continue
            try:
                if event.get("type") == EVENT_TYPE:
                    self.deliver(event["topic"], int(event["seq"]), event["message"])
                elif event.get("type") == HEARTBEAT_TYPE:
                    self.heartbeat()
            except Exception:  # one bad message must not stop the hub
                logger.exception("relaying a live message failed: %r", event)

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(GROUP_RENEW_SECONDS)
            try:
                await self._join_all()
            except Exception:
                logger.exception("renewing the live hub's groups failed")

    async def _beat(self) -> None:
        # Through the layer, not straight to the listeners: a heartbeat heard proves that this
        # process still reads its channel (Redis up, the reader alive), as a ball needs.
        while True:
            await asyncio.sleep(heartbeat_seconds())
            try:
                assert self.channel is not None
                await self.layer.send(self.channel, {"type": HEARTBEAT_TYPE})
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("the live hub's heartbeat failed")

    def heartbeat(self) -> None:
        """Hand a heartbeat to each listener once (however many topics it follows)."""
        delivery = _Delivery({"type": HEARTBEAT_TYPE, "every": heartbeat_seconds()})
        listeners = {listener for topic_listeners in self.topics.values() for listener in topic_listeners}
        for listener in listeners:
            listener._topic_put(HEARTBEAT_TYPE, delivery)

    async def _join_all(self) -> None:
        async with self.lock:
            for topic in list(self.topics):
                assert self.channel is not None
                await self.layer.group_add(topic_group(topic), self.channel)

    def deliver(self, topic: str, seq: int, message: dict[str, Any]) -> None:
        """Put message number ``seq`` of ``topic`` in each listener's queue, or, out of
        sequence, have them read their state again (and drop it if older than the last)."""
        listeners = self.topics.get(topic)
        if not listeners:
            return
        last = self.last_seq.get(topic)
        self.last_seq[topic] = seq
        if last is not None and seq != last + 1:
            logger.info("live topic %s: message %s after %s, listeners resync", topic, seq, last)
            self._resync(topic)
            if seq <= last:  # older than what was relayed (or the count restarted): the
                return  # state read again brings the truth
        delivery = _Delivery(message)
        for listener in list(listeners):
            listener._topic_put(topic, delivery)

    def _resync(self, topic: str) -> None:
        for listener in list(self.topics.get(topic, ())):
            listener._topic_put(topic, None)


#: One hub per event loop (a server process has one; each test runs its own).
_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """The hub of the running event loop (made on first use)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        layer = get_channel_layer()
        if layer is None:
            raise RuntimeError("live topics need a channel layer (CHANNEL_LAYERS)")
        found = Hub(layer)
        with _sending_lock:
            _hubs[loop] = found
    return found


class TopicConsumerMixin:
    """For a websocket consumer (``AsyncWebsocketConsumer`` or its JSON flavour) that listens
    to topics: ``await self.topic_subscribe(topic)`` before reading the state it sends at
    connect, and ``await self.topics_unsubscribe()`` in ``disconnect``.

    Each message of a topic is first shown to ``topic_relay`` (synchronously, as it comes, in
    order): True sends it to the client as it is, False hands it to ``topic_message``. By
    default a consumer that does not override ``topic_message`` relays everything as it is.
    A message relayed as it is goes out as the frame the hub encoded once for the process,
    written straight to the socket (``bingo.live.frames``) when nothing of this consumer's is
    waiting before it and the socket takes it; else it waits its turn in the consumer's queue,
    sent from a task of the consumer's own (through ASGI when the socket does not take the
    frame). When messages may have been missed, ``topic_resync`` is called (by default: the
    connection is closed with code 4000, and the client, reconnecting, gets the state at
    connect). ``topic_send(text)`` sends a text of the consumer's own in the same order.

    Messages that come before ``connect`` has returned wait for it: nothing is sent before
    the handshake, and what was published while the consumer read its state follows that
    state. The consumer needs no channel of its own (``channel_layer_alias = None``): the hub
    holds the one of its process.
    """

    _topics: set[str] | None = None
    _topic_queue: deque[_Item] | None = None
    _topic_pump: asyncio.Task[None] | None = None
    #: Whether ``connect`` has returned: what came before waits, so that nothing is sent
    #: before the handshake, and a message that came while the consumer read its state
    #: follows that state.
    _topic_connected = False
    #: The socket under the ASGI app, when the server gives one (``bingo.live.frames``).
    _topic_socket: RawSocket | None = None

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        await super().websocket_connect(message)  # type: ignore[misc]
        self._topic_socket = self.scope.get(SCOPE_KEY)  # type: ignore[attr-defined]
        self._topic_connected = True
        self._topic_pump_start()

    async def topic_subscribe(self, topic: str) -> None:
        """Listen to ``topic``; every message published after this returns is relayed."""
        if self._topics is None:
            self._topics = set()
        self._topics.add(topic)
        await hub().subscribe(topic, self)

    async def topics_unsubscribe(self) -> None:
        """Stop listening to every topic (call it from ``disconnect``)."""
        topics, self._topics = self._topics or set(), None
        for topic in topics:
            await hub().unsubscribe(topic, self)
        if self._topic_pump is not None:
            self._topic_pump.cancel()
        self._topic_queue = None

    def topic_relay(self, topic: str, message: dict[str, Any], text: str) -> bool:
        """Whether this message of ``topic`` goes to the client as it is (``text``, its JSON):
        by default yes, unless the consumer overrides ``topic_message``. Called once per
        message, in order, as it comes (or, before ``connect`` has returned, when its turn
        comes): it must not wait."""
        return type(self).topic_message is TopicConsumerMixin.topic_message

    async def topic_message(self, topic: str, message: dict[str, Any], text: str) -> None:
        """A message of ``topic`` that ``topic_relay`` kept back: by default sent as it is."""
        await self.send(text_data=text)  # type: ignore[attr-defined]

    async def topic_resync(self, topic: str) -> None:
        """Messages of ``topic`` may have been missed: by default the client reconnects."""
        await self.close(code=4000)  # type: ignore[attr-defined]

    def topic_dropped(self) -> None:
        """What waited for this client was dropped (it fell ``BACKLOG_LIMIT`` behind); a resync
        follows. For a consumer that keeps track of what it sent."""

    def topic_send(self, text: str) -> None:
        """Send ``text`` (JSON) to the client after what this consumer relayed or queued so far."""
        self._topic_put(SEND_TYPE, _Delivery({}, text))

    def _topic_put(self, topic: str, delivery: _Delivery | None) -> None:
        if self._topics is None:
            return
        queue = self._topic_queue
        if queue is None:
            queue = self._topic_queue = deque()
        as_is: bool | None
        if delivery is None:
            as_is = None
        elif topic in (HEARTBEAT_TYPE, SEND_TYPE):
            as_is = True
        elif self._topic_connected:
            try:
                as_is = self.topic_relay(topic, delivery.message, delivery.text)
            except Exception:  # one listener's fault must not stop the hub's round
                logger.exception("relaying a message of %s failed", topic)
                return
        else:
            as_is = None  # decided when its turn comes, after connect has returned
        idle = not queue and (self._topic_pump is None or self._topic_pump.done())
        if as_is and idle and self._topic_connected and self._topic_write(delivery):  # type: ignore[arg-type]
            return  # the common case: written to the socket at once, the frame shared
        if len(queue) >= BACKLOG_LIMIT:
            # A client this far behind is stalled: what it waits for is dropped, it resyncs.
            queue.clear()
            queue.append((topic, None, None))
            self.topic_dropped()
        if topic == HEARTBEAT_TYPE and any(item[0] == HEARTBEAT_TYPE for item in queue):
            return  # one heartbeat waiting says it all
        if delivery is not None or not queue or queue[-1][:2] != (topic, None):
            queue.append((topic, delivery, as_is))
        self._topic_pump_start()

    def _topic_write(self, delivery: _Delivery) -> bool:
        """Write the message's shared frame to the socket now, if it takes it as it is."""
        raw = self._topic_socket
        if raw is None:
            return False
        try:
            return raw.write(delivery.frame)
        except Exception:  # the ASGI way then, which knows what to do with a broken socket
            logger.exception("writing to a websocket's transport failed")
            return False

    def _topic_pump_start(self) -> None:
        if not self._topic_connected or not self._topic_queue:
            return
        if self._topic_pump is None or self._topic_pump.done():
            self._topic_pump = asyncio.create_task(self._topic_drain())

    async def _topic_drain(self) -> None:
        queue = self._topic_queue
        while queue:
            topic, delivery, as_is = queue.popleft()
            try:
                if delivery is None:
                    await self.topic_resync(topic)
                    continue
                if as_is is None:
                    as_is = self.topic_relay(topic, delivery.message, delivery.text)
                if not as_is:
                    await self.topic_message(topic, delivery.message, delivery.text)
                elif not self._topic_write(delivery):
                    await self.send(text_data=delivery.text)  # type: ignore[attr-defined]
            except OSError:  # the connection dropped; its disconnect is on the way
                return
            except Exception:
                logger.exception("relaying a message of %s failed", topic)
