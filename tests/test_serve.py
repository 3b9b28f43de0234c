"""``python -m bingo.serve`` (bingo/serve.py, `make serve` and the Procfile's web process): several
uvicorn workers on one port, each accepting on its own socket, so connections are shared out
rather than piling on one worker (issue 23); a worker that dies comes back; SIGTERM stops all.

Which worker holds a connection is read from the system: the sockets each worker process has
open (/proc/<pid>/fd) against the established connections on the port (/proc/net/tcp)."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import HOST, ROOT, alive, children_of, free_port, serve, stop, wait_until_serving

START_TIMEOUT_SECONDS = 60
CONNECTIONS = 24


def _established_inodes(port: int) -> set[str]:
    """The inodes of the established TCP connections whose local port is ``port``."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].rsplit(":", 1)[1], 16)
        if local_port == port and fields[3] == "01":  # 01: ESTABLISHED
            inodes.add(fields[9])
    return inodes


def _held_by(pid: int, inodes: set[str]) -> int:
    held = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            held += 1
    return held


def _env(**more: str) -> dict[str, str]:
    """The servers' environment: debug on, SQLite (no database server), ``more``."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    return {**env, "DJANGO_DEBUG": "true", **more}


def _get(connection: http.client.HTTPConnection, path: str = "/static/css/app.css") -> int:
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    return response.status


@pytest.fixture
def served(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    port = free_port()
    log = tmp_path / "serve.log"
    env = _env(BINGO_VAR_DIR=str(tmp_path / "var"))
    command = serve(
        port, "--workers", "2", "--lifespan", "off", "--no-proxy-headers", "--ws-per-message-deflate", "false"
    )
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    process.port = port  # type: ignore[attr-defined]
    try:
        wait_until_serving(
            process,
            lambda: _get(http.client.HTTPConnection(HOST, port, timeout=5)),
            log.read_text,
            timeout=START_TIMEOUT_SECONDS,
            failure="bingo.serve did not start",
        )
        # Both workers up: each has imported the application and listens on its own socket.
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while len(children_of(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        yield process
    finally:
        stop(process)


def test_the_workers_share_the_connections(served: subprocess.Popen[bytes]) -> None:
    port: int = served.port  # type: ignore[attr-defined]
    connections = [http.client.HTTPConnection(HOST, port, timeout=10) for _ in range(CONNECTIONS)]
    try:
        assert {_get(connection) for connection in connections} == {200}
        inodes = _established_inodes(port)
        workers = children_of(served.pid)
        held = {pid: _held_by(pid, inodes) for pid in workers}
    finally:
        for connection in connections:
            connection.close()
    assert len(workers) == 2, workers
    assert sum(held.values()) == CONNECTIONS, held
    # Spread by a hash of each connection's addresses: 24 connections all but one on one worker
    # has a chance of about 3 in a million. uvicorn --workers 2 put all 32 of a bench's on one.
    assert min(held.values()) >= 2, held


def test_a_worker_that_dies_is_started_again(served: subprocess.Popen[bytes]) -> None:
    port: int = served.port  # type: ignore[attr-defined]
    first, second = children_of(served.pid)
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        workers = children_of(served.pid)
        if len(workers) == 2 and first not in workers:
            break
        time.sleep(0.2)
    assert len(workers) == 2, workers
    assert second in workers, workers
    assert first not in workers, workers
    # Every connection is answered meanwhile and after: the new worker accepts on the old socket.
    answered: list[int] = []
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while len(answered) < CONNECTIONS and time.monotonic() < deadline:
        answered.append(_get(http.client.HTTPConnection(HOST, port, timeout=10)))
    assert answered == [200] * CONNECTIONS


def test_sigterm_stops_every_worker(served: subprocess.Popen[bytes]) -> None:
    workers = children_of(served.pid)
    assert len(workers) == 2
    served.send_signal(signal.SIGTERM)
    assert served.wait(60) == 0
    assert not [pid for pid in workers if alive(pid)]


def test_a_workers_connections_send_at_once() -> None:
    """Nagle's algorithm is off on what a worker accepts: the listening socket says so, and
    Linux passes it on (uvicorn, given the socket by --fd, would not turn it off itself)."""
    from bingo.serve import listening_socket

    listener = listening_socket(HOST, free_port())
    try:
        client = socket.create_connection(listener.getsockname())
        accepted, _ = listener.accept()
        with client, accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        listener.close()


def test_answers_on_a_kept_connection_do_not_wait_for_acknowledgements(
    served: subprocess.Popen[bytes],
) -> None:
    """A worker writes an answer's headers, then its body: with Nagle on, the body waited for the
    client's delayed acknowledgement of the headers, 40 ms, on every request after a
    connection's first. Twenty answers on one connection: the fastest well under that."""
    port: int = served.port  # type: ignore[attr-defined]
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    took = []
    try:
        for _ in range(20):
            started = time.perf_counter()
            assert _get(connection) == 200
            took.append(time.perf_counter() - started)
    finally:
        connection.close()
    assert min(took[1:]) < 0.03, took


def _serve_briefly(*flags: str, port: int = 0, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        serve(port or free_port(), "--workers", "2", *flags),
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def test_a_port_another_server_listens_on_is_refused() -> None:
    """SO_REUSEPORT would let a second server share a port silently: bingo.serve says it is
    taken and starts nothing."""
    with socket.socket() as other:
        other.bind((HOST, 0))
        other.listen()
        done = _serve_briefly(port=other.getsockname()[1])
    assert done.returncode == 2
    assert "is in use" in done.stderr


def test_options_choosing_where_uvicorn_listens_are_refused() -> None:
    done = _serve_briefly("--uds", "/tmp/bingo.sock")
    assert done.returncode == 2
    assert "--uds" in done.stderr


def test_workers_that_cannot_start_stop_the_server_with_an_error() -> None:
    """A worker that ends as it starts, again and again (here: a logging file that is not there;
    in production, static files not collected), is not restarted for ever: the server stops,
    its exit status says so, and the port is free again."""
    done = _serve_briefly("--log-config", "/nonexistent/logging.ini")
    assert done.returncode == 1
    assert "times in a row as it started" in done.stderr
