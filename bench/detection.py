"""Winner-detection benchmark: build a Detector over the 90-ball cards sold in a game and time
every ball of several games, for 1,000,000 and 100,000 cards. Prints milliseconds.

Two ways to play each game:

* hall — as the games service plays it: once a ball makes line winners the line is confirmed
  and closed (R47), and the game ends at the first bingo (R44);
* every ball — all 90 balls, no prize closed: the worst case, where late balls complete lines
  on hundreds of thousands of cards.

A ball's time is ``Detector.draw`` plus reading the one-to-go counts of every prize, what the
hall display asks after each ball: wall time, and CPU time beside it, which a busy shared
machine disturbs less (a process put aside for a few ms shows in the wall time only).

Memory: what building a cold detector (no ball drawn) over the 1,000,000 cards adds to a
process that holds the cards already, as a worker does — resident memory retained after the
build and its peak during it, each run in a fresh process — against the numpy reference: the
least a detector can hold built with plain numpy in the same process shape (a copy of the
cards, a 1-byte counter per card and target, the int32 positions of the cards under each ball).

Targets on a 2-core machine: 1,000,000 cards < 5 ms per ball at P99; 100,000 cards < 1 ms
median; memory at most 1.2 times the reference (issue 23). The 1,000,000 cards are generated
once (15-40 s, not measured). Figures go to bench/results.json (bench.results.record). Run with
``python bench/detection.py [--games N] [--cards N] [--memory-runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np

from bench.results import record, spread
from bingo.engine import (
    NEAR,
    Detector,
    PrizeKind,
    SoldCards,
    Variant,
    generate_card_set,
    prize_rules,
)

LINE, BINGO = PrizeKind.LINE, PrizeKind.BINGO


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), linear between the closest ranks."""
    return float(np.percentile(np.array(values), q))


