"""bench/results.py: every bench's figures kept in bench/results.json with the machine, the load
and the commit, and compared with the last run of the same bench and setup (issue 23)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.results import compare, record, spread


def test_spread_is_the_minimum_median_and_nearest_rank_p95() -> None:
    assert spread([5.0, 1.0, 3.0]) == {"min": 1.0, "median": 3.0, "p95": 5.0, "runs": 3}
    values = [float(v) for v in range(1, 101)]
    assert spread(values)["p95"] == 95.0
    assert spread(values)["median"] == 50.5
    with pytest.raises(ValueError):
        spread([])


def test_record_appends_with_machine_and_commit_and_compares_with_the_same_setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "results.json"
    monkeypatch.setenv("BENCH_RESULTS", str(target))
    record("sales", {"per_s": spread([100.0, 110.0])}, setup={"cashiers": 8})
    record("sales", {"per_s": 50.0}, setup={"cashiers": 32})  # another setup: not compared
    record("sales", {"per_s": spread([126.0])}, setup={"cashiers": 8})
    out = capsys.readouterr().out
    kept = json.loads(target.read_text(encoding="utf-8"))
    assert [r["setup"] for r in kept] == [{"cashiers": 8}, {"cashiers": 32}, {"cashiers": 8}]
    assert kept[0]["figures"]["per_s"]["median"] == 105.0
    assert kept[0]["machine"]["cpus"] >= 1
    assert "load_1m" in kept[0]["machine"]
    assert kept[0]["machine"]["load_1m_at_start"] >= 0  # before the bench's own work
    assert kept[0]["commit"]
    assert "per_s: 126 (was 105" in out
    assert "+20.0 %" in out


def test_nothing_is_kept_when_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_RESULTS", "")
    entry = record("print", {"seconds": 0.2})
    assert entry["figures"] == {"seconds": 0.2}
    assert not list(tmp_path.iterdir())


def test_compare_skips_what_is_not_a_number() -> None:
    assert compare(None, {"label": "x", "n": 3}) == ["  n: 3 (first run of this setup)"]
