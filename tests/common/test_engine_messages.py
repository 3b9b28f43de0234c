"""The engine's refusals reach the screens in the user's language (R54).

The engine raises errors with an English message, a code and params (bingo/engine/errors.py);
bingo/common/engine_messages.py says each code in the active language. These tests check that every
code has a message, that each message takes the params the engine really gives, and that the
services and the cashier screen show the translated text.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import random
import re
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import translation

import bingo.engine
from bingo.common.engine_messages import GAME_STATE_NAMES, MESSAGES, engine_message, validation_error
from bingo.engine.detection import (
    DetectionError,
    Detector,
    PrizeRulesError,
    SoldCards,
    card_check,
    parse_pattern,
    prize_rules,
)
from bingo.engine.draw import DrawError, keyed_ball, next_ball
from bingo.engine.errors import EngineError, GenerationError
from bingo.engine.gamestate import (
    SUSPENSION_LIMIT,
    GameState,
    IllegalTransition,
    annul_check,
    resume_check,
    transition,
)
from bingo.engine.patterns import pattern_choose
from bingo.engine.prizes import PrizeKind, PrizePlan, PrizePlanError, plan_validate
from bingo.engine.sales import (
    Block,
    GameSeries,
    SaleError,
    SeriesStock,
    allocate,
    sales_closed_announcement,
    sales_open_announcement,
    second_series_validate,
)
from bingo.engine.variants import LineKind, Variant
from bingo.games import services
from bingo.models import GameState as StoredState
from tests.sales.test_services import HallSetup
from tests.sales.test_views import SCREEN, Desk, key_of, sell_form

ENGINE = Path(bingo.engine.__file__).parent
ERRORS: tuple[type[EngineError], ...] = (
    PrizePlanError,
    IllegalTransition,
    SaleError,
    GenerationError,
    DrawError,
    PrizeRulesError,
    DetectionError,
)


def stock(
    label: str = "K-12", *, series_id: int = 1, last_sold: int = 0, price: str = "100", size: int = 90
) -> SeriesStock:
    return SeriesStock(series_id, label, size, last_sold, Decimal(price))


def plan(*shares: tuple[PrizeKind, str]) -> PrizePlan:
    return PrizePlan(tuple((kind, Decimal(percent)) for kind, percent in shares))


L, B = PrizeKind.LINE, PrizeKind.BINGO
#: A moment for R55's 15 minutes.
T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
CORNERS, COLUMN = PrizeKind.FOUR_CORNERS, PrizeKind.COLUMN

#: A 90-ball card (five numbers in each row, R14) and a 75-ball one (free centre, R72).
CARD_90 = ((1, 10, 20, 30, 40, 0, 0, 0, 0), (0, 0, 0, 0, 41, 50, 60, 70, 80), (2, 0, 21, 0, 42, 0, 61, 0, 81))
CARD_75 = tuple(tuple(0 if (r, c) == (2, 2) else 15 * c + r + 1 for c in range(5)) for r in range(5))


def cells(card: tuple[tuple[int, ...], ...], *changes: tuple[int, int, int]) -> np.ndarray:
    """One card as a (1, rows, cols) block, with (row, column, value) changes."""
    block = np.array([card], dtype=np.uint8)
    for r, c, value in changes:
        block[0, r, c] = value
    return block


def sold(*changes: tuple[int, int, int], first: int = 1) -> Detector:
    """A detector of one 90-ball card, n.º ``first`` of series 3."""
    return Detector(prize_rules(Variant.B90), [SoldCards(3, first, cells(CARD_90, *changes))])


def check(*changes: tuple[int, int, int], balls: tuple[int, ...] = ()) -> object:
    """card_check of the lone 75-ball card."""
    return card_check(prize_rules(Variant.B75), cells(CARD_75, *changes), balls)


#: A real engine call raising each code of the errors whose raise sites all name a code.
TRIGGERS: dict[type[EngineError], dict[str, Callable[[], object]]] = {
    PrizePlanError: {
        "plan_empty": lambda: plan_validate(plan(), jackpot_active=False),
        "share_not_decimal": lambda: plan_validate(plan((L, "NaN"), (B, "60")), jackpot_active=False),
        "share_not_positive": lambda: plan_validate(plan((L, "0"), (B, "80")), jackpot_active=False),
        "prize_repeated": lambda: plan_validate(plan((B, "40"), (B, "40")), jackpot_active=False),
        "no_bingo": lambda: plan_validate(plan((L, "80")), jackpot_active=False),
        "total_not_80": lambda: plan_validate(plan((L, "20"), (B, "50")), jackpot_active=False),
        "bingo_below_minimum": lambda: plan_validate(plan((L, "30"), (B, "50")), jackpot_active=False),
        "bingo_below_minimum_after_jackpot": lambda: plan_validate(
            plan((L, "25"), (B, "55")), jackpot_active=True
        ),
    },
    IllegalTransition: {
        "state_final": lambda: transition(GameState.FINISHED, GameState.SELLING),
        "not_allowed": lambda: transition(GameState.PLANNED, GameState.SALES_CLOSED),
        "draw_begun": lambda: transition(GameState.DRAWING, GameState.SUSPENDED, balls_drawn=3),
        "suspend_first": lambda: annul_check(
            current=GameState.SALES_CLOSED, balls_drawn=0, cards_sold=4, suspended_at=None, now=T0
        ),
        "suspension_running": lambda: annul_check(
            current=GameState.SUSPENDED, balls_drawn=0, cards_sold=4, suspended_at=T0, now=T0
        ),
        "suspension_over": lambda: resume_check(suspended_at=T0, now=T0 + SUSPENSION_LIMIT),
    },
    SaleError: {
        "stock_size_invalid": lambda: stock(size=0),
        "stock_last_sold_invalid": lambda: stock(last_sold=91),
        "stock_price_invalid": lambda: stock(price="0"),
        "second_series_same": lambda: second_series_validate(stock(), stock()),
        "second_series_price": lambda: second_series_validate(
            stock(), stock("K-13", series_id=2, price="150")
        ),
        "second_series_started": lambda: second_series_validate(
            stock(), stock("K-13", series_id=2, last_sold=40)
        ),
        "second_series_sold_before": lambda: allocate(
            1, stock(last_sold=10), 1, stock("K-13", series_id=2, last_sold=5)
        ),
        "second_series_past_limit": lambda: allocate(
            1, stock(last_sold=90), 50, stock("K-13", series_id=2, last_sold=50)
        ),
        "first_start_invalid": lambda: allocate(1, stock(), 0, None),
        "first_last_sold_invalid": lambda: allocate(1, stock(last_sold=10), 50, None),
        "quantity_invalid": lambda: allocate(0, stock(), 1, None),
        "not_enough_cards": lambda: allocate(91, stock(), 1, None),
        "not_enough_cards_second_limit": lambda: allocate(
            100, stock(last_sold=80), 81, stock("K-13", series_id=2)
        ),
        "block_not_continuing": lambda: GameSeries.opening(stock()).after([Block(1, 5, 6)]),
        "nothing_sold": lambda: sales_closed_announcement([]),
        "too_many_series": lambda: sales_closed_announcement([("A-1", 1, 2), ("A-2", 1, 2), ("A-3", 1, 2)]),
        "range_invalid": lambda: sales_closed_announcement([("A-1", 3, 2)]),
        "nothing_announced": lambda: sales_open_announcement([]),
        "series_sold_out": lambda: sales_open_announcement([stock(last_sold=90)]),
    },
    DrawError: {
        "out_of_range": lambda: keyed_ball(Variant.B90, [], 91),
        "already_drawn": lambda: keyed_ball(Variant.B90, [5], 5),
        "drum_empty": lambda: next_ball(Variant.B30, range(1, 31), random.Random(0)),
    },
    PrizeRulesError: {
        "prize_repeated": lambda: prize_rules(Variant.B90, [L, L, B]),
        "no_bingo": lambda: prize_rules(Variant.B90, [L]),
        "prize_not_in_variant": lambda: prize_rules(Variant.B90, [CORNERS, B]),
        "extra_prizes_30": lambda: prize_rules(Variant.B30, [L, COLUMN, B]),
        "line_kinds_missing": lambda: prize_rules(Variant.B80, [L, B], line_kinds=[]),
        "line_kinds_without_line": lambda: prize_rules(Variant.B80, [B], line_kinds=[LineKind.ROW]),
        "line_kind_not_in_variant": lambda: prize_rules(Variant.B90, line_kinds=[LineKind.DIAGONAL]),
        "pattern_not_75": lambda: prize_rules(Variant.B90, pattern=[(0, 0)]),
        "pattern_with_extras": lambda: prize_rules(Variant.B75, [L, B], pattern=[(0, 0)]),
        "pattern_outside_card": lambda: prize_rules(Variant.B75, pattern=[(5, 0)]),
        "pattern_empty": lambda: prize_rules(Variant.B75, pattern=[(2, 2)]),
        "pattern_text_invalid": lambda: parse_pattern("X.X"),
        "pattern_unknown": lambda: pattern_choose("any_line", None),
        "pattern_key_and_cells": lambda: pattern_choose("x", "XXXXX/...../...../...../....."),
    },
    DetectionError: {
        "cells_shape": lambda: card_check(prize_rules(Variant.B90), np.zeros((3, 5), dtype=np.uint8), []),
        "number_out_of_column": lambda: sold((0, 0, 15)),
        "number_repeated": lambda: check((1, 0, 1)),
        "row_count": lambda: sold((0, 4, 0)),
        "free_cell_not_blank": lambda: check((2, 2, 33)),
        "blank_cell": lambda: Detector(
            prize_rules(Variant.B75), [SoldCards(3, 7, cells(CARD_75, (4, 4, 0)))]
        ),
        "card_number_invalid": lambda: sold(first=0),
        "card_sold_twice": lambda: Detector(
            prize_rules(Variant.B90),
            [SoldCards(3, 1, np.repeat(cells(CARD_90), 2, axis=0)), SoldCards(3, 2, cells(CARD_90))],
        ),
        "card_not_sold": lambda: sold().card_index(3, 5),
        "ball_invalid": lambda: sold().draw(91),
        "ball_repeated": lambda: check(balls=(5, 5)),
    },
}

#: GenerationError codes with the params their raise sites give.
GENERATION_PARAMS: dict[str, dict[str, object]] = {
    "unknown_algorithm": {"algorithm": "magic/9", "known": "cards/1, cards/2, strips/1"},
    "size_invalid": {"size": 0},
    "seed_invalid": {},
    "over_capacity": {"variant": "30", "capacity": 1_728_000},
    "over_max_cards": {"max_cards": 10_000_000},
    "over_grid_share": {"variant": "30", "max_cards": 432_000},
    "strips_only_90": {},
    "strips_size_not_multiple": {"size": 100},
    "strips_over_max": {"max_cards": 180_000},
    "cards_not_unique": {},
    "lines_not_unique": {},
    "rows_not_unique": {},
    "verification_failed": {"violations": "card 3: a row holds 4 numbers (R3)"},
    "refused": {"detail": "something the generator cannot do"},
}


def engine_errors() -> list[type[EngineError]]:
    """Every EngineError class of every engine module, found by importing them all."""
    for module in pkgutil.iter_modules([str(ENGINE)]):
        importlib.import_module(f"bingo.engine.{module.name}")
    found: list[type[EngineError]] = []
    todo = list(EngineError.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return sorted(found, key=lambda cls: cls.__name__)


def test_the_errors_of_this_module_are_all_found() -> None:
    assert set(ERRORS) <= set(engine_errors())


@pytest.mark.parametrize("error", engine_errors(), ids=lambda cls: cls.__name__)
def test_every_engine_error_code_has_a_message(error: type[EngineError]) -> None:
    assert error.codes, f"{error.__name__} declares its codes"
    unmapped = sorted(error.codes - set(MESSAGES.get(error, {})))
    assert not unmapped, (
        f"{error.__name__}: codes without a message in bingo/common/engine_messages.py: {unmapped}"
    )
    assert set(MESSAGES[error]) == set(error.codes), f"{error.__name__}: messages for codes it does not raise"


def test_every_code_the_engine_names_is_declared() -> None:
    by_name = {cls.__name__: cls for cls in ERRORS}
    named = 0
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in by_name
            ):
                continue
            codes = [kw.value for kw in node.keywords if kw.arg == "code"]
            if node.func.id != "GenerationError":  # see GENERATION_PARAMS: its sites may name none yet
                assert codes, f"{path.name}:{node.lineno}: {node.func.id} raised without a code"
            for value in codes:
                # A literal, or one of two literals: code="a" if ... else "b".
                literals = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
                for literal in literals:
                    assert isinstance(literal, ast.Constant), f"{path.name}:{node.lineno}: a literal code"
                    assert literal.value in by_name[node.func.id].codes, f"{path.name}:{node.lineno}"
                    named += 1
    assert named >= sum(len(codes) for codes in TRIGGERS.values())


@pytest.mark.parametrize("error", list(TRIGGERS), ids=lambda cls: cls.__name__)
def test_each_code_is_raised_and_reads_well_in_both_languages(error: type[EngineError]) -> None:
    assert set(TRIGGERS[error]) == set(error.codes), "a trigger for every code"
    for code, trigger in TRIGGERS[error].items():
        with pytest.raises(error) as raised:
            trigger()
        assert raised.value.code == code
        said = {}
        for language in ("en", "pt"):
            with translation.override(language):
                said[language] = engine_message(raised.value)
            assert not re.search(r"%[(%]", said[language]), (code, said)
        assert said["pt"] != said["en"], f"{code}: no Portuguese in the catalogue"


def test_each_generation_code_reads_well_with_its_params() -> None:
    assert set(GENERATION_PARAMS) == set(GenerationError.codes)
    for code, params in GENERATION_PARAMS.items():
        error = GenerationError("English text", code=code, params=params)
        with translation.override("en"):
            said = engine_message(error)
        assert not re.search(r"%[(%]", said), (code, said)


def test_a_generation_refusal_without_a_code_keeps_its_english_detail() -> None:
    error = GenerationError("strips of six exist only for 90-ball cards")  # a raise naming no code

    with translation.override("en"):
        said = engine_message(error)

    assert said == "The card set cannot be generated: strips of six exist only for 90-ball cards"


def test_english_messages_format_numbers_and_names() -> None:
    with pytest.raises(PrizePlanError) as raised:
        plan_validate(plan((L, "25"), (B, "55")), jackpot_active=True)
    with pytest.raises(PrizePlanError) as repeated:
        plan_validate(plan((L, "10"), (L, "10"), (B, "60")), jackpot_active=False)

    with translation.override("en"):
        error = validation_error(raised.value)
        assert error.messages == [
            "R7: the bingo prize must be at least 55 % of sales after the progressive jackpot's 3 % (R10); "
            "this plan pays 53.35 %."
        ]
        assert error.code == "bingo_below_minimum_after_jackpot"
        assert engine_message(repeated.value) == (
            "R7: each prize may appear only once in a plan; repeated: Line prize."
        )


@pytest.mark.parametrize("error", list(TRIGGERS), ids=lambda cls: cls.__name__)
def test_each_code_reads_well_in_english_with_the_params_it_is_raised_with(error: type[EngineError]) -> None:
    for code, trigger in TRIGGERS[error].items():
        with pytest.raises(error) as raised:
            trigger()
        assert raised.value.code == code
        with translation.override("en"):
            said = engine_message(raised.value)  # a KeyError if the message wants a param not given
        assert said != str(raised.value), f"{code}: the English text instead of a message"
        assert not re.search(r"%[(%]|\bNone\b", said), (code, said)


def refused(error: type[EngineError], call: Callable[[], object]) -> ValidationError:
    with pytest.raises(error) as raised:
        call()
    with translation.override("en"):
        return validation_error(raised.value)


def test_a_draw_refusal_reads_in_english() -> None:
    again = refused(DrawError, lambda: keyed_ball(Variant.B90, [5], 5))
    outside = refused(DrawError, lambda: keyed_ball(Variant.B75, [], 76))

    assert again.messages == ["Ball 5 has already been drawn in this game."]
    assert again.code == "already_drawn"
    assert outside.messages == ["76 is not a ball of the 75-ball game (1 to 75)."]


def test_a_prize_rules_refusal_reads_in_english_with_prize_and_line_names() -> None:
    pattern = refused(PrizeRulesError, lambda: prize_rules(Variant.B90, pattern=[(0, 0)]))
    corners = refused(PrizeRulesError, lambda: prize_rules(Variant.B80, [CORNERS, B]))
    extras = refused(PrizeRulesError, lambda: prize_rules(Variant.B30, [L, COLUMN, B]))
    diagonal = refused(PrizeRulesError, lambda: prize_rules(Variant.B90, line_kinds=[LineKind.DIAGONAL]))

    assert pattern.messages == ["R73 b): only the 75-ball bingo may be a pattern, not the 90-ball one."]
    assert pattern.code == "pattern_not_75"
    assert corners.messages == ["R74 b), R84 c): 80-ball games do not pay the four corners prize."]
    assert extras.messages == [
        "R84: a 30-ball game pays the bingo and at most one more prize (line, column or four corners); "
        "these rules ask for: Line prize, Column prize."
    ]
    assert diagonal.messages == [
        "R5 a): in the 90-ball game the line prize is won on a row, not on a diagonal."
    ]


def test_a_detection_refusal_names_the_sold_card_or_the_lone_one() -> None:
    numbered = refused(DetectionError, lambda: sold((0, 0, 15), first=12))
    lone = refused(DetectionError, lambda: check((2, 2, 33)))

    assert numbered.messages == ["Card n.º 12 of series 3: the number 15 cannot stand in column 1."]
    assert lone.messages == ["The card: the free cell in row 3, column 3 must be blank (R71 c), R72)."]


# --- through the services, in Portuguese and in English ----------------------------------------------


@pytest.fixture
def praia(db: None) -> HallSetup:
    return HallSetup()


def refusal(call: Callable[[], object], language: str) -> ValidationError:
    with translation.override(language), pytest.raises(ValidationError) as raised:
        call()
    return raised.value


def test_a_refused_prize_plan_reads_in_portuguese(praia: HallSetup) -> None:
    def create() -> object:
        return services.game_create(
            session=praia.session, variant="90", prize_plan={"line": "30", "bingo": "50"}
        )

    pt, en = refusal(create, "pt"), refusal(create, "en")

    assert pt.messages == [
        "R7: o prémio de bingo tem de ser de pelo menos 55 % das vendas; este plano paga 50 %."
    ]
    assert en.messages == ["R7: the bingo prize must be at least 55 % of sales; this plan pays 50 %."]
    assert pt.error_list[0].code == "bingo_below_minimum"


def test_the_jackpot_share_reads_with_a_decimal_comma_in_portuguese(db: None) -> None:
    jackpot = HallSetup(name="Sala Jackpot", jackpot_active=True)

    def create() -> object:
        return services.game_create(
            session=jackpot.session, variant="90", prize_plan={"line": "25", "bingo": "55"}
        )

    assert refusal(create, "pt").messages == [
        "R7: o prémio de bingo tem de ser de pelo menos 55 % das vendas depois dos 3 % do prémio acumulado "
        "progressivo (R10); este plano paga 53,35 %."
    ]


def test_an_illegal_transition_reads_in_portuguese(praia: HallSetup) -> None:
    planned = services.game_create(session=praia.session, variant="90")

    def close() -> object:
        return services.game_close_sales(game=planned)

    assert refusal(close, "pt").messages == ["Uma jogada não pode passar de «prevista» a «vendas fechadas»."]
    assert refusal(close, "en").messages == ["A game cannot move from “planned” to “sales closed”."]


def test_the_r38_refusal_reads_in_portuguese(praia: HallSetup) -> None:
    first, second = praia.series(1), praia.series(2)
    warm_up = praia.game(first)
    praia.sell(warm_up, 80)
    services.game_close_sales(game=warm_up)
    game = praia.game(first, second)  # 81-90 of A-1, then A-2 up to n.º 80 (R38 c)
    praia.sell(game, 90)

    pt, en = refusal(lambda: praia.sell(game, 1), "pt"), refusal(lambda: praia.sell(game, 1), "en")

    assert pt.messages == [
        "R38 c): não há cartões suficientes nesta jogada (pedidos: 1, disponíveis: 0); "
        "a série A-2 só pode ser vendida até ao n.º 80."
    ]
    assert en.messages == [
        "R38 c): not enough cards in this game (asked: 1, available: 0); "
        "series A-2 may be sold only up to n.º 80."
    ]
    assert pt.error_list[0].code == "not_enough_cards_second_limit"


def test_a_second_series_of_another_price_reads_in_portuguese(praia: HallSetup) -> None:
    first, dearer = praia.series(1, price="100.00"), praia.series(2, price="150.00")

    pt = refusal(lambda: praia.game(first, dearer), "pt")

    assert pt.messages == [
        "R38 a): a segunda série A-2 custa 150,00 e a primeira, A-1, custa 100,00; têm de ter o mesmo preço."
    ]


def test_the_cashier_screen_shows_the_r38_refusal_in_portuguese(db: None, client: Client) -> None:
    desk = Desk(name="Sala Esgotada")
    desk.sell(desk.selling, 88)
    client.force_login(desk.cashier)  # no language cookie: Portuguese (R54)
    key = key_of(client.get(SCREEN).content.decode())

    response = client.post(SCREEN, sell_form(desk, key, quantity=3, cash="300"))

    assert response.status_code == 400
    body = response.content.decode()
    assert re.search(
        r"R38: não há cartões suficientes nesta jogada \(pedidos: 3, disponíveis: 2\); "
        r"a série A-1 não tem segunda série onde continuar\.",
        body,
    )


def test_the_game_state_names_are_the_game_models_labels() -> None:
    """The messages name a game's states as the screens do: common may not import the games app,
    so its own names must stay equal to bingo.models.GameState's labels, in both languages."""
    assert set(GAME_STATE_NAMES) == set(StoredState.values) == {state.value for state in GameState}
    for language in ("en", "pt"):
        with translation.override(language):
            for state in StoredState:
                assert str(GAME_STATE_NAMES[state.value]) == str(state.label)
