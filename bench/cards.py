"""Card-engine benchmark: generate and verify a K series (1,680 cards) per variant, and
100,000 90-ball cards; a million 75-ball cards; and ``manage.py cards_generate`` writing
100,000 cards to JSON, the whole process as a user runs it. Prints the minimum, median and P95
of several runs (after a warm-up) in milliseconds, and keeps them in bench/results.json.

* A million 75-ball cards (seed 5) with ``cards/2``, what new sets use, then with ``cards/1``
  as the reference, each checked against its pinned fingerprint: ``cards/1``'s is what the
  generator gave before it was made faster (issue 23), ``cards/2``'s what it gave when made;
  neither may ever change. (``cards/1``'s figures keep the setup they had before ``cards/2``,
  without an algorithm, so that they compare with the runs before.)
* ``cards_generate`` is timed as a process (``python manage.py cards_generate ...``), beside
  its parts measured in this process: the engine, the JSON text, and the process start (the
  same command for one card).

Targets on a 2-core machine: 90-ball K series generated + verified < 10 ms; 100,000 90-ball
cards < 1 s; a million 75-ball cards < 10 s (``cards/2``); cards_generate of 100,000 cards
< 1.5 s. Run with ``make bench`` or ``python bench/cards.py [--repeat N] [--skip-million |
--only-million] [--million-runs N] [--skip-cards-1]``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import TypeVar

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np

from bench.results import record, spread
from bingo.engine import (
    ALGORITHM_CARDS,
    ALGORITHM_CARDS_1,
    ALGORITHM_CARDS_2,
    ALGORITHM_STRIPS,
    Variant,
    generate_card_set,
    verify_cards,
)
from cards import cardfile

ROOT = pathlib.Path(__file__).resolve().parents[1]

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
    generate, verify, together = spread(gen_times), spread(ver_times), spread(both)
    label = f"{variant}-ball {'strips' if algorithm == ALGORITHM_STRIPS else 'cards '} {size:>7,}"
    print(
        f"{label}  generate {generate['min']:8.1f} ms (median {generate['median']:8.1f}, "
        f"P95 {generate['p95']:8.1f})  verify {verify['median']:7.1f} ms  "
        f"together {together['median']:8.1f} ms"
        f"  ({1000 * together['min'] / size:5.2f} µs/card, {card_set.repeated_lines} repeated lines)"
    )
    record(
        "cards",
        {"generate_ms": generate, "verify_ms": verify, "together_ms": together},
        setup={"variant": variant.value, "size": size, "algorithm": algorithm},
    )


#: The fingerprints of a million 75-ball cards of seed 5: cards/1's from the generator before
#: issue 23, cards/2's from its first version (both reach the lower bound, 11,176,623 lines).
MILLION_75 = {
    ALGORITHM_CARDS_1: "f423daf5ce13659750c7a4f6f34bd1552028b57ca017c61e27ab49d715597516",
    ALGORITHM_CARDS_2: "0a17c81838cbf4f2185392606a63d70f1add88c18c6219e0c6509d85ea7d72a4",
}


def million_75(repeat: int, algorithm: str) -> None:
    """A million 75-ball cards of ``algorithm``, checked against its pin (cards/1's search spends
    its whole budget; cards/2's stops at the lower bound)."""
    generate_card_set(Variant.B75, 60, seed=1, algorithm=algorithm)  # warm caches
    times, card_set = timed(lambda: generate_card_set(Variant.B75, 1_000_000, 5, algorithm=algorithm), repeat)
    same = card_set.fingerprint == MILLION_75[algorithm]
    found = spread([t / 1000 for t in times])
    print(
        f"75-ball {algorithm} 1,000,000  generate min {found['min']:.1f} s, median {found['median']:.1f} s, "
        f"P95 {found['p95']:.1f} s over {len(times)} runs  ({card_set.repeated_lines:,} repeated lines; "
        f"fingerprint {'as pinned' if same else 'CHANGED'}; load {os.getloadavg()[0]:.2f})"
    )
    setup: dict[str, object] = {"variant": "75", "size": 1_000_000, "seed": 5}
    if algorithm != ALGORITHM_CARDS_1:
        setup["algorithm"] = algorithm
    record("cards_million_75", {"generate_s": found, "fingerprint_unchanged": same}, setup=setup)
    if not same:
        raise SystemExit(f"the million 75-ball cards of seed 5 changed: {algorithm} may not change")


def command(repeat: int) -> None:
    """``manage.py cards_generate`` of 100,000 90-ball cards, the whole process, and its parts."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}

    def run(size: int, out: pathlib.Path) -> float:
        args = ["manage.py", "cards_generate", "--variant", "90", "--size", str(size), "--seed", "1"]
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, *args, "--output", str(out)], cwd=ROOT, env=env, check=True, capture_output=True
        )
        return (time.perf_counter() - start) * 1000

    with tempfile.TemporaryDirectory() as folder:
        out = pathlib.Path(folder) / "set.json"
        run(1, out)  # warm the file system's caches
        whole = spread([run(100_000, out) for _ in range(repeat)])
        start = spread([run(1, out) for _ in range(repeat)])
    engine_times, card_set = timed(lambda: generate_card_set(Variant.B90, 100_000, 1), repeat)
    text_times, _ = timed(lambda: cardfile.to_text(card_set), repeat)
    engine, text = spread(engine_times), spread(text_times)
    print(
        f"cards_generate 100,000 90-ball cards -> JSON, whole process: min {whole['min']:.0f} ms, "
        f"median {whole['median']:.0f} ms, P95 {whole['p95']:.0f} ms  (of which, medians: process start "
        f"{start['median']:.0f} ms, engine {engine['median']:.0f} ms, JSON text {text['median']:.0f} ms)"
    )
    record(
        "cards_generate",
        {"whole_ms": whole, "start_ms": start, "engine_ms": engine, "json_text_ms": text},
        setup={"variant": "90", "size": 100_000, "algorithm": ALGORITHM_CARDS},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--skip-million", action="store_true", help="leave out the million 75-ball cards")
    which.add_argument("--only-million", action="store_true", help="only the million 75-ball cards")
    parser.add_argument(
        "--million-runs", type=int, default=5, help="runs of the million 75-ball cards/2 cards (default 5)"
    )
    parser.add_argument(
        "--skip-cards-1", action="store_true", help="leave out the cards/1 reference (3 runs of ~20 s)"
    )
    args = parser.parse_args()
    versions = f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}"
    print(f"{versions}, {args.repeat} runs, load {os.getloadavg()[0]:.2f}")
    if not args.only_million:
        for variant in Variant:
            case(variant, 1680, ALGORITHM_CARDS, args.repeat)
        case(Variant.B75, 1680, ALGORITHM_CARDS_1, args.repeat)
        case(Variant.B90, 1680, ALGORITHM_STRIPS, args.repeat)
        case(Variant.B90, 100_000, ALGORITHM_CARDS, max(3, args.repeat // 2))
        case(Variant.B90, 100_002, ALGORITHM_STRIPS, max(3, args.repeat // 2))
        command(max(5, args.repeat))
    if not args.skip_million:
        million_75(args.million_runs, ALGORITHM_CARDS_2)
        if not args.skip_cards_1:
            million_75(3, ALGORITHM_CARDS_1)


if __name__ == "__main__":
    main()
