"""The layers and the features' doors (docs/architecture.md «Layers», issue 21): ``lint-imports``
fails on a sideways import into another feature's views, and every adapter module is guarded."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import grimp
import pytest

from tests.test_i18n import ROOT

#: The packages import-linter reads (pyproject.toml ``root_packages``).
PACKAGES = ("bingo", "halls", "cards", "actas")
#: What a feature's own doors are called: its screens, its API, its forms, its routes.
ADAPTERS = ("views", "api", "forms", "urls")
DOORS = "A feature's doors are its own"


def _config() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        config: dict[str, object] = tomllib.load(file)["tool"]["importlinter"]
    return config


def _doors_contract() -> dict[str, Any]:
    contracts = _config()["contracts"]
    assert isinstance(contracts, list)
    (doors,) = [c for c in contracts if c["name"].startswith(DOORS)]
    return doors


def _copy(tree: Path) -> Path:
    """The packages and pyproject.toml, copied to ``tree``: a sandbox to plant imports in."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
            "--no-cache",
            "--no-logo",
        ],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},  # the copy, not the real tree
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _copy(tmp_path_factory.mktemp("layers"))


def test_the_copy_keeps_every_contract(tree: Path) -> None:
    done = _lint_imports(tree)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_a_sideways_import_into_another_features_views_breaks_the_doors_contract(tree: Path) -> None:
    """The sales sit above the games, so the layers allow sales to import games; the doors
    contract still refuses the games' views."""
    planted = tree / "bingo" / "sales" / "selectors.py"
    original = planted.read_text()
    planted.write_text(original + "\nfrom bingo.games import views as planted_views  # noqa: E402,F401\n")
    try:
        done = _lint_imports(tree)
    finally:
        planted.write_text(original)

    assert done.returncode == 1, done.stdout + done.stderr
    out = "".join(done.stdout.split())  # the report wraps its lines anywhere
    contract = _doors_contract()["name"]
    assert "".join(f"{contract} BROKEN".split()) in out
    assert "bingo.sales.selectors->bingo.games.views" in out
    # The layers alone would let it through: the features' layers contract is kept.
    layers = next(c["name"] for c in _config()["contracts"] if c["name"].startswith("Layers run one way"))  # type: ignore[attr-defined]
    assert "".join(f"{layers} KEPT".split()) in out


def test_every_adapter_module_of_a_feature_is_a_guarded_door() -> None:
    """A new views, api, forms or urls module (or an api/ package's module) of a feature, halls
    or cards is in the doors contract's forbidden modules: nothing opens a door unguarded."""
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    doors = _doors_contract()
    sources = doors["source_modules"]
    guarded: set[str] = set()
    for expression in doors["forbidden_modules"]:
        found = graph.find_matching_modules(expression) if "*" in expression else {expression}
        assert found, f"{expression} names no module"
        for module in found:
            guarded |= {module, *graph.find_descendants(module)}
    adapters = {
        module
        for module in graph.modules
        if any(module == s or module.startswith(s + ".") for s in sources)
        and any(part in ADAPTERS for part in module.split(".")[1:])
    }
    assert adapters - guarded == set()
