"""The engine's refusals in the user's language.

The engine (bingo/engine/) cannot translate (STYLE rule 1): each error it raises carries an
English message, a stable ``code`` and the ``params`` the message was made from. This module
maps every code to a translated sentence, so services raise
``validation_error(exc)`` instead of ``ValidationError(str(exc))`` and a Portuguese screen
shows Portuguese (R54). tests/test_engine_messages.py checks that no code is left unmapped.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils import formats, timezone
from django.utils.functional import Promise
from django.utils.text import get_text_list
from django.utils.translation import gettext_lazy as _

from bingo.engine.detection import DetectionError, PrizeRulesError
from bingo.engine.draw import DrawError
from bingo.engine.errors import EngineError, GenerationError
from bingo.engine.gamestate import GameState, IllegalTransition
from bingo.engine.prizes import PrizeKind, PrizePlanError
from bingo.engine.sales import SaleError, format_count
from bingo.engine.variants import LineKind, Variant, geometry

#: Each engine error class, each of its codes, and what the user reads.
MESSAGES: Mapping[type[EngineError], Mapping[str, Promise]] = {
    PrizePlanError: {
        "plan_empty": _("R7: a prize plan needs at least the bingo prize."),
        "share_not_decimal": _("R7: %(kind)s: the share must be a percentage of sales, not %(percent)s."),
        "share_not_positive": _("R7: %(kind)s: the share must be above 0 %% of sales, not %(percent)s %%."),
        "prize_repeated": _("R7: each prize may appear only once in a plan; repeated: %(kinds)s."),
        "no_bingo": _("R7: a prize plan must pay a bingo prize."),
        "total_not_80": _(
            "R7: the prize shares must total exactly %(required)s %% of sales, not %(total)s %%."
        ),
        "bingo_below_minimum": _(
            "R7: the bingo prize must be at least %(minimum)s %% of sales; this plan pays %(paid)s %%."
        ),
        "bingo_below_minimum_after_jackpot": _(
            "R7: the bingo prize must be at least %(minimum)s %% of sales after the progressive "
            "jackpot's 3 %% (R10); this plan pays %(paid)s %%."
        ),
    },
    IllegalTransition: {
        "state_final": _("A game in the state “%(current)s” is final and cannot move to “%(target)s”."),
        "not_allowed": _("A game cannot move from “%(current)s” to “%(target)s”."),
        "draw_begun": _(
            "R55: a game cannot be suspended once the draw has begun (balls drawn: %(balls_drawn)s); "
            "it continues by manual draw."
        ),
        "suspend_first": _(
            "R55: before the first ball a failure suspends the game: it is suspended first, and "
            "annulled with a full refund only if no solution is found within 15 minutes. (R57 annuls "
            "a game for an error announcing the numbers, once balls are drawn.)"
        ),
        "suspension_running": _(
            "R55: a suspended game is annulled only if no solution is found within 15 minutes: "
            "from %(annul_from)s (in %(minutes)s min)."
        ),
        "suspension_over": _(
            "R55: no solution was found within 15 minutes of the suspension at %(suspended_at)s: "
            "the game is annulled with a full refund, not resumed."
        ),
    },
    SaleError: {
        "stock_size_invalid": _("Series %(series)s: the size must be at least 1, not %(size)s."),
        "stock_last_sold_invalid": _(
            "Series %(series)s: the last card sold, n.º %(last_sold)s, is outside 0 to %(size)s."
        ),
        "stock_price_invalid": _("Series %(series)s: the price must be a positive amount, not %(price)s."),
        "second_series_same": _("R38: the second series must differ from the first (%(series)s)."),
        "second_series_price": _(
            "R38 a): the second series %(second)s costs %(second_price)s and the first, %(first)s, "
            "costs %(first_price)s; they must have the same price."
        ),
        "second_series_started": _(
            "R38 b): the second series %(second)s already has cards 1 to %(last_sold)s sold; "
            "its sale must start at card 1."
        ),
        "second_series_sold_before": _(
            "R38 b): the second series %(second)s has cards sold before this game (up to n.º "
            "%(last_sold)s); a second series must start at card 1."
        ),
        "second_series_past_limit": _(
            "R38 c): the second series %(second)s has cards sold up to n.º %(last_sold)s, at or past "
            "n.º %(first_start)s, where this game's sale of %(first)s began."
        ),
        "first_start_invalid": _(
            "R37: this game's sale of series %(series)s must begin at a card from 1 to %(size)s, "
            "not %(first_start)s."
        ),
        "first_last_sold_invalid": _(
            "R37: series %(series)s began this game at card %(first_start)s, so its last card sold "
            "cannot be %(last_sold)s."
        ),
        "quantity_invalid": _("A sale is of at least 1 card, not %(quantity)s."),
        "not_enough_cards": _(
            "R38: not enough cards in this game (asked: %(quantity)s, available: %(available)s); "
            "series %(series)s has no second series to continue in."
        ),
        "not_enough_cards_second_limit": _(
            "R38 c): not enough cards in this game (asked: %(quantity)s, available: %(available)s); "
            "series %(series)s may be sold only up to n.º %(limit)s."
        ),
        "block_not_continuing": _(
            "R36: cards n.º %(first_number)s to %(last_number)s do not continue this game's sale."
        ),
        "nothing_sold": _("R40: no cards were sold in this game; there is nothing to announce."),
        "too_many_series": _("R38: a game sells from at most two series, not %(count)s."),
        "range_invalid": _(
            "R40: series %(series)s: n.º %(first_number)s to n.º %(last_number)s is not a range of cards."
        ),
        "nothing_announced": _("R33: announce at least one series on sale."),
        "series_sold_out": _("R33: series %(series)s is sold out and cannot be put on sale."),
    },
    GenerationError: {
        "unknown_algorithm": _("Unknown algorithm %(algorithm)s: choose one of %(known)s."),
        "size_invalid": _("The size must be a whole number of cards above 0, not %(size)s."),
        "seed_invalid": _("The seed must be a whole number from 0 to 2^256 - 1."),
        "over_capacity": _(
            "Impossible: a %(variant)s-ball set can hold at most %(capacity)s different cards (R14)."
        ),
        "over_max_cards": _("A card set holds at most %(max_cards)s cards."),
        "over_grid_share": _(
            "A %(variant)s-ball set holds at most %(max_cards)s cards (a quarter of all the different "
            "cards, so that enough stay free to draw from)."
        ),
        "strips_only_90": _("Strips of six exist only for 90-ball cards."),
        "strips_size_not_multiple": _("Strips need a size that is a multiple of 6, not %(size)s."),
        "strips_over_max": _("A set of strips holds at most %(max_cards)s cards."),
        "cards_not_unique": _("Could not make every card of the set different (R14); try another seed."),
        "lines_not_unique": _("Could not make every line of the set different (R14); try another seed."),
        "rows_not_unique": _("Could not make every row of the set different (R14); try another seed."),
        "verification_failed": _("The independent check refused the generated cards: %(violations)s."),
        "refused": _("The card set cannot be generated: %(detail)s"),
    },
    DrawError: {
        "out_of_range": _("%(number)s is not a ball of the %(balls)s-ball game (1 to %(balls)s)."),
        "already_drawn": _("Ball %(number)s has already been drawn in this game."),
        "drum_empty": _("Every ball has been drawn."),
    },
    PrizeRulesError: {
        "prize_repeated": _("Each prize may be named only once; repeated: %(prizes)s."),
        "no_bingo": _("R5 b), R66 b), R73, R83: every game pays a bingo prize."),
        # Translators: %(rule)s is the rule cited, e.g. "R84 b)"; %(prize)s a prize, e.g. "column prize".
        "prize_not_in_variant": _("%(rule)s: %(variant)s-ball games do not pay the %(prize)s."),
        "extra_prizes_30": _(
            "R84: a 30-ball game pays the bingo and at most one more prize (line, column or four "
            "corners); these rules ask for: %(prizes)s."
        ),
        "line_kinds_missing": _(
            "R67, R75: the line prize needs at least one kind of line (row, column or diagonal)."
        ),
        "line_kinds_without_line": _("Kinds of line are given, but the game pays no line prize."),
        # Translators: %(allowed)s and %(kind)s are kinds of line: row, column, diagonal.
        "line_kind_not_in_variant": _(
            "R5 a): in the %(variant)s-ball game the line prize is won on a %(allowed)s, not on a %(kind)s."
        ),
        "pattern_not_75": _("R73 b): only the 75-ball bingo may be a pattern, not the %(variant)s-ball one."),
        "pattern_with_extras": _(
            "R74: the line and four corners prizes are paid only when the bingo is the full card, "
            "not with a pattern; these rules ask for: %(prizes)s."
        ),
        "pattern_outside_card": _(
            "R73 b): the pattern cell in row %(row)s, column %(column)s is outside the card."
        ),
        "pattern_empty": _("R73 b): a pattern needs at least one numbered cell."),
        "pattern_text_invalid": _(
            "“%(text)s” is not a pattern: write it row by row, X for a cell of the pattern and “.” for "
            "the others, the rows separated by “/”, one for each row of the card."
        ),
        "pattern_unknown": _("R73 b): there is no pattern “%(key)s”; choose one of the list or draw one."),
        "pattern_key_and_cells": _("R73 b): choose a pattern of the list or draw one, not both."),
    },
    DetectionError: {
        "cells_shape": _("The cells given are not one card of %(rows)s rows of %(cols)s cells."),
        # Translators: %(where)s (here and below) is "Card n.º 12 of series 3" or "The card".
        "number_out_of_column": _("%(where)s: the number %(number)s cannot stand in column %(column)s."),
        "number_repeated": _("%(where)s: the number %(number)s is printed twice."),
        "row_count": _(
            "%(where)s: row %(row)s holds %(count)s numbers; each row of a 90-ball card holds 5 (R14)."
        ),
        "free_cell_not_blank": _(
            "%(where)s: the free cell in row %(row)s, column %(column)s must be blank (R71 c), R72)."
        ),
        "blank_cell": _("%(where)s: the cell in row %(row)s, column %(column)s carries no number."),
        "card_number_invalid": _("Series %(series)s: card numbers start at 1, not %(number)s."),
        "card_sold_twice": _(
            "Card n.º %(number)s of series %(series)s is sold twice in this game (R36, R38)."
        ),
        "card_not_sold": _("Card n.º %(number)s of series %(series)s was not sold in this game."),
        "ball_invalid": _("%(ball)s is not a ball of the %(balls)s-ball game (1 to %(balls)s)."),
        "ball_repeated": _("Ball %(ball)s is drawn twice in this game."),
    },
}

#: Prize kinds as the messages name them (the same names as the announcements').
PRIZE_KIND_NAMES: Mapping[str, Promise] = {
    PrizeKind.LINE.value: _("Line prize"),
    PrizeKind.BINGO.value: _("Bingo prize"),
    PrizeKind.FOUR_CORNERS.value: _("Four corners prize"),
    PrizeKind.COLUMN.value: _("Column prize"),
}

#: A game's states as the messages name them (the labels of bingo.models.GameState, which a
#: test keeps equal: common may not import the games app).
GAME_STATE_NAMES: Mapping[str, Promise] = {
    GameState.PLANNED.value: _("Planned"),
    GameState.SELLING.value: _("Selling"),
    GameState.SALES_CLOSED.value: _("Sales closed"),
    GameState.DRAWING.value: _("Drawing"),
    GameState.FINISHED.value: _("Finished"),
    GameState.SUSPENDED.value: _("Suspended"),
    GameState.ANNULLED.value: _("Annulled"),
}

#: Kinds of line as the messages name them, mid-sentence ("won on a row, not on a diagonal").
LINE_KIND_NAMES: Mapping[str, Promise] = {
    LineKind.ROW.value: _("row"),
    LineKind.COLUMN.value: _("column"),
    LineKind.DIAGONAL.value: _("diagonal"),
}

#: The rule a prize_not_in_variant refusal cites, by prize (as bingo/engine/detection/rules.py does).
_PRIZE_NOT_IN_VARIANT_RULE: Mapping[str, str] = {
    PrizeKind.FOUR_CORNERS.value: "R74 b), R84 c)",
    PrizeKind.COLUMN.value: "R84 b)",
}

#: Counts written with their thousands grouped ("1 680"); card numbers never are ("n.º 1680").
_GROUPED = frozenset({"capacity", "max_cards"})


def _prize_names(values: object) -> object:
    """A tuple of prize kinds as the comma list "Line prize, Column prize"."""
    if not isinstance(values, tuple | list):
        return values
    return ", ".join(str(PRIZE_KIND_NAMES.get(str(kind), kind)) for kind in values)


def _shown(name: str, value: object) -> object:
    """One parameter as the active language writes it."""
    if name == "kind":
        return PRIZE_KIND_NAMES.get(str(value), value)
    if name in ("kinds", "prizes"):
        return _prize_names(value)
    if name == "prize":
        # Mid-sentence, in lower case: "does not pay the four corners prize".
        found = PRIZE_KIND_NAMES.get(str(value))
        return value if found is None else str(found).lower()
    if name in ("current", "target"):
        # Mid-sentence, in lower case: "cannot move from “planned” to “sales closed”".
        state = GAME_STATE_NAMES.get(str(value))
        return value if state is None else str(state).lower()
    if name in _GROUPED and isinstance(value, int):
        return format_count(value)
    if isinstance(value, Decimal) and value.is_finite():
        return formats.number_format(value)
    if isinstance(value, datetime):
        # A moment, hours and minutes on the current time zone's clock: a service names the
        # hall's (``timezone.override``), as the R55 refusals do.
        return timezone.localtime(value).strftime("%H:%M")
    return value


def _line_kind(value: object) -> object:
    """A kind of line, "row", in the active language."""
    return LINE_KIND_NAMES.get(str(value), value)


def _derived(exc: EngineError) -> dict[str, object]:
    """Parameters a message needs that the engine leaves to its English text, worked out here."""
    params = exc.params
    if isinstance(exc, PrizeRulesError) and exc.code == "prize_not_in_variant":
        return {"rule": _PRIZE_NOT_IN_VARIANT_RULE.get(str(params.get("prize")), "R5")}
    if isinstance(exc, PrizeRulesError) and exc.code == "line_kind_not_in_variant":
        try:
            offered = geometry(Variant(str(params.get("variant")))).line_kinds
        except ValueError:
            offered = ()
        # "row", "row or column": Django's own "or", in the active language.
        allowed = get_text_list([str(_line_kind(kind)) for kind in offered])
        return {"kind": _line_kind(params.get("kind")), "allowed": allowed}
    if isinstance(exc, DetectionError) and "card" in params:
        # The card a check refused: numbered in a sold series, or the lone card of card_check.
        if params.get("card") is None:
            return {"where": _("The card")}
        named = _("Card n.º %(card)s of series %(series)s")
        return {"where": str(named) % {"card": params["card"], "series": params.get("series")}}
    return {}


def engine_message(exc: EngineError) -> str:
    """What ``exc`` says, in the active language; its English text if its code has no message."""
    template = next(
        (MESSAGES[cls][exc.code] for cls in type(exc).__mro__ if exc.code in MESSAGES.get(cls, {})), None
    )
    if template is None:
        return str(exc)
    shown = {name: _shown(name, value) for name, value in exc.params.items()} | _derived(exc)
    return str(template) % shown


def validation_error(exc: EngineError) -> ValidationError:
    """``exc`` as the ValidationError a service raises: translated, with the engine's code."""
    return ValidationError(engine_message(exc), code=exc.code)
