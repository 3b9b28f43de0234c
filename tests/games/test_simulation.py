"""``simulate_session`` and ``session_export``: whole sessions of every variant, checked against a
plain reference computed from the exported balls and the cards on record."""

from __future__ import annotations

import io
import itertools
import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from actas.models import ActaEntry, ActaNote
from actas.selectors import acta_verify
from bingo.models import PrizePayment, PrizeWinner, Session
from cards import selectors as card_selectors
from cards.models import Series

pytestmark = pytest.mark.django_db(transaction=True)  # the cashiers sell from threads of their own


def simulate(*args: str) -> int:
    out = io.StringIO()
    call_command("simulate_session", *args, stdout=out)
    return int(out.getvalue().strip())


def export(session_id: int, path: Path) -> dict:
    call_command("session_export", str(session_id), "--output", str(path), stdout=io.StringIO())
    return json.loads(path.read_text(encoding="utf-8"))


def targets(grid: list[list[int | None]], kind: str, line_kinds: list[str]) -> list[set[int | None]]:
    """Every combination of ``kind`` on a card, as the numbers it needs (None: the free centre)."""
    rows, cols = len(grid), len(grid[0])
    square = rows == cols
    if kind == "bingo":
        return [{n for row in grid for n in row if n is not None}]
    if kind == "four_corners":
        return [{grid[0][0], grid[0][-1], grid[-1][0], grid[-1][-1]} - {None}]
    found: list[set[int | None]] = []
    kinds = ["column"] if kind == "column" else line_kinds
    if "row" in kinds:
        found += [{n for n in row if n is not None} for row in grid]
    if "column" in kinds:
        found += [{grid[r][c] for r in range(rows)} - {None} for c in range(cols)]
    if "diagonal" in kinds and square:
        found.append({grid[i][i] for i in range(rows)} - {None})
        found.append({grid[i][cols - 1 - i] for i in range(rows)} - {None})
    return found


def holders(game: dict, cards: dict[tuple[int, int], list], kind: str, balls: int) -> set[tuple[int, int]]:
    drawn = set(game["balls"][:balls])
    kinds = game["prize_plan"]["win_rules"]["line_kinds"]
    return {key for key, grid in cards.items() if any(t <= drawn for t in targets(grid, kind, kinds))}


@pytest.mark.parametrize(("variant", "cards"), [("90", 90), ("80", 60), ("75", 60), ("30", 30)])
def test_a_simulated_session_awards_exactly_the_cards_that_hold_each_prize(
    variant: str, cards: int, tmp_path: Path
) -> None:
    session_id = simulate(
        "--variant", variant, "--games", "2", "--cashiers", "3", "--cards", str(cards), "--seed", "5"
    )
    data = export(session_id, tmp_path / "session.json")

    assert data["session"]["id"] == session_id
    assert data["session"]["end"] is not None
    assert [g["number"] for g in data["games"]] == [1, 2]
    for game in data["games"]:
        assert game["state"] == "finished"
        assert game["variant"] == variant
        assert game["cards_sold"] == cards
        assert Decimal(game["total_collected"]) == Decimal(100 * cards)
        assert len(game["balls"]) == len(set(game["balls"]))
        (sold,) = game["series_sold"]
        assert (sold["first_card_sold"], sold["last_card_sold"]) == (1, cards)
        check_prizes(game, session_id)
    # R59: every game is in the acta as it ended, and the acta holds.
    verified = acta_verify(session=Session.objects.get(pk=session_id))
    assert (verified.entries, verified.intact) == (2, True)


def check_prizes(game: dict, session_id: int) -> None:
    """Every prize of ``game`` went to exactly the cards in play that held it when it was
    awarded, in equal shares of its plan's part of the prize base (R6, R7, R46, R49)."""
    grids = {}
    for sold in game["series_sold"]:
        series = Series.objects.get(order_number=sold["order_number"], hall__rooms__sessions__pk=session_id)
        for n in range(sold["first_card_sold"], sold["last_card_sold"] + 1):
            grids[(sold["order_number"], n)] = card_selectors.card_get(card_set=series.card_set, number=n)
    assert len(grids) == game["cards_in_play"]
    kinds = [p["kind"] for p in game["prizes"]]
    assert kinds[-1] == "bingo"  # R44: the bingo ends the game
    assert set(kinds) == set(game["prize_plan"]["shares"])
    for prize in game["prizes"]:
        at = prize["ball_count"]
        won = {(w["series"], w["card"]) for w in prize["winning_cards"]}
        # Exactly the cards holding it at that ball (R46, R49), and none one ball before (the
        # simulation confirms a prize at the first ball any card holds it).
        assert won == holders(game, grids, prize["kind"], at)
        assert not holders(game, grids, prize["kind"], at - 1)
        each, total = Decimal(prize["amount_each"]), Decimal(prize["total"])
        if not game["prize_plan"]["jackpot_active"]:
            share = Decimal(game["prize_plan"]["shares"][prize["kind"]])
            assert total == (Decimal(game["prize_base"]) * share / 100).to_integral_value("ROUND_FLOOR")
        assert each * len(won) + Decimal(prize["remainder"]) == total  # R6
        assert Decimal(prize["remainder"]) < len(won)  # rounded down to the escudo
    bingo_at = game["prizes"][-1]["ball_count"]
    assert len(game["balls"]) == bingo_at  # nothing drawn after the bingo


