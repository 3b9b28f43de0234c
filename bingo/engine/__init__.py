"""The pure core: game rules as plain functions over plain values.

Imports the standard library and numpy only — never Django, Celery, Channels, ReportLab or the
apps (STYLE rule 1; checked by import-linter and tests/engine/test_purity.py). Randomness is a
parameter: card sets come from a recorded seed, fresh seeds from ``secrets``.
"""

from bingo.engine.cardset import MAX_CARDS, CardSet, cells_from_grids, fingerprint, grid_of
from bingo.engine.errors import GenerationError
from bingo.engine.generate import (
    ALGORITHM_CARDS,
    ALGORITHM_STRIPS,
    ALGORITHMS,
    MAX_STRIP_CARDS,
    algorithm_for,
    capacity,
    generate_card_set,
)
from bingo.engine.stream import new_seed, parse_seed
from bingo.engine.variants import (
    SERIES_SIZES,
    Geometry,
    Line,
    LineKind,
    Variant,
    geometry,
    lines,
    parse_variant,
    unique_lines_possible,
)
from bingo.engine.verify import Report, Violation, verify_cards

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_CARDS",
    "ALGORITHM_STRIPS",
    "MAX_CARDS",
    "MAX_STRIP_CARDS",
    "SERIES_SIZES",
    "CardSet",
    "GenerationError",
    "Geometry",
    "Line",
    "LineKind",
    "Report",
    "Variant",
    "Violation",
    "algorithm_for",
    "capacity",
    "cells_from_grids",
    "fingerprint",
    "generate_card_set",
    "geometry",
    "grid_of",
    "lines",
    "new_seed",
    "parse_seed",
    "parse_variant",
    "unique_lines_possible",
    "verify_cards",
]