def blocks_of(cells: np.ndarray, series: int) -> list[SoldCards]:
    """The cards as ``series`` blocks of as many series, each sold from card 1."""
    size = -(-len(cells) // series)
    return [SoldCards(s + 1, 1, cells[s * size : (s + 1) * size]) for s in range(series)]


def play(detector: Detector, order: list[int], *, hall: bool) -> tuple[list[float], list[float], int, int]:
    """Per-ball milliseconds of wall and of CPU time, and the ball counts of the first line and
    the first bingo (0: none)."""
    times: list[float] = []
    cpu: list[float] = []
    first_line = first_bingo = 0
    for ball in order:
        start, start_cpu = time.perf_counter(), time.process_time()
        outcome = detector.draw(ball)
        for prize in detector.rules.prizes:
            if prize not in detector.closed:
                detector.need_counts(prize, NEAR)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        if LINE in outcome.won and not first_line:
            first_line = outcome.count
            if hall:
                detector.close(LINE)
        if BINGO in outcome.won and not first_bingo:
            first_bingo = outcome.count
            if hall:
                break
    return times, cpu, first_line, first_bingo


def case(cells: np.ndarray, games: int, seed: int) -> dict[str, object]:
    rules = prize_rules(Variant.B90)
    blocks = blocks_of(cells, 6)
    builds: list[float] = []
    hall: tuple[list[float], list[float]] = ([], [])
    every: tuple[list[float], list[float]] = ([], [])
    lines: list[int] = []
    bingos: list[int] = []
    claims: list[float] = []
    for game in range(games):
        order = list(range(1, 91))
        random.Random(seed + game).shuffle(order)
        for mode in ("hall", "every"):
            start = time.perf_counter()
            detector = Detector(rules, blocks)
            builds.append((time.perf_counter() - start) * 1000)
            times, cpu, first_line, first_bingo = play(detector, order, hall=mode == "hall")
            found = hall if mode == "hall" else every
            found[0].extend(times)
            found[1].extend(cpu)
            if mode == "hall":
                lines.append(first_line)
                bingos.append(first_bingo)
                # The claim: check the first bingo winner's card and list every bingo (R46).
                start = time.perf_counter()
                winners = detector.winners(BINGO)
                detector.card_check(winners[0].card.series_id, winners[0].card.number)
                claims.append((time.perf_counter() - start) * 1000)
            del detector
    n = len(cells)
    print(
        f"{n:>9,} cards  build {min(builds):7.1f} ms (median {statistics.median(builds):7.1f})"
        f"   first line at ball {min(lines)}-{max(lines)}, first bingo at {min(bingos)}-{max(bingos)}"
    )
    for label, (times, cpu) in (("hall      ", hall), ("every ball", every)):
        p50, p99 = percentile(times, 50), percentile(times, 99)
        print(
            f"{'':>16}{label}  per ball P50 {p50:6.2f} ms  P99 {p99:6.2f} ms  max {max(times):6.2f} ms"
            f"  | CPU P50 {percentile(cpu, 50):5.2f} P99 {percentile(cpu, 99):5.2f}  ({len(times)} balls)"
        )
    print(f"{'':>16}claim check + list of bingo winners  median {statistics.median(claims):6.2f} ms")
    return {
        "build_ms": spread(builds),
        "hall_ball_p50_ms": round(percentile(hall[0], 50), 3),
        "hall_ball_p99_ms": round(percentile(hall[0], 99), 3),
        "every_ball_p50_ms": round(percentile(every[0], 50), 3),
        "every_ball_p99_ms": round(percentile(every[0], 99), 3),
        "claim_ms": spread(claims),
    }


def _resident_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mib() -> float:
    """This process image's resident high-water mark (VmHWM: getrusage's ru_maxrss would also
    count the parent it was forked from)."""
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def memory_child(what: str, path: str) -> None:
    """In a fresh process: load the cards, then build ``what`` and print what it added (JSON)."""
    cells = np.load(path)
    size = -(-len(cells) // 6)
    blocks = [SoldCards(s + 1, 1, cells[s * size : (s + 1) * size]) for s in range(6)]
    rules = prize_rules(Variant.B90)
    before, peak_before = _resident_mib(), _peak_mib()
    if what == "detector":
        built: object = Detector(rules, blocks)
    else:  # the numpy reference
        flat = np.concatenate([b.cells for b in blocks]).reshape(len(cells), -1)
        counters = [np.zeros(len(cells), dtype=np.uint8) for _ in range(len(rules.targets) + 1)]
        index = []
        for p in range(flat.shape[1]):
            printed = np.flatnonzero(flat[:, p]).astype(np.int32)
            index.append(printed[np.argsort(flat[printed, p], kind="stable")])
        built = (flat, counters, index)
    print(json.dumps({"retained": _resident_mib() - before, "peak": max(0.0, _peak_mib() - peak_before)}))
    del built


def memory_case(cells: np.ndarray, runs: int) -> dict[str, object]:
    """Each of ``runs`` fresh processes builds the detector, then the reference; their spreads."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "cells.npy")
        np.save(path, cells)
        found: dict[str, list[dict[str, float]]] = {"detector": [], "reference": []}
        for _run in range(runs):
            for what in found:
                done = subprocess.run(
                    [sys.executable, __file__, "--memory-child", what, path],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                found[what].append(json.loads(done.stdout))
    figures: dict[str, object] = {}
    for measure in ("retained", "peak"):
        ours = spread([r[measure] for r in found["detector"]])
        ref = spread([r[measure] for r in found["reference"]])
        # (A small set's build may stay under the peak its loading reached: no ratio then.)
        ratio = ours["median"] / ref["median"] if ref["median"] else float("nan")
        print(
            f"{len(cells):>9,} cards  cold detector, resident memory {measure}: "
            f"median +{ours['median']:.0f} MiB"
            f" (min {ours['min']:.0f}, P95 {ours['p95']:.0f}); numpy reference +{ref['median']:.0f} MiB"
            f" -> {ratio:.2f}x"
        )
        figures[f"{measure}_mib"] = ours
        figures[f"reference_{measure}_mib"] = ref
        figures[f"ratio_{measure}"] = round(ratio, 3) if ref["median"] else None
    return figures


def main() -> None:
    if sys.argv[1:2] == ["--memory-child"]:
        memory_child(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--cards", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2017)
    parser.add_argument("--memory-runs", type=int, default=5)
    args = parser.parse_args()
    versions = f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}"
    print(f"{versions}, {args.games} games per size, load {os.getloadavg()[0]:.2f}")
    start = time.perf_counter()
    cells = generate_card_set(Variant.B90, args.cards, seed=args.seed).cells
    print(f"(generated {args.cards:,} cards in {time.perf_counter() - start:.1f} s, not measured)")
    for size in sorted({args.cards, min(100_000, args.cards)}, reverse=True):
        figures = case(cells[:size], args.games, args.seed)
        record("detection", figures, setup={"cards": size, "games": args.games})
    if args.memory_runs:
        figures = memory_case(cells, args.memory_runs)
        record("detection_memory", figures, setup={"cards": args.cards, "variant": "90", "blocks": 6})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this process {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
