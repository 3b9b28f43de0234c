"""The ASGI application (bingo/asgi.py) as uvicorn runs it: pages, static files, websockets.

The communicators are driven through ``async_to_sync`` from the test's thread; the views run on
a thread of the handler's own (bingo/asgi.py), with a database connection of its own, so the
tests commit what the requests must see: ``transactional_db`` (Django's ASGI handler also closes
stale connections at the end of each request, which would break the rollback-only transaction
of the plain ``db`` fixture).
"""

from __future__ import annotations

import re
import threading
import warnings
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlencode

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator

from bingo.asgi import application
from bingo.common.roles import Role
from tests.conftest import MakeUser
from tests.factories import DEFAULT_PASSWORD

# channels.testing's communicators would do, but importing channels.testing pulls in daphne,
# which we do not install (uvicorn serves); asgiref's communicator underneath is enough.

pytestmark = pytest.mark.django_db(transaction=True)

HOST = (b"host", b"127.0.0.1:8000")


def _scope(kind: str, path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": kind,
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "scheme": "http" if kind == "http" else "ws",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [HOST, *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }


def http(
    method: str, path: str, body: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> dict[str, Any]:
    """One HTTP request through the ASGI application: status, headers and the whole body."""

    async def exchange() -> dict[str, Any]:
        communicator = ApplicationCommunicator(
            application, {**_scope("http", path, headers or []), "method": method}
        )
        await communicator.send_input({"type": "http.request", "body": body, "more_body": False})
        start = await communicator.receive_output(5)
        chunks = []
        while True:
            message = await communicator.receive_output(5)
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        await communicator.wait(5)
        return {"status": start["status"], "headers": start["headers"], "body": b"".join(chunks)}

    return async_to_sync(exchange)()


def websocket_connect(path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """Open a websocket through the ASGI application; the application's first answer."""

    async def exchange() -> dict[str, Any]:
        communicator = ApplicationCommunicator(
            application, {**_scope("websocket", path, headers), "subprotocols": []}
        )
        await communicator.send_input({"type": "websocket.connect"})
        try:
            return await communicator.receive_output(5)
        finally:
            communicator.stop()

    return async_to_sync(exchange)()


def header(response: dict[str, Any], name: bytes) -> list[bytes]:
    return [value for key, value in response["headers"] if key.lower() == name]


def test_asgi_serves_the_login_page_in_portuguese() -> None:
    response = http("GET", "/entrar/", headers=[(b"accept-language", b"en")])

    assert response["status"] == 200
    body = response["body"].decode()
    assert "<h1>Entrar</h1>" in body
    assert "Nome de utilizador" in body
    assert header(response, b"content-language") == [b"pt"]


def test_asgi_serves_the_stylesheet_without_blocking_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        response = http("GET", "/static/css/app.css")

    assert response["status"] == 200
    assert header(response, b"content-type")[0].startswith(b"text/css")
    assert b".site-header" in response["body"]


def test_asgi_logs_a_user_in_and_shows_their_dashboard(make_user: MakeUser) -> None:
    make_user(Role.CALLER, username="rita")
    login_page = http("GET", "/entrar/")
    cookies = SimpleCookie()
    for value in header(login_page, b"set-cookie"):
        cookies.load(value.decode())
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login_page["body"].decode())
    assert match is not None
    form = urlencode({"csrfmiddlewaretoken": match[1], "username": "rita", "password": DEFAULT_PASSWORD})

    posted = http(
        "POST",
        "/entrar/",
        body=form.encode(),
        headers=[
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"cookie", f"csrftoken={cookies['csrftoken'].value}".encode()),
        ],
    )
    assert posted["status"] == 302
    for value in header(posted, b"set-cookie"):
        cookies.load(value.decode())
    session_cookie = f"sessionid={cookies['sessionid'].value}".encode()

    dashboard = http("GET", "/locutor/", headers=[(b"cookie", session_cookie)])
    refused = http("GET", "/caixa/", headers=[(b"cookie", session_cookie)])

    assert dashboard["status"] == 200
    assert "<h1>Painel do locutor</h1>" in dashboard["body"].decode()
    assert refused["status"] == 403


def test_websocket_from_a_foreign_origin_is_rejected() -> None:
    answer = websocket_connect("/ws/any/", headers=[(b"origin", b"https://evil.example")])

    assert answer["type"] == "websocket.close"


def test_websocket_from_an_allowed_origin_gets_past_the_origin_check() -> None:
    # No consumer is routed yet, so a connection that passes the origin validator reaches the
    # URL router and fails there: proof that the rejection above is the origin's doing.
    with pytest.raises(ValueError, match="No route found"):
        websocket_connect("/ws/any/", headers=[(b"origin", b"http://127.0.0.1:8000")])


def test_each_request_runs_on_one_thread_an_earlier_request_used() -> None:
    """The request's synchronous parts (its start, the middleware and view, its end) run on
    one thread, where its database connection lives; the next request takes that thread again
    rather than starting one of its own (bingo/asgi.py, issue 23)."""
    from django.core.signals import request_finished, request_started

    from bingo.asgi import django_asgi_app

    seen: list[tuple[str, int]] = []

    def started(**_: Any) -> None:
        seen.append(("started", threading.get_ident()))

    def finished(**_: Any) -> None:
        seen.append(("finished", threading.get_ident()))

    request_started.connect(started)
    request_finished.connect(finished)
    try:
        for _ in range(3):
            assert http("GET", "/entrar/")["status"] == 200
    finally:
        request_started.disconnect(started)
        request_finished.disconnect(finished)
    assert [kind for kind, _ in seen] == ["started", "finished"] * 3
    threads = {ident for _, ident in seen}
    assert len(threads) == 1, seen
    assert threads != {threading.get_ident()}  # not the test's own thread: one of the handler's
    assert 1 <= len(django_asgi_app._idle) <= django_asgi_app.IDLE_KEPT


def test_a_streamed_response_is_read_and_closed_on_its_requests_thread() -> None:
    """A streaming response (a static file) leaves the request's one trip to its thread
    unfinished: its body is read, and the request ends, on that same thread (bingo/asgi.py)."""
    from django.core.signals import request_finished, request_started

    seen: list[tuple[str, int]] = []

    def started(**_: Any) -> None:
        seen.append(("started", threading.get_ident()))

    def finished(**_: Any) -> None:
        seen.append(("finished", threading.get_ident()))

    request_started.connect(started)
    request_finished.connect(finished)
    try:
        response = http("GET", "/static/css/app.css")
    finally:
        request_started.disconnect(started)
        request_finished.disconnect(finished)
    assert response["status"] == 200
    assert b".site-header" in response["body"]
    assert [kind for kind, _ in seen] == ["started", "finished"]
    assert seen[0][1] == seen[1][1] != threading.get_ident()


def test_a_worker_runs_its_request_threads_at_once_and_the_rest_in_the_order_they_came(
    settings: Any,
) -> None:
    """WEB_REQUEST_THREADS requests run at once (bingo/asgi.py): the others wait their turn in
    the order they came, not all on threads at once, each waiting for the interpreter behind all
    the others (issue 23)."""
    import time

    from django.core.signals import request_finished, request_started

    settings.REQUEST_THREADS = 2
    lock = threading.Lock()
    running = most = 0
    order: list[bytes] = []

    def started(scope: dict[str, Any], **_: Any) -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
            order.append(scope["query_string"])
        time.sleep(0.05)  # long enough for every other request to be waiting

    def finished(**_: Any) -> None:
        nonlocal running
        with lock:
            running -= 1

    async def six_at_once() -> list[int]:
        communicators = [
            ApplicationCommunicator(
                application,
                {**_scope("http", "/entrar/", []), "method": "GET", "query_string": f"n={n}".encode()},
            )
            for n in range(6)
        ]
        for communicator in communicators:
            await communicator.send_input({"type": "http.request", "body": b""})
        statuses = []
        for communicator in communicators:
            start = await communicator.receive_output(10)
            await communicator.receive_output(10)
            statuses.append(start["status"])
        return statuses

    request_started.connect(started)
    request_finished.connect(finished)
    try:
        statuses = async_to_sync(six_at_once)()
    finally:
        request_started.disconnect(started)
        request_finished.disconnect(finished)
    assert statuses == [200] * 6
    assert most == 2
    # Two at a time, in the order they came: the two of a turn start on their threads in either
    # order, each turn 50 ms after the one before.
    waves = [sorted(order[i : i + 2]) for i in range(0, 6, 2)]
    assert waves == [[b"n=0", b"n=1"], [b"n=2", b"n=3"], [b"n=4", b"n=5"]], order
