"""The 75-ball patterns as the screens name and draw them (R73 b)).

The library is the engine's (bingo/engine/patterns.py); here its names are translated (R54) and
a game's stored pattern becomes what every screen shows: ``pattern_shown`` gives its key, name
and picture rows, which ``{% pattern_picture %}`` (bingo/templatetags/patterns.py) draws with
one include, ``templates/bingo/_pattern_picture.html``, on the game form, the display, the
caller's console, the player's card and the lobby, and ``static/js/pattern.js`` redraws on the
live pages. ``pattern_stored_shown`` does the same for an online room's pattern (R73 b), R85).

The picker (``PatternPickerMixin``, ``PatternCellsField``, ``templates/bingo/_pattern_fields.html``)
is the one the game form and the online room's form share: the library as radio buttons with
their pictures, and a 5 x 5 grid to draw a custom figure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.translation import gettext_lazy as _

from bingo.engine import Variant
from bingo.engine.detection import parse_pattern, pattern_text
from bingo.engine.patterns import CUSTOM, LIBRARY, pattern_key_of, pattern_picture
from bingo.engine.variants import geometry

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


def pattern_stored_shown(stored: str) -> dict[str, Any] | None:
    """An online room's pattern (``OnlineRoom.pattern``: a library key, a custom figure's cells
    as rows of X and ., or blank for the full card) as ``pattern_shown`` gives a game's."""
    if not stored:
        return None
    cells = LIBRARY[stored].cells if stored in LIBRARY else parse_pattern(stored)
    key = pattern_key_of(cells)
    return {"key": key, "name": pattern_name(key), "rows": list(pattern_picture(cells))}


_FREE_CELLS = geometry(Variant.B75).free_cells


def pattern_stored_normal(stored: str) -> str:
    """An ``OnlineRoom.pattern`` (or ``OnlineOrder.pattern``) as one text per figure: blank for the
    full card, a library key, or a custom figure's cells without the free centre (R72: marked
    whatever the pattern), so two ways of storing one figure compare equal."""
    if not stored:
        return ""
    if stored in LIBRARY:
        return stored
    cells = parse_pattern(stored)
    key = pattern_key_of(cells)
    return key if key != CUSTOM else pattern_text(frozenset(cells) - _FREE_CELLS)


def pattern_stored_of(win_rules: Mapping[str, Any] | None) -> str:
    """The pattern a game's bingo is (its ``win_rules``), as ``pattern_stored_normal`` writes it:
    what a standing order pinned is compared with it (R73 b))."""
    text = (win_rules or {}).get("pattern")
    if not text:
        return ""
    cells = parse_pattern(text)
    key = pattern_key_of(cells)
    return key if key != CUSTOM else pattern_text(frozenset(cells) - _FREE_CELLS)


# --- the picker: the game form's and the online room's (R73 b)) -----------------------------------

#: The 75-ball card's free centre (R71 c), R72): shown on the custom pattern's grid, never ticked.
FREE_CENTRE = min(geometry(Variant.B75).free_cells)
_CELL = re.compile(r"\d{1,2},\d{1,2}")


def pattern_choices() -> list[tuple[str, StrOrPromise]]:
    """The picker's choices: the full card (blank, R73 a)), the library, and a custom figure."""
    return (
        [("", _("Full card (R73 a))"))]
        + [(key, PATTERN_NAMES[key]) for key in LIBRARY]
        + [(CUSTOM, _("Custom pattern, drawn below"))]
    )


class PatternCellsField(forms.MultipleChoiceField):
    """The cells of a custom 75-ball pattern (R73 b)), ticked on a 5 x 5 grid as "row,column"
    (from 0). Any cell is taken as given: the engine refuses one off the card, citing R73 b)."""

    widget = forms.CheckboxSelectMultiple

    def __init__(self, **kwargs: Any) -> None:
        cells = [(r, c) for r in range(5) for c in range(5) if (r, c) != FREE_CENTRE]
        super().__init__(choices=[(f"{r},{c}", f"{r + 1},{c + 1}") for r, c in cells], **kwargs)

    def valid_value(self, value: str) -> bool:
        return bool(_CELL.fullmatch(str(value)))

    def clean(self, value: Any) -> list[tuple[int, int]]:
        texts: list[str] = super().clean(value)
        return [(int(r), int(c)) for r, c in (t.split(",") for t in texts)]

    def grid(self, name: str, ticked: set[str]) -> list[list[dict[str, Any]]]:
        """The grid's rows: each cell's checkbox name, value and whether ticked; the centre free."""
        return [
            [
                {
                    "free": (r, c) == FREE_CENTRE,
                    "name": name,
                    "value": f"{r},{c}",
                    "label": f"{'BINGO'[c]}{r + 1}",
                    "ticked": f"{r},{c}" in ticked,
                }
                for c in range(5)
            ]
            for r in range(5)
        ]


class PatternPickerMixin:
    """For a form with a ``pattern`` choice (``pattern_choices``) and ``custom_cells``
    (``PatternCellsField``), drawn by ``templates/bingo/_pattern_fields.html``."""

    def pattern_options(self) -> list[tuple[Any, dict[str, Any] | None]]:
        """Each choice of ``pattern`` with the picture of its pattern (None: the full card or custom)."""
        pictures = {p["key"]: p for p in pattern_library()}
        form: Any = self
        return [(radio, pictures.get(str(radio.data["value"]))) for radio in form["pattern"]]

    def custom_grid(self) -> list[list[dict[str, Any]]]:
        """The custom pattern's 5 x 5 checkboxes as rows, ticked as posted; the free centre none (R72)."""
        form: Any = self
        field = form.fields["custom_cells"]
        assert isinstance(field, PatternCellsField)
        ticked = {str(v) for v in (form["custom_cells"].value() or [])}
        return field.grid(form.add_prefix("custom_cells"), ticked)

    def pattern_cells_check(self, data: dict[str, Any]) -> None:
        """Cells drawn on the grid are played only with «Custom pattern» chosen (R73 b))."""
        if data.get("custom_cells") and data.get("pattern") != CUSTOM:
            form: Any = self
            form.add_error(
                "custom_cells", _("Choose «Custom pattern» to play the cells drawn, or untick them.")
            )
