"""The 75-ball patterns as the screens name and draw them (R73 b)).

The library is the engine's (bingo/engine/patterns.py); here its names are translated (R54) and
a game's stored pattern becomes what every screen shows: ``pattern_shown`` gives its key, name
and picture rows, which ``{% pattern_picture %}`` (bingo/templatetags/patterns.py) draws with
one include, ``templates/bingo/_pattern_picture.html``, on the game form, the display, the
caller's console and the player's card, and ``static/js/pattern.js`` redraws on the live pages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext_lazy as _

from bingo.engine.detection import parse_pattern
from bingo.engine.patterns import CUSTOM, LIBRARY, pattern_key_of, pattern_picture

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

#: Each library pattern's name on the screens, by key (tests/common/test_patterns.py: one each).
PATTERN_NAMES: Mapping[str, StrOrPromise] = {
    "four_corners": _("Four corners"),
    "x": _("X"),
    "plus": _("Plus sign"),
    "frame": _("Frame"),
    "small_frame": _("Small frame"),
    "diamond": _("Diamond"),
    "postage_stamp": _("Postage stamp (top right)"),
    "letter_t": _("Letter T"),
    "letter_l": _("Letter L"),
    "letter_h": _("Letter H"),
    "row_1": _("Top row"),
    "row_2": _("Second row"),
    "row_3": _("Middle row"),
    "row_4": _("Fourth row"),
    "row_5": _("Bottom row"),
    "column_b": _("Column B"),
    "column_i": _("Column I"),
    "column_n": _("Column N"),
    "column_g": _("Column G"),
    "column_o": _("Column O"),
    "diagonal_down": _("Diagonal from the top left"),
    "diagonal_up": _("Diagonal from the bottom left"),
    CUSTOM: _("Custom pattern"),
}


def pattern_name(key: str) -> str:
    """The screens' name of pattern ``key`` in the current language."""
    return str(PATTERN_NAMES.get(key, PATTERN_NAMES[CUSTOM]))


def pattern_library() -> list[dict[str, Any]]:
    """Every library pattern as the game form offers it: key, name and picture rows."""
    return [
        {"key": p.key, "name": pattern_name(p.key), "rows": pattern_picture(p.cells)}
        for p in LIBRARY.values()
    ]


def pattern_shown(win_rules: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The pattern a game's bingo is, as the screens show it — ``{"key", "name", "rows"}``, the
    rows as ``pattern_picture`` draws them — or None for the full card (R73 a)). Games stored
    before the library carry no key: their cells name it."""
    text = (win_rules or {}).get("pattern")
    if not text:
        return None
    cells = parse_pattern(text)
    key = (win_rules or {}).get("pattern_key") or pattern_key_of(cells)
    return {"key": key, "name": pattern_name(key), "rows": list(pattern_picture(cells))}
