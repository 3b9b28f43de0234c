"""STYLE rule 1: the engine imports nothing of Django, Celery, Channels, ReportLab or the apps."""

import ast
import pathlib
import subprocess
import sys

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "bingo" / "engine"
FORBIDDEN = (
    "django",
    "celery",
    "channels",
    "reportlab",
    "rest_framework",
    "halls",
    "cards",
    "actas",
    "psycopg",
)


def test_engine_source_imports_only_the_standard_library_and_numpy():
    # cryptography: the acta's Ed25519 receipts, pure computation (issue 22); "acta": the offline
    # checker's sibling import when its two files run alone on an inspector's machine.
    allowed_roots = set(sys.stdlib_module_names) | {"numpy", "cryptography", "bingo", "acta"}
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed_roots, f"{path.name} imports {name}"
                if name.startswith("bingo"):
                    assert name.startswith("bingo.engine"), f"{path.name} imports {name}"


def test_importing_the_engine_loads_no_framework():
    code = "import sys, bingo.engine; print(','.join(sorted({m.split('.')[0] for m in sys.modules})))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ENGINE.parents[1]
    )
    modules = set(loaded.stdout.strip().split(","))
    assert "numpy" in modules
    assert not modules & set(FORBIDDEN), modules & set(FORBIDDEN)
