"""The answer a request gets when its caller may not make it (docs/api.md, "Who may call what")."""

from __future__ import annotations

from collections.abc import Collection

from bingo.common.roles import Role


def refused_status(*, where: str, role: Role | None, allowed: Collection[Role], method: str) -> int:
    """403 when not logged in (``where == "anon"``), or when the caller's role may not act: in
    their own hall, or, for a write, in any hall (checked before the body is read); 404 when the
    object is another hall's and the caller could act on their own (``where == "other"``)."""
    if where in ("anon", "own"):
        return 403
    if method.lower() != "get" and not (where == "other" and role in allowed):
        return 403
    return 404
