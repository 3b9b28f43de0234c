"""What every bench keeps of a run: its figures in ``bench/results.json``, with the machine, the
load and the commit they were measured on, so that a regression shows in the next run.

A bench measures, prints its own report, then calls::

    from bench.results import record, spread
    record("online_buy", {"purchases_per_s": spread(rates), "p95_ms": spread(p95s)},
           setup={"players": 32, "workers": 2})

``spread`` turns the values of several runs into ``{"min", "median", "p95", "runs"}``. ``record``
appends one entry to ``bench/results.json`` (a JSON list, oldest first; ``BENCH_RESULTS`` names
another file, ``BENCH_RESULTS=`` with nothing keeps nothing) and prints, for each figure, how it
compares with the last entry of the same bench and setup. The file is meant to be committed with
the change whose figures it holds.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = ROOT / "bench" / "results.json"


def spread(values: Sequence[float]) -> dict[str, float | int]:
    """The minimum, median and 95th percentile (nearest rank) of ``values``, and how many."""
    if not values:
        raise ValueError("no values to summarise")
    ordered = sorted(values)
    rank = max(1, -(-95 * len(ordered) // 100))  # ceil(0.95 n), nearest-rank
    return {
        "min": ordered[0],
        "median": statistics.median(ordered),
        "p95": ordered[rank - 1],
        "runs": len(ordered),
    }


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT, check=False).returncode
    return out.stdout.strip() + ("+changes" if dirty else "")


def _load_1m() -> float:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else 0.0


#: The load when the bench started (it imports this module first): what the other work on the
#: machine was. The load at ``record`` counts the bench's own processes too (32 cashiers: ~20).
LOAD_AT_START = _load_1m()


def machine() -> dict[str, Any]:
    """Where the figures were measured: the processor count, the system, Python, the load when
    the bench started and when it recorded."""
    return {
        "cpus": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "load_1m_at_start": LOAD_AT_START,
        "load_1m": _load_1m(),
    }


def _file() -> Path | None:
    named = os.environ.get("BENCH_RESULTS")
    if named is None:
        return DEFAULT_FILE
    return Path(named) if named else None


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    data = json.loads(path.read_text(encoding="utf-8") or "[]")
    if not isinstance(data, list):
        raise ValueError(f"{path} is not a list of results")
    return data


def _median(figure: object) -> float | None:
    if isinstance(figure, Mapping):
        figure = figure.get("median")
    return float(figure) if isinstance(figure, (int, float)) and not isinstance(figure, bool) else None


def compare(previous: Mapping[str, Any] | None, figures: Mapping[str, Any]) -> list[str]:
    """One line per figure: its median now and, when the previous entry had it, the change."""
    lines = []
    before = previous.get("figures", {}) if previous else {}
    for name, figure in figures.items():
        now, then = _median(figure), _median(before.get(name))
        if now is None:
            continue
        if then:
            change = (now - then) / then * 100
            lines.append(f"  {name}: {now:.4g} (was {then:.4g} at {previous['commit']}, {change:+.1f} %)")  # type: ignore[index]
        else:
            lines.append(f"  {name}: {now:.4g} (first run of this setup)")
    return lines


def record(
    bench: str, figures: Mapping[str, Any], *, setup: Mapping[str, Any] | None = None, note: str = ""
) -> dict[str, Any]:
    """Append this run's ``figures`` (numbers, or ``spread`` summaries) to the results file,
    with the machine, the load, the commit and the time; print how each compares with the last
    run of the same bench and ``setup``. Returns the entry."""
    entry = {
        "bench": bench,
        "setup": dict(setup or {}),
        "figures": dict(figures),
        "note": note,
        "commit": _commit(),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
    }
    path = _file()
    if path is None:
        return entry
    results = _read(path)
    previous = next(
        (r for r in reversed(results) if r.get("bench") == bench and r.get("setup") == entry["setup"]), None
    )
    print(f"{bench}: recorded in {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    for line in compare(previous, figures):
        print(line)
    results.append(entry)
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return entry
