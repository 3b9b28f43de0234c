"""Serve the ASGI application with several uvicorn worker processes on one port, the connections
shared out evenly: this process listens and accepts, and hands each connection to a worker in
turn, which serves it with uvicorn as if it had accepted it itself.

    python -m bingo.serve --workers 2 --host 127.0.0.1 --port 8001 [uvicorn options…]

Why not let the workers accept (issue 23):

- ``uvicorn --workers N`` binds one socket and every worker accepts from it. Linux wakes the
  processes waiting on one socket last in, first out, and the one woken takes every connection
  waiting: of a bench's 32 players' keep-alive connections, all 32 went to one of two workers
  while the other idled.
- A socket per worker on the same port (``SO_REUSEPORT``, as this program did before) spreads
  them by a hash of their addresses: 21 on one worker and 11 on the other came as often as an
  even split, and the players on the busier one waited nearly twice as long.

Here a connection goes, as it is accepted, to the next worker in turn, unless that one holds more
than ``SLACK`` (or a quarter) above the least loaded, as each worker said when a connection
closed, plus those handed to it since. It goes over a Unix socket (the file descriptor passed
with ``SCM_RIGHTS``), and the worker's uvicorn serves it from the first byte, with the options
given. A worker takes connections once it has started (its application loaded), and is passed
over while those handed to it stay untaken (its loop stuck). A worker that dies is started again
after a second, one that ends by itself (``--limit-max-requests``) at once, and the others take
the new connections meanwhile; a stopping worker says so first, and hands back any connection
handed to it meanwhile. Workers that end before they start, three times in a row, stop the
server with status 1. SIGTERM or SIGINT stops the accepting, then the workers, each finishing
what it serves as uvicorn does, then this process. The workers end with it, however it ends.
One worker, or a system without Unix sockets' ``SCM_RIGHTS``, is plain uvicorn.

Every option but where to listen goes to each uvicorn as given (``--no-proxy-headers``,
``--ws-per-message-deflate false``, …).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import errno
import functools
import importlib
import logging
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any

logger = logging.getLogger("bingo.serve")

#: The application each worker serves.
APPLICATION = "bingo.asgi:application"
#: Seconds before a worker that died is started again (doubled for each early end in a row).
RESTART_DELAY = 1.0
#: Seconds a stopping worker gets to finish before it is killed.
STOP_TIMEOUT = 30.0
#: Workers ending before they start (said their load), this many in a row, stop the server.
EARLY_EXITS_MAX = 3
#: Linux's prctl option: the signal a process gets when its parent ends.
PR_SET_PDEATHSIG = 1
#: uvicorn's options that choose where it listens: this program's to choose.
LISTEN_OPTIONS = ("--fd", "--uds", "--reload", "--workers")
#: A worker's report of its load: connections open, connections received so far.
REPORT = struct.Struct("=QQ")
#: The other messages on a worker's channel. To the worker: a connection (with its file
#: descriptor), and the answer to its STOPPING (none will come after). From it: it is stopping
#: (hand it no more), and a connection it got as it stopped, handed back (with the descriptor).
CONNECTION, STOPPED_HANDING, STOPPING, RETURNED = b"c", b"a", b"s", b"r"
#: Seconds a stopping worker waits for the supervisor to say it will hand it no more.
STOPPING_WAIT = 2.0
#: Seconds a stopping worker gives the connections just handed to it to start their request.
FIRST_REQUEST_WAIT = 0.05
#: A worker that has not taken the connections handed to it for this long is passed over.
STALLED_SECONDS = 0.5
#: The environment that would make a worker's uvicorn listen elsewhere, or start workers itself.
LISTEN_ENVIRONMENT = ("UVICORN_FD", "UVICORN_UDS", "UVICORN_RELOAD", "UVICORN_WORKERS", "WEB_CONCURRENCY")
#: A worker holding more connections than the least loaded by this many (or a quarter, if more)
#: is passed over in turn.
SLACK = 8
#: Seconds between the supervisor's looks at its workers (ended? due a restart?).
TICK = 0.2


def listening_socket(host: str, port: int) -> socket.socket:
    """The socket listening on ``host:port`` (IPv4 or IPv6), with Nagle's algorithm off
    (``TCP_NODELAY``), which Linux passes on to every connection accepted from it: a worker's
    answer's body, written after its headers, would otherwise wait for the client's delayed
    acknowledgement of them, 40 ms (issue 23)."""
    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind(address)
        listener.listen(socket.SOMAXCONN)
    except BaseException:
        listener.close()
        raise
    return listener


def _graceful_timeout(options: Sequence[str]) -> float | None:
    """uvicorn's ``--timeout-graceful-shutdown`` among ``options``, if given."""
    for n, option in enumerate(options):
        name, _, value = option.partition("=")
        if name == "--timeout-graceful-shutdown":
            given = value or (options[n + 1] if n + 1 < len(options) else "")
            with contextlib.suppress(ValueError):
                return float(given)
    return None


