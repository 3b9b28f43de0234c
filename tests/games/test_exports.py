"""bingo/games/exports.py: one game on its own, as the acta records it, at the same cost
wherever it stands in the session; the whole session in a fixed number of queries whatever its
number of games; the ball set that drew a game and the tax on each share."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import ROUND_FLOOR, Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bingo.ballsets import services as ballset_services
from bingo.draw import services as draw_services
from bingo.engine.acta import canonical_json
from bingo.games import exports
from bingo.jackpot import services as jackpot_services
from bingo.models import Game
from tests.draw.test_services import Draw, all_numbers
from tests.games import export_per_game
from tests.games.test_doubles import Doubles

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


def annulled(hall: Draw, game: Game) -> Game:
    """``game`` annulled: a ball out when it is drawing (R57), else suspended for over 15
    minutes first (R55); its cards refunded."""
    if game.state == "drawing":
        hall.key(game, 7)
    else:
        draw_services.game_suspend(game=game, user=hall.caller, reason="power cut")
        Game.objects.filter(pk=game.pk).update(suspended_at=timezone.now() - timedelta(minutes=16))
    return draw_services.game_annul(game=game, user=hall.caller, reason="wrong ball announced")


def rich_games(hall: Doubles) -> list[Game]:
    """Six games with every kind of record a game's export holds: prizes shared, taxed and paid,
    the jackpot won (R9-R11) and given back (R57), a pair of double cards (R15) and the first of
    another pair annulled, refunds, an electronic draw, a game still selling nothing sold yet."""
    won = hall.drawing(cards=10)
    hall.finish(won, 5)  # 15 balls, within the jackpot's 40
    hall.pay(won, 5)
    first = hall.first_game(cards=3, price="25.01")  # 75.03: halves of 37.51 and 37.52
    hall.finish(first, 2)
    second = hall.start(hall.second_game())
    hall.finish(second, 3)
    hall.pay(first, 2)
    back = annulled(hall, hall.drawing(cards=4))
    refunded = annulled(hall, hall.first_game(cards=3))
    electronic = finished(hall, mode="electronic")
    selling = hall.game(hall.series(next(hall._orders)))
    return [won, first, second, back, refunded, electronic, selling]


def rich_hall() -> Doubles:
    hall = Doubles(jackpot_active=True, tax_rate=Decimal("10"), tax_threshold=Decimal("100"))
    jackpot_services.jackpot_configure(hall=hall.hall, base_value=Decimal("5000"))
    jackpot_services.jackpot_seed(hall=hall.hall, amount=Decimal("5000"))
    hall.session.jackpot_balls = 40
    hall.session.save()
    return hall


def test_the_batched_export_is_byte_for_byte_the_per_game_one() -> None:  # issue 23
    hall = rich_hall()
    games = rich_games(hall)
    ballset_services.ball_replace(
        ball_set=hall.ball_set, ball_number=17, reason="chipped", session=hall.session
    )
    batched = exports.session_export_data(session=hall.session)
    per_game = export_per_game.session_export_data_per_game(session=hall.session)
    # What session_export writes, and what the acta hashes of each game.
    assert json.dumps(batched, ensure_ascii=False, indent=2) == json.dumps(
        per_game, ensure_ascii=False, indent=2
    )
    for game in games:
        one = exports.game_export_data(game=game)
        before = export_per_game.game_export_data_per_game(game=game)
        assert json.dumps(one, ensure_ascii=False) == json.dumps(before, ensure_ascii=False)
        assert canonical_json(one) == canonical_json(before)
    # The session holds what it is meant to, or the comparison proves little.
    rows = batched["games"]
    assert [g["state"] for g in rows] == [
        "finished", "finished", "finished", "annulled", "annulled", "finished", "selling"
    ]  # fmt: skip
    assert rows[0]["jackpot"]["won"]
    assert rows[0]["tax_withheld"] != "0.00"
    assert any(p["kind"] == "jackpot" for p in rows[0]["prizes"])
    assert rows[1]["double_cards"] == {"game": "first", "other_game": 3}
    assert rows[2]["double_cards"] == {"game": "second", "other_game": 2}
    assert rows[1]["prize_base"] != rows[2]["prize_base"]  # 25.01 a card: the halves differ (R15)
    assert rows[4]["double_cards"] == {"game": "first", "other_game": None}
    assert rows[3]["refunded"] == "400.00"
    assert rows[4]["refunded"] == "300.00"
    assert rows[3]["jackpot"]["contribution"] != "0.00"
    assert rows[5]["ball_set"] is None
    assert rows[0]["ball_set"] is not None
    assert rows[6]["series_sold"][0]["last_card_sold"] is None
    assert rows[6]["total_collected"] == "0.00"
    assert len(batched["ball_replacements"]) == 1


def test_the_session_export_costs_the_same_queries_for_2_and_6_games() -> None:  # issue 23
    hall = rich_hall()
    first = hall.first_game(cards=6, price="25.01")  # R15: a pair of double cards
    hall.finish(first, 2)
    hall.finish(hall.start(hall.second_game()), 3)
    costs = []
    with CaptureQueriesContext(connection) as queries:
        exports.session_export_data(session=hall.session)
    costs.append(len(queries))
    won = hall.drawing(cards=10)
    hall.finish(won, 5)
    hall.pay(won, 5)
    annulled(hall, hall.drawing(cards=4))
    finished(hall, mode="electronic")
    hall.game(hall.series(next(hall._orders)))
    assert hall.session.games.count() == 6
    with CaptureQueriesContext(connection) as queries:
        exports.session_export_data(session=hall.session)
    costs.append(len(queries))
    assert costs[0] == costs[1]
