"""scripts/check_import_cycles.py: finds every loop of imports, and only loops."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

from tests.test_i18n import ROOT

_spec = importlib.util.spec_from_file_location(
    "check_import_cycles", ROOT / "scripts" / "check_import_cycles.py"
)
assert _spec is not None
assert _spec.loader is not None
check_import_cycles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_import_cycles)


def test_a_chain_without_loops_has_no_cycle() -> None:
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert check_import_cycles.strongly_connected(graph) == []


def test_loops_are_found_with_every_module_in_them() -> None:
    graph = {
        "selectors": {"services"},
        "services": {"events"},
        "events": {"selectors", "models"},  # selectors -> services -> events -> selectors
        "models": set(),
        "tasks": {"print"},
        "print": {"tasks"},  # a loop of two
        "views": {"services", "tasks"},  # reaches both loops, is in neither
    }
    found = check_import_cycles.strongly_connected(graph)
    assert sorted(found) == [["events", "selectors", "services"], ["print", "tasks"]]


def test_the_project_has_no_import_cycle() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/check_import_cycles.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("No import cycles")