def _uvicorn(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "uvicorn", APPLICATION, *arguments]


def _die_with_parent() -> None:
    """In a worker, before uvicorn starts: end when this supervisor ends, however it ends, so no
    worker is left behind (Linux's PR_SET_PDEATHSIG)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


# --- the supervisor ---------------------------------------------------------------------------


@dataclass
class Load:
    """What the supervisor knows of one worker's load."""

    #: Connections open, as the worker last said (None: it has not said yet, it is starting).
    open: int | None = None
    #: Connections the worker had received when it said so.
    received: int = 0
    #: Connections handed to it.
    sent: int = 0
    #: When it last said its load (time.monotonic()).
    heard_at: float = 0.0
    #: It said it is stopping: it takes no more connections.
    stopping: bool = False

    def ready(self) -> bool:
        return self.open is not None and not self.stopping

    def estimate(self) -> int:
        return (self.open or 0) + max(0, self.sent - self.received)

    def stalled(self, now: float) -> bool:
        """Connections handed to it and nothing heard from it for a while: its loop is stuck."""
        return self.sent > self.received and now - self.heard_at > STALLED_SECONDS


class Workers:
    """The listening socket and the worker processes, kept running until ``stop``."""

    def __init__(self, listener: socket.socket, count: int, options: Sequence[str]) -> None:
        self.listener = listener
        self.count = count
        self.options = list(options)
        graceful = _graceful_timeout(options)  # uvicorn's own, and a margin to end in
        self.stop_timeout = STOP_TIMEOUT if graceful is None else graceful + 5.0
        self.environment = {k: v for k, v in os.environ.items() if k not in LISTEN_ENVIRONMENT}
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.channels: dict[int, socket.socket] = {}
        self.loads: dict[int, Load] = {}
        self.restart_at: dict[int, float] = {}
        self.selector = selectors.DefaultSelector()
        #: The workers that have started (said their load once) since their process started.
        self.served: dict[int, bool] = {}
        self.returned: list[int] = []
        self.accepting = False
        self.last_handed = -1
        self.early_exits = 0
        self.stopping = False
        self.failed = False

    # -- workers

    def start(self, index: int) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        with theirs:
            command = [
                *(sys.executable, "-m", "bingo.serve", "--worker-channel", str(theirs.fileno())),
                *self.options,
            ]
            self.processes[index] = subprocess.Popen(  # noqa: S603 - this program's own command
                command, pass_fds=(theirs.fileno(),), preexec_fn=_die_with_parent, env=self.environment
            )
        self.channels[index] = ours
        self.loads[index] = Load(heard_at=time.monotonic())
        self.selector.register(ours, selectors.EVENT_READ, index)

    def _close_channel(self, index: int) -> None:
        channel = self.channels.pop(index, None)
        self.loads.pop(index, None)
        if channel is not None:
            self.selector.unregister(channel)
            channel.close()
        self._accept_when_ready()

    def _ended(self, index: int, process: subprocess.Popen[bytes]) -> None:
        served = self.served.pop(index, False)
        del self.processes[index]
        self._close_channel(index)
        if self.stopping:
            return
        if served:
            # It had started: ended by its own choice (--limit-max-requests, status 0: at once)
            # or by a fault (after a second).
            self.early_exits = 0
            delay = 0.0 if process.returncode == 0 else RESTART_DELAY
        else:
            self.early_exits += 1
            delay = RESTART_DELAY * 2**self.early_exits
        if self.early_exits >= EARLY_EXITS_MAX:
            logger.error(
                "worker %s ended (%s) %d times in a row as it started: stopping",
                process.pid,
                process.returncode,
                self.early_exits,
            )
            self.failed = True
            self.stop()
            return
        if delay:
            logger.warning(
                "worker %s ended (%s); starting another in %g s", process.pid, process.returncode, delay
            )
        self.restart_at[index] = time.monotonic() + delay

    def _look_after(self) -> None:
        for index, process in list(self.processes.items()):
            if process.poll() is not None:
                self._ended(index, process)
        now = time.monotonic()
        for index, due in list(self.restart_at.items()):
            if due <= now and not self.stopping:
                del self.restart_at[index]
                self.start(index)

    def _heard(self, index: int) -> None:
        """What a worker said: its load; that it is stopping (answered: nothing more will come);
        a connection handed back as it stopped; nothing (its end closed): it is ending."""
        channel, load = self.channels[index], self.loads[index]
        while True:
            try:
                data, fds, _flags, _address = socket.recv_fds(channel, REPORT.size, 1)
            except BlockingIOError:
                return
            except OSError:
                data, fds = b"", []
            if len(data) == REPORT.size:
                load.open, load.received = REPORT.unpack(data)
                load.heard_at = time.monotonic()
                self.served[index] = True
            elif data == STOPPING:
                load.stopping = True
                with contextlib.suppress(OSError):
                    channel.send(STOPPED_HANDING)
            elif data == RETURNED:
                self.returned.extend(fds)
            else:  # it is ending; its end is seen to in _look_after
                for fd in fds:
                    os.close(fd)
                self._close_channel(index)
                return
            self._accept_when_ready()

    # -- connections

    def _accept_when_ready(self) -> None:
        """Accept while some worker has started (said its load once); otherwise leave new
        connections waiting in the listening socket's queue."""
        ready = not self.stopping and any(load.ready() for load in self.loads.values())
        if ready and not self.accepting:
            self.selector.register(self.listener, selectors.EVENT_READ, None)
        elif self.accepting and not ready:
            self.selector.unregister(self.listener)
        self.accepting = ready

    def _accept(self) -> None:
        while self.accepting:  # no longer once the last ready worker is gone
            try:
                connection, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionAbortedError:
                continue
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    logger.error("cannot accept a connection: %s", exc)
                    time.sleep(TICK)  # the queue stays readable: give the system a moment
                    return
                raise
            with connection:  # the worker has its own copy once handed
                self._hand(connection)

    def _hand(self, connection: socket.socket) -> None:
        """Hand ``connection`` to the next worker in turn, passing over one holding more than
        ``SLACK`` connections above the least loaded, or stalled."""
        for index in list(self.channels):  # what the workers said since, as late as can be
            self._heard(index)
        ready = sorted(index for index, load in self.loads.items() if load.ready())
        if not ready:
            logger.warning("no worker could take a connection: closed")
            return
        now = time.monotonic()
        least = min(self.loads[index].estimate() for index in ready)
        start = next((n for n, index in enumerate(ready) if index > self.last_handed), 0)
        in_turn = ready[start:] + ready[:start]
        slack = max(SLACK, least // 4)
        light = [
            index
            for index in in_turn
            if self.loads[index].estimate() <= least + slack and not self.loads[index].stalled(now)
        ]
        heavy = [index for index in in_turn if index not in light]
        for index in light + heavy:
            try:
                socket.send_fds(self.channels[index], [CONNECTION], [connection.fileno()])
            except OSError:  # its channel is full (the worker is stuck) or it is ending
                continue
            self.loads[index].sent += 1
            self.last_handed = index
            return
        logger.warning("no worker could take a connection: closed")

    def _hand_returned(self) -> None:
        """Hand on the connections a stopping worker handed back, once a worker can take them
        (closed if this one is stopping)."""
        while self.returned and (self.stopping or self.accepting):
            with socket.socket(fileno=self.returned.pop(0)) as connection:
                if not self.stopping:
                    self._hand(connection)

    # -- the loop

    def stop(self, *_: object) -> None:
        self.stopping = True
        self._accept_when_ready()  # no more: the connections left wait in the queue, closed with it
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()

    def run(self) -> int:
        self.listener.setblocking(False)
        for index in range(self.count):
            self.start(index)
        while not self.stopping:
            ready = self.selector.select(TICK)
            # The workers' news first (a connection closed), then the new connections.
            for key, _events in sorted(ready, key=lambda found: found[0].data is None):
                if self.stopping:
                    break
                if key.data is None:
                    if self.accepting:
                        self._accept()
                elif key.data in self.channels:
                    self._heard(key.data)
            self._hand_returned()
            self._look_after()
        self._accept_when_ready()  # stopping: no more
        self.listener.close()
        self.stop()  # again: a worker started while the stop signal came is stopped too
        deadline = time.monotonic() + self.stop_timeout
        for process in self.processes.values():
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for index in list(self.channels):
            self._close_channel(index)
        self._hand_returned()  # stopping: closes them
        return 1 if self.failed else 0


# --- a worker ---------------------------------------------------------------------------------


def _telling(protocol: type, tell: Callable[[], None]) -> type:
    """uvicorn's HTTP ``protocol``, calling ``tell`` as a connection closes (a websocket's
    protocol, which takes over its connection, is told of on the server's next tick)."""

    class Telling(protocol):  # type: ignore[misc]
        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            tell()

    return Telling


# The supervisor never imports uvicorn: the class is made where it is, in the worker.
# long: one class, uvicorn's Server with the worker's side of the channel; its methods are short
def _handed_server(channel: socket.socket) -> type:
    """uvicorn's Server, serving the connections the supervisor hands it on ``channel`` rather
    than accepting on a socket of its own, and telling it its load."""
    import uvicorn

    class HandedServer(uvicorn.Server):
        #: Connections handed so far; those not yet taken on by uvicorn; the load last told.
        handed = 0
        adopting = 0
        load_told: tuple[int, int] | None = None
        #: Stopping: the supervisor was told, and said it hands no more.
        stopping_told = False
        handing_stopped: asyncio.Event

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=[])  # the application's start; no socket to accept on
            if self.should_exit:
                return
            loop = asyncio.get_running_loop()
            self.handing_stopped = asyncio.Event()
            protocol = functools.partial(
                _telling(self.config.http_protocol_class, self._tell),
                config=self.config,
                server_state=self.server_state,
                app_state=self.lifespan.state,
            )
            loop.add_reader(channel.fileno(), self._take, loop, protocol)
            self._tell()  # started: the supervisor may hand it connections
            logging.getLogger("uvicorn.error").info(
                "Worker %d serving what bingo.serve hands it", os.getpid()
            )

        def _take(self, loop: asyncio.AbstractEventLoop, protocol: Any) -> None:
            while True:
                try:
                    data, fds, flags, _address = socket.recv_fds(channel, 1, 1)
                except BlockingIOError:
                    return
                except OSError:
                    data, fds, flags = b"", [], 0
                for fd in fds:
                    os.set_inheritable(fd, False)
                if data == STOPPED_HANDING:
                    self.handing_stopped.set()
                elif data == CONNECTION and self.stopping_told:
                    for fd in fds:  # handed as it stopped: back, for another worker
                        with contextlib.suppress(OSError):
                            socket.send_fds(channel, [RETURNED], [fd])
                        os.close(fd)
                elif data == CONNECTION:
                    self.handed += 1
                    if flags & socket.MSG_CTRUNC:  # the system closed it: no descriptor left here
                        logging.getLogger("uvicorn.error").error("A connection lost: no file descriptor left")
                    for fd in fds:
                        self.adopting += 1
                        loop.create_task(self._adopt(loop, protocol, socket.socket(fileno=fd)))
                elif not data:  # the supervisor is gone: stop now
                    loop.remove_reader(channel.fileno())
                    if self.stopping_told:
                        self.force_exit = True
                    self.should_exit = True
                    self.handing_stopped.set()
                    return

        async def _adopt(self, loop: asyncio.AbstractEventLoop, protocol: Any, sock: socket.socket) -> None:
            try:
                await loop.connect_accepted_socket(protocol, sock, ssl=self.config.ssl)
            except OSError:  # the client left already
                sock.close()
            finally:
                self.adopting -= 1
                self._tell()

        def _tell(self) -> None:
            load = (len(self.server_state.connections) + self.adopting, self.handed)
            if load != self.load_told:
                try:
                    channel.send(REPORT.pack(*load))
                except OSError:
                    return
                self.load_told = load

        async def on_tick(self, counter: int) -> bool:
            self._tell()  # websockets closed since (HTTP connections tell as they close)
            should_exit: bool = await super().on_tick(counter)
            return should_exit

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            # Hand me no more, and wait for the supervisor to say so: a connection handed
            # meanwhile goes back to it (_take). The channel stays read: its closing (the
            # supervisor killed) ends this worker at once.
            self.stopping_told = True
            with contextlib.suppress(OSError):
                channel.send(STOPPING)
            if hasattr(self, "handing_stopped"):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.handing_stopped.wait(), STOPPING_WAIT)
                # uvicorn closes the connections with no request under way: let those just
                # handed read the request their client sent with them, which is then answered.
                await asyncio.sleep(FIRST_REQUEST_WAIT)
            await super().shutdown(sockets=sockets)

    return HandedServer


