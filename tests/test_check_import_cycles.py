"""scripts/check_import_cycles.py: finds every loop of imports, and only loops."""

from __future__ import annotations

from tests.scripts import load_script, run_script

check_import_cycles = load_script("check_import_cycles")


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
    done = run_script("check_import_cycles")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("No import cycles")
