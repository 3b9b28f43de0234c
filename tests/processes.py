"""The tests that start real processes (uvicorn, `make up`, `manage.py runlocal`): a free port, the
uvicorn command, the wait until a process serves, its stop, and a login through the form."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from http.client import HTTPResponse
from pathlib import Path

import pytest

#: The repository: the processes run from there.
ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port of ``HOST`` nobody listens on (the system's pick)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def uvicorn(port: int, *flags: str) -> list[str]:
    """The command serving ``bingo.asgi:application`` with uvicorn on ``HOST:port``, then ``flags``."""
    return [
        *(sys.executable, "-m", "uvicorn", "bingo.asgi:application"),
        *("--host", HOST, "--port", str(port), *flags),
    ]


def serve(port: int, *flags: str) -> list[str]:
    """The command serving the application as `make serve` and the Procfile do (bingo/serve.py:
    uvicorn workers on ``HOST:port``, the connections handed out evenly), then ``flags``."""
    return [*(sys.executable, "-m", "bingo.serve"), *("--host", HOST, "--port", str(port), *flags)]


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def command_line(pid: int) -> str:
    """The command line process ``pid`` was started with."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (is there and not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_until_serving(
    process: subprocess.Popen[bytes],
    answer: Callable[[], object],
    output: Callable[[], str],
    *,
    timeout: float,
    failure: str = "uvicorn did not start",
    pause: float = 0.2,
) -> None:
    """Call ``answer()`` (a request, a connection) until it raises no ``OSError``: the process
    serves. Fails the test with ``failure`` and the process's ``output()`` if the process ends or
    ``timeout`` seconds pass first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            answer()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{failure}:\n{output()}")
            time.sleep(pause)


def stop(process: subprocess.Popen[bytes], timeout: float = 15) -> None:
    """Terminate ``process`` and wait for it; killed if it is still there after ``timeout`` s."""
    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


def log_in_through_form(
    opener: urllib.request.OpenerDirector, base: str, username: str, password: str
) -> HTTPResponse:
    """Log in through the login form at ``base`` (its CSRF token read from the page first) as a
    browser would, with ``opener``'s cookies; the answer, after the redirects, unread."""
    page = opener.open(f"{base}/entrar/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token is not None
    form = {"csrfmiddlewaretoken": token[1], "username": username, "password": password}
    return opener.open(f"{base}/entrar/", data=urllib.parse.urlencode(form).encode(), timeout=10)
