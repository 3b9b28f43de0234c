"""Jackpot-odds benchmark: simulate the first bingo of T games of K cards (bingo/engine/jackpot_odds.py).

Prints, per case, the min, median and P95 of several runs in milliseconds (cards generated once,
beforehand; the simulation alone is timed), the simulated draws per second, and the peak memory
the simulation allocated; the figures go to bench/results.json (bench/results.py). Cases: a K
series (1,680 cards) of each variant over 10,000 games, and 100,000 90-ball cards over 1,000 and
10,000 games.

Target on a 2-core machine: K = 1,680, T = 10,000 in under 2 s. Run with
``python bench/jackpot_odds.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import pathlib
import platform
import sys
import time
import tracemalloc

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np

from bench.results import record, spread
from bingo.engine import Variant, generate_card_set, simulate_first_bingo


def case(variant: Variant, cards: int, draws: int, repeat: int) -> dict[str, float | int]:
    """Time the simulation of ``draws`` games of ``cards`` cards ``repeat`` times; print and
    return the spread of the times (ms)."""
    cells = generate_card_set(variant, cards, seed=2017).cells
    times = []
    for run in range(repeat):
        rng = np.random.default_rng(run)
        start = time.perf_counter()
        sim = simulate_first_bingo(variant, draws=draws, rng=rng, cells=cells)
        times.append((time.perf_counter() - start) * 1000)
    tracemalloc.start()
    simulate_first_bingo(variant, draws=draws, rng=np.random.default_rng(0), cells=cells)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    times_ms = spread(times)
    print(
        f"{variant}-ball K = {cards:>7,}  T = {draws:>6,}  simulate min {times_ms['min']:8.1f} ms"
        f"  median {times_ms['median']:8.1f}  P95 {times_ms['p95']:8.1f}"
        f"  {draws / min(times) * 1000:>9,.0f} games/s"
        f"  peak {peak:6.1f} MiB  median first bingo at ball {sim.median}"
    )
    return times_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    versions = f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}"
    print(f"{versions}, {args.repeat} runs")
    simulate_first_bingo(Variant.B30, draws=100, rng=np.random.default_rng(0), cards=10)  # warm up
    figures: dict[str, object] = {}
    for variant in Variant:
        figures[f"b{variant}_k1680_t10000_ms"] = case(variant, 1680, 10_000, args.repeat)
    figures["b90_k100000_t1000_ms"] = case(Variant.B90, 100_000, 1_000, args.repeat)
    figures["b90_k100000_t10000_ms"] = case(Variant.B90, 100_000, 10_000, max(1, args.repeat // 2))
    start = time.perf_counter()
    simulate_first_bingo(Variant.B90, draws=10_000, rng=np.random.default_rng(1), cards=1680)
    elapsed = time.perf_counter() - start
    print(f"90-ball K =   1,680  T = 10,000  generate the cards and simulate: {elapsed:.2f} s")
    figures["b90_k1680_t10000_generate_and_simulate_ms"] = elapsed * 1000
    record("jackpot_odds", figures, setup={"numpy": np.__version__})


if __name__ == "__main__":
    main()
