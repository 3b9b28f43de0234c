"""The lock order's rule that code review would forget (docs/architecture.md, "Lock order"): the
rows of the order are never locked FOR UPDATE, only FOR NO KEY UPDATE, or a foreign key's check
at commit (a key share, which FOR UPDATE blocks) waits for them and closes a circle of waits.
The races themselves are in test_lock_order_postgres.py."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

#: The models of the lock order's rows (docs/architecture.md, "Lock order").
ORDER_MODELS = {
    "OnlineRoom",
    "OnlineOrder",
    "PlaySession",
    "Session",
    "Game",
    "Series",
    "BallSet",
    "Jackpot",
    "Acta",
    "PrizeWinner",
    "Player",
}


def _locks_for_update(paths: list[Path]) -> list[str]:
    """Every ``<Model>.objects...select_for_update(...)`` of an order's model without
    ``no_key=True`` in ``paths``, as ``file:line Model``."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "select_for_update"
            ):
                continue
            root = node.func.value
            while isinstance(root, ast.Attribute | ast.Call):
                root = root.func if isinstance(root, ast.Call) else root.value
            no_key = any(
                k.arg == "no_key" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in node.keywords
            )
            if isinstance(root, ast.Name) and root.id in ORDER_MODELS and not no_key:
                found.append(f"{path.name}:{node.lineno} {root.id}")
    return found


def test_the_rows_of_the_lock_order_are_locked_for_no_key_update_only() -> None:
    code = [
        path for package in ("bingo", "halls", "cards", "actas") for path in (ROOT / package).rglob("*.py")
    ]
    assert len(code) > 100
    assert _locks_for_update(sorted(code)) == []


def test_the_check_finds_a_lock_for_update(tmp_path: Path) -> None:
    """The check above can fail: it finds locks as the order took them before issue 20."""
    source = tmp_path / "services.py"
    source.write_text(
        'game = Game.objects.select_for_update(of=("self",)).select_related("session").get(pk=1)\n'
        "Player.objects.select_for_update().filter(pk=2).values_list('pk').get()\n"
        "Series.objects.select_for_update(no_key=True).get(pk=3)\n"
        "attempts.select_for_update().values_list('pk')\n"
    )
    assert _locks_for_update([source]) == ["services.py:1 Game", "services.py:2 Player"]
