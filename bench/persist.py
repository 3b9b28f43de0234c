"""Card-set persistence benchmark: store a 1,680-card set and 100,000 cards, load them back.

Targets on PostgreSQL (2-core machine): persist a 1,680-card set in < 100 ms and 100,000 cards
in < 3 s. "Persist" is what the service does after generation: write the stored cards and mark
the set ready, in one transaction. Also printed: loading all cards, one card, and the whole
request (generate + verify + store).

Each figure is printed as the min, median and P95 of its runs (ms), and goes to
bench/results.json (bench/results.py). Needs DATABASE_URL (PostgreSQL; SQLite works too, for
comparison). A throwaway test database is created and dropped.
Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bingo python bench/persist.py
"""

from __future__ import annotations

import os
import pathlib
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

import django

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.results import record, spread  # noqa: E402
from bingo.engine import ALGORITHM_CARDS, Variant, generate_card_set  # noqa: E402
from cards import selectors, services  # noqa: E402
from cards.models import CardSet, CardSetCells  # noqa: E402


def timed(fn: Callable[[], object], repeat: int) -> dict[str, float | int]:
    """The min, median and P95 milliseconds of ``repeat`` runs of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return spread(times)


def shown(label: str, ms: dict[str, float | int]) -> None:
    print(f"{label:<24} min {ms['min']:8.1f} ms   median {ms['median']:8.1f}   P95 {ms['p95']:8.1f}")


def persist_case(size: int, repeat: int) -> dict[str, Any]:
    """Time storing, loading and requesting a ``size``-card set; print and return the figures."""
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

    figures = {f"persist_{size}_ms": timed(persist, repeat)}
    shown(f"persist {size:>7,} cards", figures[f"persist_{size}_ms"])
    stored = CardSet.objects.filter(size=size).first()
    assert stored is not None
    figures[f"load_all_{size}_ms"] = timed(lambda: selectors.card_set_cells(stored), repeat)
    shown(f"load all {size:>6,} cards", figures[f"load_all_{size}_ms"])
    figures[f"load_card_{size}_ms"] = timed(lambda: selectors.card_get(card_set=stored, number=size), repeat)
    shown(f"load card {size:>6,} alone", figures[f"load_card_{size}_ms"])
    figures[f"request_{size}_ms"] = timed(
        lambda: services.card_set_request(
            variant="90", size=size, seed=next(seeds) + 10_000, algorithm=ALGORITHM_CARDS, user=None
        ),
        max(2, repeat // 2),
    )
    shown(f"request {size:>7,} cards", figures[f"request_{size}_ms"])
    print("  (request: generate + verify + store)")
    return figures


def main() -> None:
    services.INLINE_LIMIT = 10**6  # time the whole request in this process, no worker
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        print(f"database: {connection.vendor}")
        figures = {**persist_case(1680, 15), **persist_case(100_000, 5)}
        record("persist", figures, setup={"database": connection.vendor})
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
