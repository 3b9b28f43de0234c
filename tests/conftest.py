"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import pytest
import pytest_django
from django.contrib.auth.models import User
from django.test import Client

from bingo.common.roles import Role
from tests import db_roles
from tests.factories import HallWithSessions, UserFactory

# The online loop's clock and ball tasks, for any test that plays an online game.
pytest_plugins = ["tests.autodraw.fixtures"]

MakeUser = Callable[..., User]


def pytest_configure(config: pytest.Config) -> None:
    """Hash the tests' passwords fast: production's PBKDF2 takes a third of a second per login,
    and the lockout tests log in wrongly hundreds of times. The subprocesses the tests start
    (production servers, commands) keep the real hashers."""
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # pytest-xdist's workers share one Redis, and each has its own test database whose ids start
    # at 1: without a prefix of its own, one worker's room 1 hears another's balls on its display.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    for layer in settings.CHANNEL_LAYERS.values():
        if "CONFIG" in layer:
            layer["CONFIG"]["prefix"] = f"asgi-test-{worker}"
    for cache in settings.CACHES.values():
        cache["KEY_PREFIX"] = f"test-{worker}"
    # The suite makes its own roles on the test database (tests/db_roles.py): an owner's URL in
    # the environment names a real database, which no test may migrate.
    settings.DATABASE_OWNER_URL = ""
    # Its connections take the app's role once the test database is made, and the flush takes
    # the owner's back for a moment, each by changing the connection's settings (tests/db_roles.py):
    # a connection pool opened before would hand out connections of the role it opened them as.
    # The suite connects without one; the servers it starts (tests/test_production_smoke.py,
    # tests/test_topology.py) pool their connections as production does (bingo/settings.py).
    for database in settings.DATABASES.values():
        database.get("OPTIONS", {}).pop("pool", None)


@pytest.fixture(scope="session")
def django_db_setup(
    request: pytest.FixtureRequest,
    django_db_setup: None,
    django_db_blocker: pytest_django.DjangoDbBlocker,
    django_db_keepdb: bool,
) -> Iterator[None]:
    """pytest-django's test database; on PostgreSQL the suite then runs as the app's role, as
    production does (tests/db_roles.py)."""
    from django.db import DatabaseError, connection

    if connection.vendor != "postgresql":
        yield
        return
    with django_db_blocker.unblock():
        role = db_roles.app_role_setup(connection)
    with db_roles.flush_as_owner():
        yield
    if not django_db_keepdb:
        with django_db_blocker.unblock():
            try:
                db_roles.app_role_teardown(connection, role)
            except DatabaseError as error:  # as pytest-django's own teardown: say so, go on
                request.node.warn(pytest.PytestWarning(f"Could not drop the role {role.name}: {error!r}"))


@pytest.fixture
def make_user(db: None) -> MakeUser:
    """``make_user(Role.CASHIER, username="ana")``: a saved user holding the given roles."""

    def make(*roles: Role, **fields: object) -> User:
        return UserFactory(roles=list(roles), **fields)

    return make


@pytest.fixture
def client_as(client: Client, make_user: MakeUser) -> Callable[..., Client]:
    """``client_as(Role.CALLER)``: the test client, logged in as a new user with those roles."""

    def login(*roles: Role) -> Client:
        client.force_login(make_user(*roles))
        return client

    return login


@pytest.fixture(autouse=True)
def _forget_sale_contexts() -> None:
    """Test databases reuse ids after each rollback; real games never do."""
    from bingo.draw import detection
    from bingo.live import events
    from bingo.online import selectors as online_selectors
    from bingo.sales import services as sales_services

    sales_services._sale_contexts.clear()
    online_selectors.online_game_offers_forget()
    events._last_notice.clear()
    events._last_display_notice.clear()
    events._game_rooms.clear()
    detection.forget()


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> None:
    """Each test gets channel layers of its own. A layer instance may receive from one event
    loop at a time (channels_redis refuses a second); a browser test's server loop keeps the
    instance its consumers took, and each test's communicator runs in a loop of its own."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _fresh_throttle_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test counts rate-limited requests (card checks, registrations) from zero, in a cache
    of its own (never the shared Redis: tests/common/test_throttling.py uses that on purpose):
    every test client is 127.0.0.1. The client-address warning may be given again."""
    from django.core.cache.backends.locmem import LocMemCache

    from bingo.common import clients, throttling

    counts = LocMemCache(f"throttle-{uuid.uuid4()}", {"OPTIONS": {"MAX_ENTRIES": 10_000}})
    monkeypatch.setattr(throttling.SlidingWindowThrottle, "cache", counts)
    throttling.forget()
    clients.forget()


@pytest.fixture(autouse=True)
def _default_language() -> None:
    """Each test starts in the site's language: a request with an English cookie leaves English
    active in its thread, which would make later tests depend on the order they run in."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)


# Halls with sessions for the ball-set and jackpot tests. Named apart from the ``praia`` and
# ``mindelo`` of several modules, which mean staffed halls there.
@pytest.fixture
def venue(db: None) -> HallWithSessions:
    return HallWithSessions("Sala Plateau")


@pytest.fixture
def other_venue(db: None) -> HallWithSessions:
    return HallWithSessions("Sala Sal Rei")
