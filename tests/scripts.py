"""The repository's own scripts (scripts/*.py) for their tests: loaded as a module, or run as
`make lint` runs them."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import ModuleType

from tests.processes import ROOT


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` imported as the module ``name`` (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python scripts/<name>.py args`` from the repository: its exit code and output, whatever
    they are."""
    return subprocess.run(
        [sys.executable, f"scripts/{name}.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
