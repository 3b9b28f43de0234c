"""A large card set really goes through a Celery worker: the broker the settings give (Redis
with REDIS_URL, the filesystem broker of `make run` without), a worker thread, the database."""

import time
import uuid

import pytest
from celery.contrib.testing.worker import start_worker

from bingo.celery import app
from bingo.engine import ALGORITHM_CARDS, fingerprint
from cards import selectors, services
from cards.models import CardSet
from cards.tasks import card_set_generate_task


@pytest.mark.django_db(transaction=True)
def test_a_large_card_set_is_generated_by_a_worker(monkeypatch):
    monkeypatch.setattr(services, "INLINE_LIMIT", 100)
    # A queue of this test's own: parallel test processes share the broker but not the database.
    queue = f"test-cards-{uuid.uuid4().hex}"
    monkeypatch.setattr(
        card_set_generate_task, "delay", lambda *args: card_set_generate_task.apply_async(args, queue=queue)
    )
    with start_worker(
        app, pool="solo", perform_ping_check=False, loglevel="WARNING", shutdown_timeout=10, queues=[queue]
    ):
        card_set = services.card_set_request(
            variant="90", size=3000, seed=77, algorithm=ALGORITHM_CARDS, user=None
        )
        assert card_set.status == CardSet.Status.PENDING
        deadline = time.monotonic() + 60
        while card_set.status != CardSet.Status.READY and time.monotonic() < deadline:
            time.sleep(0.1)
            card_set.refresh_from_db()
    assert card_set.status == CardSet.Status.READY, card_set.error
    assert card_set.progress == 100
    assert fingerprint(selectors.card_set_cells(card_set)) == card_set.fingerprint
