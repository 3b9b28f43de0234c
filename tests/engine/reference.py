"""A deliberately plain re-statement of the card rules, to check the engine against.

Slow and obvious on purpose: loops, sets and the rule text, nothing shared with the engine
beyond the variant names.
"""

from __future__ import annotations

import hashlib
import math

Grid = list[list[int | None]]

RANGES = {
    "90": [(1, 9)] + [(10 * c, 10 * c + 9) for c in range(1, 8)] + [(80, 90)],
    "80": [(1, 20), (21, 40), (41, 60), (61, 80)],
    "75": [(1, 15), (16, 30), (31, 45), (46, 60), (61, 75)],
    "30": [(1, 10), (11, 20), (21, 30)],
}
SHAPES = {"90": (3, 9), "80": (4, 4), "75": (5, 5), "30": (3, 3)}


def card_problems(variant: str, grid: Grid) -> list[str]:
    """What is wrong with one card, in words (empty when it follows the rules)."""
    rows, cols = SHAPES[variant]
    problems = []
    if len(grid) != rows or any(len(r) != cols for r in grid):
        return ["wrong shape"]
    numbers = [v for row in grid for v in row if v]
    if len(numbers) != len(set(numbers)):
        problems.append("a number printed twice")
    for c in range(cols):
        low, high = RANGES[variant][c]
        column = [grid[r][c] for r in range(rows)]
        for v in column:
            if v and not low <= v <= high:
                problems.append(f"{v} outside column {c + 1}")
        filled = [v for v in column if v]
        if variant == "90":
            if len(filled) not in (1, 2):
                problems.append(f"column {c + 1} holds {len(filled)}")
            if filled != sorted(filled) or len(set(filled)) != len(filled):
                problems.append(f"column {c + 1} not ascending")
    if variant == "90":
        for r in range(rows):
            if sum(1 for v in grid[r] if v) != 5:
                problems.append(f"row {r + 1} does not hold 5")
    else:
        for r in range(rows):
            for c in range(cols):
                centre = variant == "75" and (r, c) == (2, 2)
                if centre and grid[r][c]:
                    problems.append("centre not free")
                if not centre and not grid[r][c]:
                    problems.append(f"blank at {r + 1},{c + 1}")
    return problems


def line_sets(variant: str, grid: Grid) -> list[frozenset[int]]:
    """The number sets of the lines that can win: 90-ball rows; otherwise rows, columns, diagonals."""
    rows, cols = SHAPES[variant]
    found = [frozenset(v for v in grid[r] if v) for r in range(rows)]
    if variant != "90":
        found += [frozenset(grid[r][c] for r in range(rows) if grid[r][c]) for c in range(cols)]
        found.append(frozenset(grid[i][i] for i in range(rows) if grid[i][i]))
        found.append(frozenset(grid[i][rows - 1 - i] for i in range(rows) if grid[i][rows - 1 - i]))
    return found


def repeated_lines(variant: str, grids: list[Grid]) -> int:
    """How many lines repeat the number set of an earlier line in the set."""
    seen: set[frozenset[int]] = set()
    repeats = 0
    for grid in grids:
        for line in line_sets(variant, grid):
            if line in seen:
                repeats += 1
            seen.add(line)
    return repeats


def lines_could_be_unique(variant: str, size: int) -> bool:
    """Counting: each column offers C(range, count) sets; each kind of row or diagonal one
    number from each of its columns. More lines than sets means some must repeat."""
    rows, cols = SHAPES[variant]
    widths = [high - low + 1 for low, high in RANGES[variant]]
    per_column = [rows - (1 if variant == "75" and c == 2 else 0) for c in range(cols)]
    if any(size > math.comb(w, k) for w, k in zip(widths, per_column, strict=True)):
        return False
    # Rows and diagonals: which columns each one draws on (the 75-ball centre is free).
    cells = [[(r, c) for c in range(cols)] for r in range(rows)]
    cells += [[(i, i) for i in range(rows)], [(i, rows - 1 - i) for i in range(rows)]]
    demand: dict[tuple[int, ...], int] = {}
    for line in cells:
        used = tuple(c for r, c in line if not (variant == "75" and (r, c) == (2, 2)))
        demand[used] = demand.get(used, 0) + 1
    return all(count * size <= math.prod(widths[c] for c in used) for used, count in demand.items())


def set_problems(variant: str, grids: list[Grid], *, strips: bool = False) -> list[str]:
    """Every card's problems plus the set's: equal cards, repeated 90-ball rows, broken strips."""
    problems = [f"card {i + 1}: {p}" for i, g in enumerate(grids) for p in card_problems(variant, g)]
    seen_cards: dict[frozenset[int], int] = {}
    for i, grid in enumerate(grids):
        numbers = frozenset(v for row in grid for v in row if v)
        if numbers in seen_cards:
            problems.append(f"card {i + 1} equals card {seen_cards[numbers] + 1}")
        seen_cards.setdefault(numbers, i)
    if repeated_lines(variant, grids) and (variant == "90" or lines_could_be_unique(variant, len(grids))):
        problems.append("a line repeats where every line could be different")
    if strips:
        for start in range(0, len(grids), 6):
            held = sorted(v for g in grids[start : start + 6] for row in g for v in row if v)
            if held != list(range(1, 91)):
                problems.append(f"strip at card {start + 1} broken")
    return problems


def fingerprint(grids: list[Grid]) -> str:
    """The documented fingerprint, written out the obvious way."""
    text = "".join(
        f"{i + 1}:" + ",".join(str(v or 0) for row in grid for v in row) + "\n"
        for i, grid in enumerate(grids)
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
