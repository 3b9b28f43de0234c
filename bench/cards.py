"""Card-engine benchmark: generate and verify a K series (1,680 cards) per variant, and
100,000 90-ball cards. Prints the best of several runs (after a warm-up) in milliseconds.

Targets on a 2-core machine: 90-ball K series generated + verified < 10 ms; 100,000 90-ball
cards < 1 s. Run with ``make bench`` or ``python bench/cards.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import pathlib
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import TypeVar

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np

from bingo.engine import (
    ALGORITHM_CARDS,
    ALGORITHM_STRIPS,
    Variant,
    generate_card_set,
    verify_cards,
)

T = TypeVar("T")


def timed(fn: Callable[[], T], repeat: int) -> tuple[list[float], T]:
    """Milliseconds of each of ``repeat`` runs, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    assert result is not None
    return times, result


def case(variant: Variant, size: int, algorithm: str, repeat: int) -> None:
    seeds = iter(range(10_000, 10_000 + 10 * repeat + 10))
    generate_card_set(variant, min(size, 60), seed=1, algorithm=algorithm)  # warm caches
    gen_times, card_set = timed(
        lambda: generate_card_set(variant, size, next(seeds), algorithm=algorithm), repeat
    )

    def check() -> object:
        report = verify_cards(
            variant,
            card_set.cells,
            strips=card_set.strips,
            declared_repeated=card_set.repeated_lines,
            declared_fingerprint=card_set.fingerprint,
        )
        assert report.ok, report.violations[:3]
        return report

    ver_times, _ = timed(check, repeat)
    both = [g + v for g, v in zip(gen_times, ver_times, strict=True)]
    label = f"{variant}-ball {'strips' if algorithm == ALGORITHM_STRIPS else 'cards '} {size:>7,}"
    print(
        f"{label}  generate {min(gen_times):8.1f} ms (median {statistics.median(gen_times):8.1f})"
        f"  verify {min(ver_times):7.1f} ms  together {min(both):8.1f} ms"
        f"  ({1000 * min(both) / size:5.2f} µs/card, {card_set.repeated_lines} repeated lines)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    versions = f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}"
    print(f"{versions}, best of {args.repeat}")
    for variant in Variant:
        case(variant, 1680, ALGORITHM_CARDS, args.repeat)
    case(Variant.B90, 1680, ALGORITHM_STRIPS, args.repeat)
    case(Variant.B90, 100_000, ALGORITHM_CARDS, max(3, args.repeat // 2))
    case(Variant.B90, 100_002, ALGORITHM_STRIPS, max(3, args.repeat // 2))


if __name__ == "__main__":
    main()
