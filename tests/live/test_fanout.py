"""Live topics (bingo.live.fanout): one message per server process, relayed there to each of its
websockets; none lost, a gap caught up from the state, and the sender never waiting.

Each test that needs a layer runs on the in-memory layer and, with REDIS_URL set, on
channels_redis too (the ``layer`` fixture installs it as the default layer of the test).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from asgiref.testing import ApplicationCommunicator
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import BaseChannelLayer, InMemoryChannelLayer, channel_layers
from channels_redis.core import RedisChannelLayer

from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.live import events, fanout
from bingo.models import DrawMode
from tests.draw.test_views import Console
from tests.live.sockets import Socket
from tests.live.test_consumers import display_path

# Consumers close stale database connections as they disconnect; the draw commits for real.
pytestmark = pytest.mark.django_db(transaction=True)


class Listener(fanout.TopicConsumerMixin, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """A consumer of the generic API: subscribes to the topic in its path, says when it resyncs."""

    channel_layer_alias = None

    async def connect(self) -> None:
        await self.topic_subscribe(self.scope["path"].strip("/"))
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.topics_unsubscribe()

    async def topic_resync(self, topic: str) -> None:
        await self.send_json({"resync": topic})


@pytest.fixture(params=["memory", "redis"])
def layer(request: pytest.FixtureRequest) -> Iterator[BaseChannelLayer]:
    """The default channel layer of this test: in-memory, or channels_redis (REDIS_URL only)."""
    if request.param == "memory":
        made: BaseChannelLayer = InMemoryChannelLayer()
    else:
        url = os.environ.get("REDIS_URL")
        if not url:
            pytest.skip("REDIS_URL not set: the Redis layer is not tested")
        from channels_redis.core import RedisChannelLayer

        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        made = RedisChannelLayer(hosts=[url], prefix=f"asgi-test-fanout-{worker}")
    channel_layers.backends["default"] = made
    yield made
    channel_layers.backends.clear()


class WebsocketCommunicator(ApplicationCommunicator):  # type: ignore[misc]
    """A websocket client of one consumer (channels.testing's needs daphne, not installed)."""

    def __init__(self, app: Any, path: str) -> None:
        super().__init__(app, {"type": "websocket", "path": path, "headers": [], "subprotocols": []})

    async def connect(self) -> tuple[bool, Any]:
        await self.send_input({"type": "websocket.connect"})
        answer = await self.receive_output(5)
        return answer["type"] == "websocket.accept", answer

    async def receive_json_from(self, timeout: float = 1) -> Any:
        sent = await self.receive_output(timeout)
        assert sent["type"] == "websocket.send", sent
        return json.loads(sent["text"])

    async def disconnect(self) -> None:
        await self.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.wait(5)


async def _connect(topic: str, count: int) -> list[WebsocketCommunicator]:
    sockets = [WebsocketCommunicator(Listener.as_asgi(), f"/{topic}/") for _ in range(count)]
    for socket in sockets:
        connected, _ = await socket.connect()
        assert connected
    return sockets


def test_every_listener_of_a_process_gets_every_message_in_order(layer: BaseChannelLayer) -> None:
    topic, listeners, messages = "test-topic.many", 300, 40

    async def scenario() -> list[list[int]]:
        sockets = await _connect(topic, listeners)

        def send_all() -> None:  # from a thread, as a request's on_commit does
            for n in range(messages):
                fanout.publish(topic, {"n": n})

        await sync_to_async(send_all)()
        heard = []
        for socket in sockets:
            heard.append([(await socket.receive_json_from(10))["n"] for _ in range(messages)])
        quiet = [await socket.receive_nothing(0.05) for socket in sockets[:5]]
        for socket in sockets:
            await socket.disconnect()
        assert all(quiet)
        return heard

    heard = async_to_sync(scenario)()

    assert heard == [list(range(messages))] * listeners


def test_a_process_joins_a_topics_group_once_however_many_listen(
    layer: BaseChannelLayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    joined: list[str] = []
    real = layer.group_add

    async def counted(group: str, channel: str) -> None:
        joined.append(group)
        await real(group, channel)

    monkeypatch.setattr(layer, "group_add", counted)

    async def scenario() -> tuple[int, int]:
        sockets = await _connect("test-topic.once", 50)
        listening = fanout.hub().listeners("test-topic.once")
        for socket in sockets:
            await socket.disconnect()
        return listening, fanout.hub().listeners("test-topic.once")

    listening, after = async_to_sync(scenario)()

    assert joined == ["live.test-topic.once"]  # one member of the group: the process's hub
    assert (listening, after) == (50, 0)


def test_a_missed_message_makes_the_listeners_resync_before_the_next(
    layer: BaseChannelLayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second message is lost on its way to this process: the third arrives out of
    sequence, and every listener is told to read its state again before it."""
    topic = "test-topic.gap"
    real = fanout.Hub.deliver
    arrived: list[int] = []

    def lossy(hub: fanout.Hub, topic: str, seq: int, message: dict[str, Any]) -> None:
        arrived.append(seq)
        if len(arrived) != 2:
            real(hub, topic, seq, message)

    monkeypatch.setattr(fanout.Hub, "deliver", lossy)

    async def scenario() -> list[list[dict[str, Any]]]:
        sockets = await _connect(topic, 3)
        for n in range(3):
            await sync_to_async(fanout.publish)(topic, {"n": n})
        heard = [[await socket.receive_json_from(5) for _ in range(3)] for socket in sockets]
        for socket in sockets:
            await socket.disconnect()
        return heard

    heard = async_to_sync(scenario)()

    assert arrived[1:] == [arrived[0] + 1, arrived[0] + 2]  # numbered in sequence by the sender
    assert heard == [[{"n": 0}, {"resync": topic}, {"n": 2}]] * 3


def test_an_older_message_is_dropped_and_the_listeners_resync(layer: BaseChannelLayer) -> None:
    async def scenario() -> list[dict[str, Any]]:
        (socket,) = await _connect("test-topic.late", 1)
        hub = fanout.hub()
        hub.deliver("test-topic.late", 7, {"n": 7})
        hub.deliver("test-topic.late", 6, {"n": 6})  # overtaken by 7: older than what was shown
        hub.deliver("test-topic.late", 7, {"n": 7.1})  # in sequence after 6 (the count restarted)
        heard = [await socket.receive_json_from(5) for _ in range(3)]
        assert await socket.receive_nothing(0.1)
        await socket.disconnect()
        return heard

    assert async_to_sync(scenario)() == [
        {"n": 7},
        {"resync": "test-topic.late"},
        {"n": 7.1},
    ]


def test_a_stalled_listener_drops_its_backlog_and_resyncs(layer: BaseChannelLayer) -> None:
    async def scenario() -> list[dict[str, Any]]:
        stalled, other = await _connect("test-topic.stall", 2)
        hub = fanout.hub()
        # Nothing yields to the listeners' tasks meanwhile: the queues fill up as a stalled
        # client's would.
        for seq in range(1, fanout.BACKLOG_LIMIT + 2):
            hub.deliver("test-topic.stall", seq, {"n": seq})
        heard = [await stalled.receive_json_from(5) for _ in range(2)]
        assert await stalled.receive_nothing(0.1)
        for socket in (stalled, other):
            await socket.disconnect()
        return heard

    heard = async_to_sync(scenario)()

    # The backlog of BACKLOG_LIMIT messages was dropped for a resync; the next one follows it.
    assert heard == [{"resync": "test-topic.stall"}, {"n": fanout.BACKLOG_LIMIT + 1}]


def test_the_default_resync_closes_the_socket_so_the_client_reconnects(layer: BaseChannelLayer) -> None:
    class Plain(fanout.TopicConsumerMixin, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
        channel_layer_alias = None

        async def connect(self) -> None:
            await self.topic_subscribe("test-topic.plain")
            await self.accept()

        async def disconnect(self, code: int) -> None:
            await self.topics_unsubscribe()

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        socket = WebsocketCommunicator(Plain.as_asgi(), "/")
        await socket.connect()
        hub = fanout.hub()
        hub.deliver("test-topic.plain", 1, {"n": 1})
        hub.deliver("test-topic.plain", 3, {"n": 3})
        first = await socket.receive_json_from(5)
        closed = await socket.receive_output(5)
        await socket.disconnect()
        return first, closed

    first, closed = async_to_sync(scenario)()

    assert first == {"n": 1}
    assert closed == {"type": "websocket.close", "code": 4000}


# --- the sender never waits --------------------------------------------------------------------------


class BlockedLayer(InMemoryChannelLayer):  # type: ignore[misc]
    """A layer whose sends hang until released: Redis stuck, or a fan-out that never ends."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.entered.set()
        while not self.release.is_set():
            await asyncio.sleep(0.01)
        self.sent.append((group, message))


def test_the_draw_returns_while_the_fan_out_is_blocked() -> None:
    """Deterministic: the layer's first send does not end until the test releases it, after
    the draw has returned. Before publish handed messages over, the draw waited for it."""
    hall = Console()
    game = hall.drawing(mode=DrawMode.ELECTRONIC)
    fanout.flush()  # what setting the game up published is sent: only the draw's follows
    blocked = BlockedLayer()
    channel_layers.backends["default"] = blocked
    try:
        ball = draw_services.game_draw_ball(game=game, user=hall.caller, position=1)
        # The draw has returned; its messages went to the sender, whose first send hangs.
        assert blocked.entered.wait(10)
        assert blocked.sent == []
    finally:
        blocked.release.set()
    for _ in range(500):  # the hung send ends once released, and the rest follow, in order
        if len(blocked.sent) >= 3:
            break
        threading.Event().wait(0.01)
    groups = [group for group, _ in blocked.sent]
    assert groups[:3] == [
        f"live.room-display.{hall.room.pk}",
        f"live.online-game.{game.pk}",
        f"live.game-console.{game.pk}",
    ]
    state = blocked.sent[0][1]["message"]
    assert state["game"]["balls"] == [ball.number]


def test_publish_from_a_request_thread_does_not_wait_for_the_send(monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = BlockedLayer()
    monkeypatch.setattr(fanout, "get_channel_layer", lambda: blocked)
    try:
        events.publish("test-topic.blocked", {"n": 1})
        events.publish("test-topic.blocked", {"n": 2})
        assert blocked.entered.wait(10)  # the first send is under way, and hangs
        assert blocked.sent == []
    finally:
        blocked.release.set()
    for _ in range(500):
        if len(blocked.sent) == 2:
            break
        threading.Event().wait(0.01)
    assert [message["message"] for _, message in blocked.sent] == [{"n": 1}, {"n": 2}]
    assert [message["seq"] for _, message in blocked.sent] == [1, 2]


# --- the displays ------------------------------------------------------------------------------------


def test_a_display_that_missed_a_ball_reads_its_state_and_shows_every_ball(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ball 2's state is lost on its way to the server process; ball 3's comes out of sequence
    (the display shows it: the whole board, never a wrong one), and the room's displays read
    their state again."""
    hall = Console()
    game = hall.drawing(mode=DrawMode.ELECTRONIC)
    # What setting the game up published (the sales' notices) is sent before the display
    # subscribes: the second message it hears is ball 2's (with Redis a notice still on its way
    # could come second, after ball 1's, and ball 1's state would be the one dropped).
    fanout.flush()
    topic = events.room_display_topic(hall.room.pk)
    real = fanout.Hub.deliver
    states: list[int] = []

    def lossy(hub: fanout.Hub, on: str, seq: int, message: dict[str, Any]) -> None:
        if on == topic:
            states.append(seq)
            if len(states) == 2:
                return
        real(hub, on, seq, message)

    monkeypatch.setattr(fanout.Hub, "deliver", lossy)
    reads: list[int] = []
    build = draw_selectors.display_state

    def counted(*, room_id: int) -> dict[str, Any]:
        reads.append(room_id)
        return build(room_id=room_id)

    monkeypatch.setattr(draw_selectors, "display_state", counted)

    def draw(position: int) -> int:
        return draw_services.game_draw_ball(game=game, user=hall.caller, position=position).number

    async def scenario() -> tuple[list[dict[str, Any]], int]:
        display = Socket(display_path(hall))
        await display.connect()
        await display.message()
        await asyncio.sleep(1)  # the read each connect schedules is done
        # Ball 1's state seen before ball 2 is drawn: each state is read when it is sent, and a
        # slow machine would otherwise send ball 1's after ball 2 was in.
        balls = [await sync_to_async(draw)(1)]
        seen = [await display.message()]
        balls += [await sync_to_async(draw)(p) for p in (2, 3)]
        seen.append(await display.message())
        before = len(reads)
        await asyncio.sleep(1)  # the read the gap asked for (DISPLAY_REFRESH_SECONDS later)
        read_again = len(reads) - before
        assert await display.nothing()  # nothing new in it: the display already shows ball 3
        await display.close()
        assert [state["game"]["last"] for state in seen] == [balls[0], balls[2]]
        return seen, read_again

    seen, read_again = async_to_sync(scenario)()

    assert [state["game"]["count"] for state in seen] == [1, 3]
    assert seen[-1]["game"]["balls"] == list(seen[-1]["game"]["balls"])
    assert read_again == 1  # one read for the room's displays of this process


def test_the_notices_of_many_processes_within_one_window_go_out_once(layer: BaseChannelLayer) -> None:
    """``publish_notice``: with Redis, one notice per topic and window for all the processes
    (each process a sending thread of its own, with its own loop and connections); a dropped
    notice takes no sequence number, so what follows comes in sequence and nobody resyncs."""
    if not isinstance(layer, RedisChannelLayer):
        pytest.skip("the in-memory layer serves one process, whose callers space their notices")
    topic = "test-topic.notices"
    processes = [fanout._SendingThread() for _ in range(6)]

    async def scenario() -> tuple[list[Any], bool]:
        (socket,) = await _connect(topic, 1)

        def send_all() -> None:
            for n, process in enumerate(processes):
                process.sender.hand(topic, {"notice": n}, 5.0)
                process.sender.flush(5)
            processes[-1].sender.hand(topic, {"after": True})  # not a notice: always goes
            processes[-1].sender.flush(5)

        await sync_to_async(send_all)()
        heard = [await socket.receive_json_from(5), await socket.receive_json_from(5)]
        quiet = await socket.receive_nothing(0.2)
        await socket.disconnect()
        return heard, quiet

    try:
        heard, quiet = async_to_sync(scenario)()
    finally:
        for process in processes:
            process.sender.loop.call_soon_threadsafe(process.sender.loop.stop)

    assert heard == [{"notice": 0}, {"after": True}]  # no {"resync": ...}: no gap
    assert quiet


def test_a_quiet_hub_sends_each_listener_one_heartbeat_through_the_layer(
    layer: BaseChannelLayer, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no news, every listener hears ``live.heartbeat`` each interval — once, however many
    topics it follows — and it comes through the channel layer (what a ball needs), so a page
    whose hub cannot read its channel hears nothing and says it is reconnecting (live.js)."""
    settings.LIVE_HEARTBEAT_SECONDS = 0.2
    through_layer: list[dict[str, Any]] = []
    send = layer.send

    async def spy(channel: str, message: dict[str, Any]) -> None:
        through_layer.append(message)
        await send(channel, message)

    monkeypatch.setattr(layer, "send", spy)

    async def scenario() -> tuple[list[Any], list[Any], bool]:
        one = WebsocketCommunicator(Listener.as_asgi(), "/test-topic.beat-a/")
        assert (await one.connect())[0]
        two = WebsocketCommunicator(Listener.as_asgi(), "/test-topic.beat-b/")
        assert (await two.connect())[0]
        first = [await one.receive_json_from(2), await one.receive_json_from(2)]
        second = [await two.receive_json_from(2)]
        await one.disconnect()
        await two.disconnect()
        # No listener left: the hub stops beating.
        before = len(through_layer)
        await asyncio.sleep(0.5)
        return first, second, len(through_layer) == before

    first, second, stopped = async_to_sync(scenario)()

    assert first == [{"type": "live.heartbeat", "every": 0.2}] * 2
    assert second == [{"type": "live.heartbeat", "every": 0.2}]
    assert {"type": "live.heartbeat"} in through_layer
    assert stopped


def test_a_hub_that_cannot_read_its_channel_sends_no_heartbeat(
    layer: BaseChannelLayer, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The heartbeat proves the hub reads the layer: when the layer's receive hangs (Redis gone
    quiet), the page hears nothing, which is what turns its badge to «A restabelecer…»."""
    settings.LIVE_HEARTBEAT_SECONDS = 0.1

    async def never(channel: str) -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    monkeypatch.setattr(layer, "receive", never)

    async def scenario() -> bool:
        socket = WebsocketCommunicator(Listener.as_asgi(), "/test-topic.deaf/")
        assert (await socket.connect())[0]
        quiet = await socket.receive_nothing(0.6)
        await socket.disconnect()
        return bool(quiet)

    assert async_to_sync(scenario)()


def test_a_heartbeat_waits_behind_the_messages_already_queued() -> None:
    """A stalled listener gets one heartbeat at most in its queue, after what it waits for."""
    listener = Listener()
    listener._topics = {"t"}
    beat = fanout._Delivery({"type": fanout.HEARTBEAT_TYPE, "every": 10.0})
    message = fanout._Delivery({"n": 1})

    listener._topic_put("t", message)
    listener._topic_put(fanout.HEARTBEAT_TYPE, beat)
    listener._topic_put(fanout.HEARTBEAT_TYPE, beat)

    queued = [(topic, delivery) for topic, delivery, _ in listener._topic_queue or []]
    assert queued == [("t", message), (fanout.HEARTBEAT_TYPE, beat)]