def test_double_cards_play_two_games_of_the_simulated_session(tmp_path: Path) -> None:  # R15, R45
    session_id = simulate(
        "--variant", "90", "--games", "3", "--cashiers", "2", "--cards", "90", "--seed", "7", "--double-cards"
    )
    one, two, three = export(session_id, tmp_path / "d.json")["games"]
    assert one["double_cards"] == {"game": "first", "other_game": 2}
    assert two["double_cards"] == {"game": "second", "other_game": 1}
    assert three["double_cards"] is None  # an odd last game sells single cards
    assert two["series_sold"] == one["series_sold"]  # the same cards play again
    assert (one["cards_sold"], one["total_collected"]) == (90, "9000.00")
    assert (two["cards_sold"], two["cards_in_play"], two["total_collected"]) == (0, 90, "0.00")
    assert one["prize_base"] == two["prize_base"] == "4500.00"  # half the price in each game
    assert three["prize_base"] == "9000.00"
    for game in (one, two, three):
        assert game["state"] == "finished"
        check_prizes(game, session_id)
    # Every winner paid, after the second game of its pair (R45).
    assert PrizePayment.objects.filter(winner__prize__game__session_id=session_id).count() == (
        PrizeWinner.objects.filter(prize__game__session_id=session_id).count()
    )


def test_the_jackpot_chain_carries_from_game_to_game(tmp_path: Path) -> None:  # R9-R11
    session_id = simulate(
        "--variant", "90", "--games", "3", "--cashiers", "2", "--cards", "90", "--jackpot-balls", "90"
    )
    data = export(session_id, tmp_path / "s.json")
    assert data["session"]["jackpot_balls"] == 90
    games = data["games"]
    # Within 90 balls every bingo wins it: each game contributes its 3 % (R10), then pays the
    # balance and puts the base back (R11).
    for before, after in itertools.pairwise(games):
        assert after["jackpot"]["balance_before"] == before["jackpot"]["balance_after"]
    for game in games:
        jackpot = game["jackpot"]
        assert jackpot["won"] is True
        assert Decimal(jackpot["contribution"]) == Decimal("216.00")  # 3 % of 80 % of 9 000 (R10)
        assert Decimal(jackpot["paid"]) == Decimal(jackpot["balance_before"]) + Decimal(
            jackpot["contribution"]
        )
        assert Decimal(jackpot["balance_after"]) == Decimal("10000.00")
        prize = next(p for p in game["prizes"] if p["kind"] == "jackpot")
        assert Decimal(prize["total"]) == Decimal(jackpot["paid"])


def test_export_refuses_an_unknown_session(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no session 999"):
        call_command("session_export", "999", "--output", str(tmp_path / "x.json"))
    assert not Session.objects.exists()


def test_a_simulated_session_gives_an_acta_with_everything_it_records(
    tmp_path: Path,
) -> None:  # R55, R59, R61
    session_id = simulate(
        "--variants", "90,80,75,30", "--games", "5", "--cashiers", "2", "--cards", "30", "--seed", "11",
        "--annul", "3", "--complaint", "2", "--replace-ball",
    )  # fmt: skip
    session = Session.objects.get(pk=session_id)
    data = export(session_id, tmp_path / "acta.json")

    # Every game is in the acta as it ended, the annulled one as annulled, and the acta holds.
    verified = acta_verify(session=session)
    assert (verified.intact, verified.entries, verified.notes) == (True, 5, 3)
    entries = ActaEntry.objects.filter(acta__session=session).order_by("position")
    assert [(e.game.number, e.kind) for e in entries] == [
        (1, "finished"), (2, "finished"), (3, "annulled"), (4, "finished"), (5, "finished"),
    ]  # fmt: skip

    # The four variants in turn, each drawn with its checked ball set named as the fallback.
    games = data["games"]
    assert [g["variant"] for g in games] == ["90", "80", "75", "30", "90"]
    assert [g["ball_set"]["serial_number"] for g in games] == [
        "SIM-90",
        "SIM-80",
        "SIM-75",
        "SIM-30",
        "SIM-90",
    ]
    for game in games[:2] + games[3:]:
        assert game["state"] == "finished"
        check_prizes(game, session_id)

    # R55: suspended before its first ball, annulled, every card refunded.
    annulled = games[2]
    assert (annulled["state"], annulled["balls"], annulled["prizes"]) == ("annulled", [], [])
    assert annulled["state_reason"]
    assert annulled["cards_sold"] == 30
    assert annulled["refunded"] == annulled["total_collected"] == "3000.00"

    # R61 j), l), h): the complaint about game 2 with its decision, game 3's failure, the close.
    complaint, failure, closed = ActaNote.objects.filter(acta__session=session).order_by("position")
    assert closed.kind == "session_closed"
    assert (failure.kind, failure.game.number) == ("equipment_failure", 3)
    assert (complaint.kind, complaint.game.number) == ("complaint", 2)
    assert complaint.text
    assert complaint.decision

    # R26, R61 k): one ball of the set that drew game 2 (of 5) replaced during the session.
    (replaced,) = data["ball_replacements"]
    assert (replaced["ball_set"], replaced["replacement_set"], replaced["repeated"]) == (
        "SIM-80",
        None,
        False,
    )
    assert 1 <= replaced["ball_number"] <= 80
    assert replaced["reason"] == "cracked"


@pytest.mark.parametrize(
    "args",
    [
        ("--games", "2", "--annul", "3"),
        ("--games", "2", "--complaint", "0"),
        ("--annul", "1", "--double-cards"),
    ],
)
def test_the_simulation_refuses_a_game_it_does_not_play(args: tuple[str, ...]) -> None:
    with pytest.raises(CommandError):
        simulate(*args)
    assert not Session.objects.exists()
