#!/usr/bin/env python
"""Fail (exit 1) if any two of the project's modules import each other, directly or round a loop.

    scripts/check_import_cycles.py

The layers contract in pyproject.toml keeps packages in order; this check covers what it cannot
see: a loop between modules of one layer (``bingo.draw.services -> bingo.sales.services ->
bingo.draw.services``) or inside one package. Every import counts, a deferred one inside a
function included: deferring an import to dodge a loop hides the loop, it does not remove it
(STYLE, "a deferred import inside a function to dodge a cycle is a sign the code sits in the
wrong layer"). Imports under ``if TYPE_CHECKING:`` do not count: they never run.

The graph is grimp's, the library under import-linter; each loop found is printed with the
line of every import in it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import grimp

PACKAGES = ("bingo", "halls", "cards", "actas")


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    imports = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True)
    graph = {module: set(imports.find_modules_directly_imported_by(module)) for module in imports.modules}
    loops = strongly_connected(graph)
    for members in loops:
        sys.stderr.write(f"Import cycle between {len(members)} modules:\n")
        inside = set(members)
        for importer in members:
            for imported in sorted(graph[importer] & inside):
                for detail in imports.get_import_details(importer=importer, imported=imported):
                    sys.stderr.write(f"  {importer}:{detail['line_number']}  {detail['line_contents']}\n")
    if loops:
        return 1
    sys.stdout.write(f"No import cycles ({len(graph)} modules).\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
