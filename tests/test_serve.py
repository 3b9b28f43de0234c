"""``python -m bingo.serve`` (bingo/serve.py, `make serve` and the Procfile's web process): several
uvicorn workers on one port, the connections it accepts handed out evenly, in turn, to the worker
holding fewer than the others (issue 23); a worker that dies comes back; SIGTERM stops all.

Which worker holds a connection is read from the system: the sockets each worker process has
open (/proc/<pid>/fd) against the established connections on the port (/proc/net/tcp)."""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import HOST, ROOT, alive, children_of, free_port, serve, stop

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


def _wait_for_workers_serving(log: Path, count: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while log.read_text().count("serving what bingo.serve hands it") < count:
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    with _serving(tmp_path, "--no-proxy-headers", "--ws-per-message-deflate", "false") as process:
        yield process


@contextlib.contextmanager
def _serving(tmp_path: Path, *flags: str, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """bingo.serve with two workers and ``flags`` on a free port, both workers started (its port
    and log on the process), stopped at the end."""
    port, log = free_port(), tmp_path / "serve.log"
    command = serve(port, "--workers", "2", "--lifespan", "off", *flags)
    with log.open("w") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env=_env(BINGO_VAR_DIR=str(tmp_path / "var"), **env),
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    process.port = port  # type: ignore[attr-defined]
    process.log = log  # type: ignore[attr-defined]
    try:
        # Both workers up: each has loaded the application and takes connections.
        _wait_for_workers_serving(log, 2)
        yield process
    finally:
        stop(process)


def _open(port: int, count: int) -> list[http.client.HTTPConnection]:
    connections = [http.client.HTTPConnection(HOST, port, timeout=10) for _ in range(count)]
    assert {_get(connection) for connection in connections} == {200}
    return connections


def _held(served: subprocess.Popen[bytes]) -> dict[int, int]:
    """Connections to the server each worker holds."""
    inodes = _established_inodes(served.port)  # type: ignore[attr-defined]
    return {pid: _held_by(pid, inodes) for pid in children_of(served.pid)}


def test_the_workers_share_the_connections_evenly(served: subprocess.Popen[bytes]) -> None:
    """Connections are handed out in turn: 24 give 12 and 12. uvicorn --workers 2 put all 32 of a
    bench's on one worker, and a socket per worker (SO_REUSEPORT) 21 and 11 as often as not."""
    port: int = served.port  # type: ignore[attr-defined]
    connections = _open(port, CONNECTIONS)
    try:
        held = _held(served)
        assert len(held) == 2, held
        assert sorted(held.values()) == [CONNECTIONS // 2] * 2, held
        # All closed and as many opened again at once (as the bench's players do between loads,
        # or browsers after the keep-alive ends): even again.
        for connection in connections:
            connection.close()
        connections = _open(port, CONNECTIONS)
        held = _held(served)
        assert sorted(held.values()) == [CONNECTIONS // 2] * 2, held
    finally:
        for connection in connections:
            connection.close()


def test_a_worker_left_with_fewer_connections_is_given_the_new_ones(
    served: subprocess.Popen[bytes],
) -> None:
    """Connections close on one worker only: the new ones go to it until the two are even,
    within the slack (bingo/serve.py, SLACK), rather than in turn."""
    from bingo.serve import SLACK

    port: int = served.port  # type: ignore[attr-defined]
    connections = _open(port, 2 * (SLACK + 8))
    try:
        inodes = _established_inodes(port)
        first = children_of(served.pid)[0]
        mine = {
            connection for connection in connections if connection.sock and _owns(first, connection, inodes)
        }
        for connection in mine:
            connection.close()
        time.sleep(0.5)  # the worker tells the supervisor as each closes
        assert _held(served)[first] == 0
        connections = [c for c in connections if c not in mine] + _open(port, len(mine))
        held = _held(served)
        assert abs(held[first] - max(held.values())) <= SLACK, held
        assert held[first] >= len(mine) - SLACK, held
    finally:
        for connection in connections:
            connection.close()


def _owns(pid: int, connection: http.client.HTTPConnection, inodes: set[str]) -> bool:
    """Whether worker ``pid`` holds the server's end of ``connection`` (matched by port)."""
    client_port = connection.sock.getsockname()[1]
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[2].rsplit(":", 1)[1], 16) == client_port and fields[9] in inodes:
            return _held_by(pid, {fields[9]}) == 1
    return False


def test_a_worker_keeps_no_socket_of_a_closed_connection(served: subprocess.Popen[bytes]) -> None:
    port: int = served.port  # type: ignore[attr-defined]
    workers = children_of(served.pid)
    for connection in _open(port, CONNECTIONS):  # each worker's own first use (its files, threads)
        connection.close()
    time.sleep(0.5)
    before = {pid: len(list(Path(f"/proc/{pid}/fd").iterdir())) for pid in workers}
    for connection in _open(port, CONNECTIONS):
        connection.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        after = {pid: len(list(Path(f"/proc/{pid}/fd").iterdir())) for pid in workers}
        if after == before:
            break
        time.sleep(0.1)
    assert after == before


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


def test_the_workers_end_with_the_server_however_it_ends(served: subprocess.Popen[bytes]) -> None:
    """Killed outright, the server leaves no worker behind (PR_SET_PDEATHSIG, and the channel
    it hands connections on closing): the port is free again."""
    port: int = served.port  # type: ignore[attr-defined]
    workers = children_of(served.pid)
    assert len(workers) == 2
    served.kill()
    served.wait(10)
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while [pid for pid in workers if alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if alive(pid)]
    with socket.socket() as probe:
        probe.bind((HOST, port))


def test_a_worker_speaks_tls_when_told_to(tmp_path: Path) -> None:
    """uvicorn's TLS options reach the connections bingo.serve hands over (behind a proxy TLS
    ends there, but a worker may be given its own certificate)."""
    import ssl

    key, certificate = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(certificate)],
        check=True, capture_output=True,
    )  # fmt: skip
    with _serving(tmp_path, "--ssl-keyfile", str(key), "--ssl-certfile", str(certificate)) as process:
        context = ssl.create_default_context(cafile=str(certificate))
        for _ in range(4):  # both workers
            connection = http.client.HTTPSConnection(HOST, process.port, timeout=10, context=context)  # type: ignore[attr-defined]
            assert _get(connection) == 200
            connection.close()


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
    """A second server must not share the port silently: bingo.serve says it is
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


def test_workers_retiring_by_their_request_limit_are_replaced_and_no_connection_is_lost(
    tmp_path: Path,
) -> None:
    """uvicorn's --limit-max-requests ends a worker after so many requests: bingo.serve starts
    another at once (it had served: not a failed start), and connections handed to a worker as
    it stops come back to be handed to another (bingo/serve.py, STOPPING), none reset."""
    with _serving(tmp_path, "--limit-max-requests", "5") as process:
        port: int = process.port  # type: ignore[attr-defined]
        log: Path = process.log  # type: ignore[attr-defined]
        statuses = []
        for _ in range(60):
            connection = http.client.HTTPConnection(HOST, port, timeout=10)
            try:
                statuses.append(_get(connection, "/entrar/"))  # a page: uvicorn counts no streamed file
            except OSError as exc:
                statuses.append(repr(exc))  # type: ignore[arg-type]
            finally:
                connection.close()
        assert statuses == [200] * 60, statuses
        assert process.poll() is None, log.read_text()
        assert log.read_text().count("Maximum request limit of 5 exceeded") >= 2
        assert log.read_text().count("serving what bingo.serve hands it") >= 4  # replaced


def test_uvicorns_own_environment_does_not_move_the_workers(tmp_path: Path) -> None:
    """WEB_CONCURRENCY (and UVICORN_*) would make each worker's uvicorn a manager of its own on
    port 8000: bingo.serve's workers do not see them."""
    with _serving(tmp_path, WEB_CONCURRENCY="2", UVICORN_PORT="1") as process:
        assert _get(http.client.HTTPConnection(HOST, process.port, timeout=10)) == 200  # type: ignore[attr-defined]
        assert "Uvicorn running on" not in process.log.read_text()  # type: ignore[attr-defined]


def test_the_stop_waits_as_long_as_uvicorn_is_told_to() -> None:
    from bingo.serve import STOP_TIMEOUT, Workers

    with socket.socket() as listener:
        assert Workers(listener, 1, ["--timeout-graceful-shutdown", "60"]).stop_timeout == 65
        assert Workers(listener, 1, ["--timeout-graceful-shutdown=2"]).stop_timeout == 7
        assert Workers(listener, 1, ["--lifespan", "off"]).stop_timeout == STOP_TIMEOUT
