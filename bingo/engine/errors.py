"""Errors the engine raises for requests it cannot meet.

Every one carries a stable machine ``code`` and the ``params`` its message was made from, so an
adapter can say it in the user's language (bingo/common/engine_messages.py) while the engine stays free
of gettext (STYLE rule 1). ``str(exc)`` is a one-line English message, for logs, the command
line and the engine's own tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar


def _remake(cls: type[EngineError], message: str, code: str, params: dict[str, object]) -> EngineError:
    """Rebuild a pickled engine error (the default needs the message alone)."""
    return cls(message, code=code, params=params)


class EngineError(ValueError):
    """A request the rules or the maths refuse: an English message, a ``code`` and its ``params``.

    ``codes`` lists every code a class raises; the adapters map each one to a translated message,
    and a test checks that none is missing.
    """

    codes: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, message: str, *, code: str, params: Mapping[str, object] | None = None) -> None:
        if code not in self.codes:
            raise ValueError(f"{type(self).__name__} has no code {code!r}")
        super().__init__(message)
        self.code = code
        self.params: dict[str, object] = dict(params or {})

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the code and params, which the default reduction would lose."""
        return (_remake, (type(self), str(self), self.code, self.params))


class GenerationError(EngineError):
    """A request the generator cannot meet; the message says why in one line."""

    codes = frozenset(
        {
            "unknown_algorithm",
            "size_invalid",
            "seed_invalid",
            "over_capacity",  # R14
            "over_max_cards",
            "over_grid_share",
            "strips_only_90",
            "strips_size_not_multiple",
            "strips_over_max",
            "cards_not_unique",  # R14
            "lines_not_unique",  # R14
            "rows_not_unique",  # R14
            "verification_failed",
            "refused",
        }
    )

    def __init__(
        self, message: str, *, code: str = "refused", params: Mapping[str, object] | None = None
    ) -> None:
        # "refused" (params: the English ``detail``) covers a raise that names no code of its own.
        if code == "refused" and params is None:
            params = {"detail": message}
        super().__init__(message, code=code, params=params)
