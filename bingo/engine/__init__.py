"""The pure core: game rules as plain functions over plain values.

Imports the standard library and numpy only — never Django, Celery, Channels, ReportLab or the
apps (STYLE rule 1; checked by import-linter and tests/engine/test_purity.py). Randomness is a
parameter: card sets come from a recorded seed, fresh seeds from ``secrets``.
"""

from bingo.engine.cardset import MAX_CARDS, CardSet, cells_from_grids, fingerprint, grid_of
from bingo.engine.errors import GenerationError
from bingo.engine.gamestate import ALLOWED, FINAL, GameState, IllegalTransition, transition
from bingo.engine.generate import (
    ALGORITHM_CARDS,
    ALGORITHM_STRIPS,
    ALGORITHMS,
    MAX_STRIP_CARDS,
    algorithm_for,
    capacity,
    generate_card_set,
)
from bingo.engine.prizes import (
    JACKPOT_PERCENT,
    MIN_BINGO_PERCENT,
    PRIZE_PERCENT,
    PrizeAmounts,
    PrizeKind,
    PrizePlan,
    PrizePlanError,
    bingo_paid_percent,
    default_plan,
    plan_validate,
    prize_amounts,
    share,
)
from bingo.engine.sales import (
    Block,
    GameSeries,
    SaleError,
    SeriesRange,
    SeriesStock,
    allocate,
    available,
    format_count,
    format_money,
    sales_closed_announcement,
    sales_open_announcement,
    second_series_validate,
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
    "ALLOWED",
    "FINAL",
    "JACKPOT_PERCENT",
    "MAX_CARDS",
    "MAX_STRIP_CARDS",
    "MIN_BINGO_PERCENT",
    "PRIZE_PERCENT",
    "SERIES_SIZES",
    "Block",
    "CardSet",
    "GameSeries",
    "GameState",
    "GenerationError",
    "Geometry",
    "IllegalTransition",
    "Line",
    "LineKind",
    "PrizeAmounts",
    "PrizeKind",
    "PrizePlan",
    "PrizePlanError",
    "Report",
    "SaleError",
    "SeriesRange",
    "SeriesStock",
    "Variant",
    "Violation",
    "algorithm_for",
    "allocate",
    "available",
    "bingo_paid_percent",
    "capacity",
    "cells_from_grids",
    "default_plan",
    "fingerprint",
    "format_count",
    "format_money",
    "generate_card_set",
    "geometry",
    "grid_of",
    "lines",
    "new_seed",
    "parse_seed",
    "parse_variant",
    "plan_validate",
    "prize_amounts",
    "sales_closed_announcement",
    "sales_open_announcement",
    "second_series_validate",
    "share",
    "transition",
    "unique_lines_possible",
    "verify_cards",
]
