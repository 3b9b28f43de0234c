"""The API's JSON parser: DRF's, refusing with 400 a body nested too deeply (issue 20).

Its own module, apart from ``bingo.common.api``: DRF imports the parser classes named in
``DEFAULT_PARSER_CLASSES`` while ``rest_framework.views`` is still loading, so this module must
not import the views.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext
from rest_framework import exceptions, parsers

#: The deepest nesting of arrays and objects a JSON body may have. Our bodies nest three levels
#: at most (a session's games, each with its prize plan); a body nested thousands of levels deep
#: would otherwise reach Python's recursion limit in the parser and answer 500, not 400.
JSON_MAX_DEPTH = 32


def json_depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (0 for a number or a string), counted
    without recursion, so that no body is too deep to measure."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Iterable[Any] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in children)
    return deepest


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing with 400 a body nested deeper than ``JSON_MAX_DEPTH``: the
    project's parser for every API view (``DEFAULT_PARSER_CLASSES`` in bingo/settings.py)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:  # deeper than the interpreter's stack: refused all the same
            raise _too_deep() from None
        if json_depth(data) > JSON_MAX_DEPTH:
            raise _too_deep()
        return data


def _too_deep() -> exceptions.ParseError:
    return exceptions.ParseError(
        gettext("The JSON body is nested too deeply: at most %(n)d levels of arrays and objects.")
        % {"n": JSON_MAX_DEPTH}
    )
