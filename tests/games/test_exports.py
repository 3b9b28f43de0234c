"""bingo/games/exports.py: one game on its own, as the acta records it, at the same cost
wherever it stands in the session; the ball set that drew it and the tax on each share."""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bingo.draw import services as draw_services
from bingo.games import exports
from bingo.models import Game
from tests.draw.test_services import Draw, all_numbers

pytestmark = pytest.mark.django_db


def finished(hall: Draw, cards: int = 4, mode: str = "physical") -> Game:
    """A game drawn to its bingo: card 1's numbers keyed in, or the system's balls until a card
    holds it, each prize awarded as soon as a card holds it."""
    game = hall.drawing(cards=cards, mode=mode)
    if mode == "physical":
        hall.key(game, *all_numbers(hall.card(game, 1)))
    while game.state == "drawing":
        if mode != "physical":
            draw_services.game_draw_ball(game=game, user=hall.caller, position=game.balls.count() + 1)
        for kind in ("line", "bingo"):
            if not game.prizes.filter(kind=kind).exists():
                try:
                    draw_services.prize_award(game=game, user=hall.caller, kind=kind)
                except ValidationError:  # no card holds it yet
                    break
        game.refresh_from_db()
    return game


def test_one_game_costs_the_same_queries_whatever_its_position() -> None:
    hall = Draw()
    games = [finished(hall) for _ in range(4)]
    costs = []
    for game in (games[0], games[-1]):
        with CaptureQueriesContext(connection) as queries:
            exports.game_export_data(game=game)
        costs.append(len(queries))
    assert costs[0] == costs[1]


def test_one_game_is_exactly_what_the_session_export_lists() -> None:
    hall = Draw()
    games = [finished(hall), finished(hall, mode="electronic")]
    data = exports.session_export_data(session=hall.session)
    assert data["games"] == [exports.game_export_data(game=g) for g in games]
    header = exports.session_header_data(session=hall.session)
    assert {k: data[k] for k in header} == header


def test_the_ball_set_that_drew_the_game_is_named() -> None:  # R22-R25
    hall = Draw()
    physical = exports.game_export_data(game=finished(hall))
    electronic = exports.game_export_data(game=finished(hall, mode="electronic"))
    assert physical["ball_set"] == {"serial_number": "JB-1", "games_played": 1}
    assert electronic["ball_set"] is None


def test_the_tax_on_each_share_follows_the_hall_s_rule() -> None:  # R61 g)
    hall = Draw(tax_rate=Decimal("10"), tax_threshold=Decimal("100"))
    data = exports.game_export_data(game=finished(hall, cards=10))  # line 200, bingo 600 (R7)
    due = Decimal(0)
    for prize in data["prizes"]:
        each = Decimal(prize["amount_each"])
        tax = (each / 10).quantize(Decimal("1"), rounding=ROUND_FLOOR) if each >= 100 else Decimal(0)
        assert Decimal(prize["tax_each"]) == tax
        due += tax * len(prize["winning_cards"])
    assert Decimal(data["tax_due"]) == due > 0
    assert data["tax_withheld"] == "0.00"  # nothing paid yet
