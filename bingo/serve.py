"""Serve the ASGI application with several uvicorn worker processes on one port, each accepting
on a listening socket of its own, so that the kernel spreads the connections over the workers.

``uvicorn --workers N`` binds one socket and every worker accepts from it. Linux wakes the
processes waiting on one socket last in, first out, so the worker that accepted last accepts
again: of a bench's 32 players' keep-alive connections, all 32 went to one of two workers while
the other idled (issue 23). Here each worker gets a socket of its own on the same address,
bound with ``SO_REUSEPORT``, and the kernel hands each new connection to one of them by a hash
of its addresses: the workers share the connections, not one socket.

    python -m bingo.serve --workers 2 --host 127.0.0.1 --port 8001 [uvicorn options…]

Every other option goes to each uvicorn as given (``--no-proxy-headers``,
``--ws-per-message-deflate false``, …). One worker, or a system without ``SO_REUSEPORT``, is
plain uvicorn. A worker that dies is started again on its socket after a second (connections
that arrive meanwhile wait in that socket's queue); SIGTERM or SIGINT stops the workers, each
finishing what it serves as uvicorn does, and then this process.
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType
from typing import Any

logger = logging.getLogger("bingo.serve")

#: The application each worker serves.
APPLICATION = "bingo.asgi:application"
#: Seconds before a worker that died is started again.
RESTART_DELAY = 1.0
#: Seconds a stopping worker gets to finish before it is killed.
STOP_TIMEOUT = 30.0
#: A worker ending this soon after its start counts as one that could not start…
EARLY_EXIT_SECONDS = 10.0
#: …and this many such ends in a row stop the server.
EARLY_EXITS_MAX = 3
#: Linux's prctl option: the signal a process gets when its parent ends.
PR_SET_PDEATHSIG = 1
#: uvicorn's options that choose where it listens: this program's to choose.
LISTEN_OPTIONS = ("--fd", "--uds", "--reload", "--workers")


def _address(host: str, port: int) -> tuple[socket.AddressFamily, Any]:
    """The family and address ``host:port`` names (IPv4 or IPv6)."""
    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    return family, address


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` beside the other workers' (``SO_REUSEPORT``), with
    Nagle's algorithm off (``TCP_NODELAY``), which Linux passes on to every connection it
    accepts. uvicorn takes a socket given by ``--fd`` for a Unix one, and asyncio then leaves
    Nagle on for what it accepts: each answer's body, written after its headers, waited for the
    client's delayed acknowledgement of them, 40 ms (issue 23)."""
    family, address = _address(host, port)
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(address)
    listener.listen(socket.SOMAXCONN)
    listener.set_inheritable(True)
    return listener


def _port_free_check(parser: argparse.ArgumentParser, host: str, port: int) -> None:
    """Refuse a port another server listens on: SO_REUSEPORT would let this one share it (with
    a second `make serve`, or workers left by a killed one) instead of saying it is taken."""
    family, address = _address(host, port)
    with socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                parser.error(f"{host}:{port} is in use: another server listens there")
            raise


def _uvicorn(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "uvicorn", APPLICATION, *arguments]


def _die_with_parent() -> None:
    """In a worker, before uvicorn starts: end when this supervisor ends, however it ends, so no
    worker is left serving on the port (Linux's PR_SET_PDEATHSIG)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Workers:
    """The worker processes, one per socket, kept running until ``stop``. A worker that keeps
    ending within ``EARLY_EXIT_SECONDS`` of its start (``EARLY_EXITS_MAX`` times in a row: it
    cannot start, e.g. the static files were not collected) stops them all, with an error."""

    def __init__(self, sockets: Sequence[socket.socket], options: Sequence[str]) -> None:
        self.sockets = list(sockets)
        self.options = list(options)
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.started: dict[int, float] = {}
        self.early_exits = 0
        self.stopping = False
        self.failed = False

    def start(self, index: int) -> None:
        fd = self.sockets[index].fileno()
        command = _uvicorn("--fd", str(fd), *self.options)
        self.started[index] = time.monotonic()
        self.processes[index] = subprocess.Popen(  # noqa: S603 - this program's own command
            command, pass_fds=(fd,), preexec_fn=_die_with_parent
        )

    def stop(self, *_: object) -> None:
        self.stopping = True
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()

    def _ended(self, index: int, process: subprocess.Popen[bytes]) -> None:
        if time.monotonic() - self.started[index] < EARLY_EXIT_SECONDS:
            self.early_exits += 1
        else:
            self.early_exits = 0
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
        delay = RESTART_DELAY * 2**self.early_exits
        logger.warning(
            "worker %s ended (%s); starting another in %g s", process.pid, process.returncode, delay
        )
        time.sleep(delay)
        if not self.stopping:
            self.start(index)

    def run(self) -> int:
        for index in range(len(self.sockets)):
            if not self.stopping:
                self.start(index)
        while not self.stopping:
            time.sleep(0.2)
            for index, process in list(self.processes.items()):
                if process.poll() is not None and not self.stopping:
                    self._ended(index, process)
        self.stop()  # again: a worker started while the stop signal came is stopped too
        deadline = time.monotonic() + STOP_TIMEOUT
        for process in self.processes.values():
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return 1 if self.failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bingo.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "2")))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    args, options = parser.parse_known_args(argv)
    logging.basicConfig(format="bingo.serve: %(message)s")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.workers == 1 or not hasattr(socket, "SO_REUSEPORT"):
        # One process (or no way to give each its own socket): uvicorn as it is.
        shared = ["--workers", str(args.workers)] if args.workers > 1 else []
        command = _uvicorn("--host", args.host, "--port", str(args.port), *shared, *options)
        os.execv(command[0], command)  # noqa: S606 - uvicorn with this program's own arguments
    if args.port == 0:
        parser.error("--port 0 would give each worker a port of its own: name the port")
    taken = [option for option in options if option.split("=", 1)[0] in LISTEN_OPTIONS]
    if taken:
        parser.error(f"{', '.join(taken)}: bingo.serve chooses where its workers listen")
    _port_free_check(parser, args.host, args.port)
    sockets = [listening_socket(args.host, args.port) for _ in range(args.workers)]
    workers = Workers(sockets, options)

    def stop(signum: int, frame: FrameType | None) -> None:
        workers.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    return workers.run()


if __name__ == "__main__":
    sys.exit(main())
