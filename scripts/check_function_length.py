#!/usr/bin/env python
"""Fail (exit 1) if a function of ours is over 80 lines and does not say why it must be long.

    scripts/check_function_length.py            check bingo, halls, cards, actas and scripts
    scripts/check_function_length.py PATH...    check these files or folders instead

A function's length runs from its ``def`` line to its last line (its decorators not counted),
nested functions and methods each counted on their own. Tests and migrations are not checked.
A function may be longer when its length is inherent (one SQL statement, one table of cases):
the line right above its ``def``, or above its first decorator, is then a comment saying why::

    # long: one statement, the whole query plan in one place
    def report_rows(...):

A long function is read in one go by nobody: split it into helpers whose names say what each
part does (issue 21).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bingo", "halls", "cards", "actas", "scripts")
SKIPPED_FOLDERS = {"tests", "migrations"}
MAX_LINES = 80
REASON_MARK = "# long:"

# Functions let through without a reason, as (path, name): none since issue 21 split the last
# ones. Keep it empty; a function that must be long says why in its `# long:` comment. An entry
# whose function is no longer over the limit fails the check, so the list can only shrink.
ALLOWED: set[tuple[str, str]] = set()


class Function(NamedTuple):
    """A function or method of a module: where it is, its dotted name, its length in lines, and
    whether the line above it gives a reason to be long."""

    path: str
    name: str
    line: int
    length: int
    reason: bool


def python_files(paths: Iterable[Path], root: Path) -> Iterator[Path]:
    """The .py files under ``paths`` (files or folders), bar those in tests and migrations."""
    for path in paths:
        files = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for file in files:
            if not SKIPPED_FOLDERS.intersection(file.resolve().relative_to(root.resolve()).parts[:-1]):
                yield file


def functions(file: Path, root: Path) -> Iterator[Function]:
    """Every function and method defined in ``file``, nested ones included."""
    source = file.read_text(encoding="utf-8")
    lines = source.splitlines()
    relative = file.resolve().relative_to(root.resolve()).as_posix()

    def visit(node: ast.AST, prefix: str) -> Iterator[Function]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                assert child.end_lineno is not None  # set by ast.parse
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                above = lines[first - 2].strip() if first >= 2 else ""
                reason = above.startswith(REASON_MARK) and bool(above[len(REASON_MARK) :].strip())
                yield Function(relative, name, child.lineno, child.end_lineno - child.lineno + 1, reason)
                yield from visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                yield from visit(child, f"{prefix}{child.name}.")
            else:
                yield from visit(child, prefix)

    yield from visit(ast.parse(source, filename=str(file)), "")


def problems(paths: Iterable[Path], root: Path = ROOT, allowed: set[tuple[str, str]] = ALLOWED) -> list[str]:
    """What is wrong under ``paths``: each function over ``MAX_LINES`` with no reason given, and
    each entry of ``allowed`` found under them that is no longer over."""
    found: list[str] = []
    seen: set[tuple[str, str]] = set()
    for file in python_files(paths, root):
        for function in functions(file, root):
            key = (function.path, function.name)
            if function.length <= MAX_LINES:
                if key in allowed:
                    seen.add(key)
                    found.append(
                        f"{function.path}:{function.line}: {function.name} is {function.length} lines now: "
                        "take it off ALLOWED in scripts/check_function_length.py"
                    )
                continue
            if key in allowed:
                seen.add(key)
                continue
            if not function.reason:
                found.append(
                    f"{function.path}:{function.line}: {function.name} is {function.length} lines "
                    f"(at most {MAX_LINES}): split it, or say why it must be long in a "
                    f"'{REASON_MARK} ...' comment right above it"
                )
    return found


def main(argv: list[str]) -> int:
    paths = [Path(arg) for arg in argv] or [ROOT / package for package in PACKAGES]
    found = problems(paths)
    for problem in found:
        sys.stderr.write(f"{problem}\n")
    if found:
        sys.stderr.write(f"{len(found)} function(s) too long.\n")
        return 1
    sys.stdout.write(f"No function over {MAX_LINES} lines without a reason.\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