def worker(channel_fd: int, options: Sequence[str]) -> None:
    """A worker: uvicorn's own command line (its options, logging, exit status), its server
    taking the connections handed on ``channel_fd``."""
    # The module: the package's ``uvicorn.main`` is its command, which hides it.
    command_line = importlib.import_module("uvicorn.main")
    channel = socket.socket(fileno=channel_fd)
    channel.setblocking(False)
    channel.set_inheritable(False)
    command_line.Server = _handed_server(channel)  # type: ignore[attr-defined]  # what uvicorn.run builds
    command_line.main.main(args=[APPLICATION, *options], prog_name="uvicorn")


# --- the command ------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bingo.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "2")))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--worker-channel", type=int, help=argparse.SUPPRESS)  # a worker, started by this
    args, options = parser.parse_known_args(argv)
    if args.worker_channel is not None:
        worker(args.worker_channel, options)
        return 0
    logging.basicConfig(format="bingo.serve: %(message)s", level=logging.INFO)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.workers == 1 or not hasattr(socket, "send_fds") or not hasattr(socket, "AF_UNIX"):
        # One process (or no way to hand connections over): uvicorn as it is.
        shared = ["--workers", str(args.workers)] if args.workers > 1 else []
        command = _uvicorn("--host", args.host, "--port", str(args.port), *shared, *options)
        os.execv(command[0], command)  # noqa: S606 - uvicorn with this program's own arguments
    taken = [option for option in options if option.split("=", 1)[0] in LISTEN_OPTIONS]
    if taken:
        parser.error(f"{', '.join(taken)}: bingo.serve chooses where its workers listen")
    try:
        listener = listening_socket(args.host, args.port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            parser.error(f"{args.host}:{args.port} is in use: another server listens there")
        raise
    host, port = listener.getsockname()[:2]
    logger.info("listening on %s:%d, %d workers", host, port, args.workers)
    workers = Workers(listener, args.workers, options)

    def stop(signum: int, frame: FrameType | None) -> None:
        workers.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    return workers.run()


if __name__ == "__main__":
    sys.exit(main())
