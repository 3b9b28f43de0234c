"""Card-set persistence benchmark: store a 1,680-card set and 100,000 cards, load them back.

Targets on PostgreSQL (2-core machine): persist a 1,680-card set in < 100 ms and 100,000 cards
in < 3 s. "Persist" is what the service does after generation: write the stored cards and mark
the set ready, in one transaction. Also printed: loading all cards, one card, and the whole
request (generate + verify + store).

Needs DATABASE_URL (PostgreSQL; SQLite works too, for comparison). A throwaway test database
is created and dropped. Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bingo python bench/persist.py
"""

from __future__ import annotations

import os
import pathlib
import statistics
import sys
import time
from collections.abc import Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

import django

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from bingo.engine import ALGORITHM_CARDS, Variant, generate_card_set  # noqa: E402
from cards import selectors, services  # noqa: E402
from cards.models import CardSet, CardSetCells  # noqa: E402


def best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best and median milliseconds of ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return min(times), statistics.median(times)


def persist_case(size: int, repeat: int) -> None:
    generated = generate_card_set(Variant.B90, size, seed=size)
    seeds = iter(range(1, 10_000))

    def persist() -> None:
        with transaction.atomic():
            card_set = CardSet.objects.create(
                variant="90", size=size, seed=str(next(seeds)), algorithm=ALGORITHM_CARDS
            )
            CardSetCells.objects.create(card_set=card_set, cells=generated.cells.tobytes())
            card_set.fingerprint = generated.fingerprint
            card_set.status, card_set.progress, card_set.generated_at = (
                CardSet.Status.READY,
                100,
                timezone.now(),
            )
            card_set.save(update_fields=["fingerprint", "status", "progress", "generated_at"])

    low, mid = best(persist, repeat)
    print(f"persist {size:>7,} cards   {low:8.1f} ms (median {mid:8.1f})")
    stored = CardSet.objects.filter(size=size).first()
    assert stored is not None
    low, mid = best(lambda: selectors.card_set_cells(stored), repeat)
    print(f"load all {size:>6,} cards   {low:8.1f} ms (median {mid:8.1f})")
    low, mid = best(lambda: selectors.card_get(card_set=stored, number=size), repeat)
    print(f"load card {size:>6,} alone  {low:8.1f} ms (median {mid:8.1f})")
    low, mid = best(
        lambda: services.card_set_request(
            variant="90", size=size, seed=next(seeds) + 10_000, algorithm=ALGORITHM_CARDS, user=None
        ),
        max(2, repeat // 2),
    )
    print(f"request {size:>7,} cards   {low:8.1f} ms (median {mid:8.1f})  (generate + verify + store)")


def main() -> None:
    services.INLINE_LIMIT = 10**6  # time the whole request in this process, no worker
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        print(f"database: {connection.vendor}")
        persist_case(1680, 15)
        persist_case(100_000, 5)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
