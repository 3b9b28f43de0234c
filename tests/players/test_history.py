"""«O meu histórico» (R100, PT-806/65, PT-803/37): the player's online games with what they
staked, won and got back, built with the real services: online purchases (``online_buy``), the
system's draw and automatic prizes (bingo/autodraw), and an annulment with refund (R98)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from bingo.common.roles import Role, user_roles_set
from bingo.draw import services as draw_services
from bingo.models import Ball, Game, Player, Sale, WalletEntry
from bingo.players.selectors import player_history, wallet_balance
from cards.selectors import card_set_cells
from halls.models import Room
from tests.autodraw.helpers import (
    Clock,
    OnlineHall,
    Tasks,
    close_sales,
    committed,
    next_game,
    online_buy,
    play_to_the_end,
)
from tests.clients import logged_in

pytestmark = pytest.mark.django_db


@dataclass
class Played:
    lobby: OnlineHall
    ana: Player
    rui: Player
    won: Game
    lost: Game
    annulled: Game


def _start(clock: Clock, game: Game) -> Game:
    game = close_sales(clock, game)
    assert game.state == Game.State.DRAWING
    return game


@pytest.fixture
def played(db: None, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch) -> Played:
    """Ana wins one game (the only buyer), loses one to Rui (the balls favour Rui's card) and has
    one annulled (refunded); two days apart each on the hall's clock."""
    lobby = OnlineHall(tax_rate="10")
    lobby.series(1, price="100.00")
    ana, rui = lobby.player("ana"), lobby.player("rui")
    for player in (ana, rui):
        user_roles_set(user=player.user, roles=[Role.PLAYER])

    won = next_game(lobby, clock)
    online_buy(won, ana, 2)
    list(play_to_the_end(tasks, _start(clock, won)))

    clock.advance(2 * 86400)
    lost = next_game(lobby, clock)
    online_buy(lost, ana, 1)
    rui_sale = online_buy(lost, rui, 1)
    cells = card_set_cells(lobby.card_set)[rui_sale.first_number - 1]
    rows = [[int(v) for v in row if v] for row in cells]
    first = [n for row in rows for n in row]
    order = first + [n for n in range(1, 91) if n not in first]
    random_ball = draw_services.next_ball
    monkeypatch.setattr(draw_services, "next_ball", lambda variant, drawn, rng: order[len(list(drawn))])
    list(play_to_the_end(tasks, _start(clock, lost)))
    monkeypatch.setattr(draw_services, "next_ball", random_ball)

    clock.advance(2 * 86400)
    annulled = next_game(lobby, clock)
    online_buy(annulled, ana, 3)
    annulled = _start(clock, annulled)
    tasks.run_next()
    committed(
        lambda: draw_services.game_annul(game=annulled, user=lobby.manager, reason="Erro no anúncio (R57)")
    )
    for game in (won, lost, annulled):
        game.refresh_from_db()
    assert (won.state, lost.state, annulled.state) == ("finished", "finished", "annulled")
    return Played(lobby, ana, rui, won, lost, annulled)


def _prizes(player: Player, game: Game) -> Decimal:
    return sum(
        (
            e.amount
            for e in WalletEntry.objects.filter(
                player=player, kind="prize", prize_payment__winner__prize__game=game
            )
        ),
        Decimal("0.00"),
    )


def test_history_lists_won_lost_and_refunded_games_with_totals_to_the_cent(played: Played) -> None:
    """R100: newest first; stake, prizes (net of the 10 % tax), refund and net per game; the
    totals add up to what the wallet shows (deposit + net)."""
    history = player_history(player=played.ana)

    assert [g.game.pk for g in history.games] == [played.annulled.pk, played.lost.pk, played.won.pk]
    annulled, lost, won = history.games
    prize_money = _prizes(played.ana, played.won)
    assert prize_money > 0
    assert (won.cards, won.numbers, won.staked, won.won, won.net) == (
        2,
        won.numbers,
        Decimal("200.00"),
        prize_money,
        prize_money - Decimal("200.00"),
    )
    assert {p.kind for p in won.prizes} >= {"line", "bingo"}
    assert all(p.net < p.gross for p in won.prizes)  # the tax withheld (10 %)
    assert (won.result, won.outcome) == ("won", "finished")
    assert (lost.cards, lost.staked, lost.won, lost.net, lost.result) == (
        1,
        Decimal("100.00"),
        Decimal("0.00"),
        Decimal("-100.00"),
        "lost",
    )
    assert _prizes(played.ana, played.lost) == 0
    assert _prizes(played.rui, played.lost) > 0
    assert (annulled.cards, annulled.staked, annulled.refunded, annulled.net) == (
        3,
        Decimal("300.00"),
        Decimal("300.00"),
        Decimal("0.00"),
    )
    assert (annulled.result, annulled.outcome) == ("refunded", "annulled")
    assert history.staked == Decimal("600.00")
    assert history.won == prize_money
    assert history.refunded == Decimal("300.00")
    assert history.net == prize_money - Decimal("300.00")
    assert wallet_balance(player=played.ana) == Decimal("1000.00") + history.net


def test_history_never_shows_another_players_games(played: Played) -> None:
    history = player_history(player=played.rui)
    assert [g.game.pk for g in history.games] == [played.lost.pk]
    assert history.games[0].result == "won"
    assert history.staked == Decimal("100.00")
    assert wallet_balance(player=played.rui) == Decimal("1000.00") + history.net


def test_history_filter_by_the_halls_dates(played: Played) -> None:
    days = [_day(played, g) for g in (played.won, played.lost, played.annulled)]
    assert days[0] < days[1] < days[2]
    only_lost = player_history(player=played.ana, date_from=days[1], date_to=days[1])
    assert [g.game.pk for g in only_lost.games] == [played.lost.pk]
    assert (only_lost.staked, only_lost.net) == (Decimal("100.00"), Decimal("-100.00"))
    since = player_history(player=played.ana, date_from=days[1])
    assert [g.game.pk for g in since.games] == [played.annulled.pk, played.lost.pk]
    until = player_history(player=played.ana, date_to=days[0])
    assert [g.game.pk for g in until.games] == [played.won.pk]
    assert player_history(player=played.ana, date_to=days[0] - timedelta(days=1)).games == []


def _day(played: Played, game: Game) -> date:
    """The hall's date of the player's first purchase in ``game``."""
    first = Sale.objects.filter(game=game).order_by("created_at").first()
    assert first is not None
    return timezone.localtime(first.created_at, timezone=ZoneInfo(played.lobby.hall.time_zone)).date()


def test_history_takes_a_fixed_number_of_queries(played: Played, django_assert_max_num_queries: Any) -> None:
    """No N+1: three games or thirty, the same queries."""
    with django_assert_max_num_queries(4):
        history = player_history(player=played.ana)
    assert len(history.games) == 3
    with CaptureQueriesContext(connection) as one:
        player_history(player=played.rui)
    with CaptureQueriesContext(connection) as three:
        player_history(player=played.ana)
    assert len(one.captured_queries) == len(three.captured_queries)


def test_history_page_in_portuguese_with_totals_and_the_last_game(played: Played) -> None:
    """PT-806/65: the last game's balls in order, the player's cards, the prizes and winners."""
    client = logged_in(played.ana.user)
    page = client.get(reverse("players:history"))
    assert page.status_code == 200
    html = page.content.decode()
    for words in (
        "O meu histórico",
        "Última jogada",
        "Apostado",
        "Ganho",
        "Reembolsado",
        "Anulado",
        "Perdido",
    ):
        assert words in html, words
    assert 'data-staked="600.00"' in html
    assert f'data-net="{player_history(player=played.ana).net}"' in html
    balls = list(
        Ball.objects.filter(game=played.annulled).order_by("position").values_list("number", flat=True)
    )
    assert len(balls) == 1
    assert f"<li>{balls[0]}</li>" in html
    assert html.count('class="card-grid"') == 3
    # Linked from the dashboard and the wallet.
    assert reverse("players:history") in client.get(reverse("dashboard-player")).content.decode()
    assert reverse("players:history") in client.get(reverse("players:wallet")).content.decode()


def test_history_page_filter_refuses_bad_dates_and_changes_nothing(played: Played) -> None:
    client = logged_in(played.ana.user)
    bad = client.get(reverse("players:history"), {"date_from": "2026-13-40"})
    assert bad.status_code == 400
    assert "Introduza uma data válida" in bad.content.decode() or "data válida" in bad.content.decode()
    assert bad.content.decode().count("<tr data-game=") == 3  # everything still listed
    swapped = client.get(reverse("players:history"), {"date_from": "2026-12-02", "date_to": "2026-12-01"})
    assert swapped.status_code == 400
    assert "A primeira data é posterior à segunda." in swapped.content.decode()
    assert client.get(reverse("players:history_csv"), {"date_from": "x"}).status_code == 400


def test_history_csv_has_the_filtered_list(played: Played) -> None:
    client = logged_in(played.ana.user)
    response = client.get(reverse("players:history_csv"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode()), delimiter=";"))
    assert rows[0][:2] == ["Data", "Salão"]
    assert len(rows) == 4
    annulled, lost, won = rows[1:]  # newest first
    assert [int(r[2]) for r in rows[1:]] == [played.annulled.number, played.lost.number, played.won.number]
    assert (annulled[4], annulled[6], annulled[9], annulled[10]) == ("3", "300.00", "300.00", "0.00")
    assert (lost[6], lost[8], lost[10], lost[11]) == ("100.00", "0.00", "-100.00", "Perdido")
    assert won[8] == f"{_prizes(played.ana, played.won)}"
    day = _day(played, played.lost)
    filtered = client.get(reverse("players:history_csv"), {"date_from": day, "date_to": day})
    rows = list(csv.reader(io.StringIO(filtered.content.decode()), delimiter=";"))
    assert [int(r[2]) for r in rows[1:]] == [played.lost.number]


def test_history_csv_keeps_staff_text_from_running_as_a_formula(played: Played) -> None:
    """A room named by staff like a formula is written as text, so a spreadsheet opening the
    player's statement does not run it; amounts keep their sign."""
    Room.objects.filter(pk=played.won.session.room_id).update(name='=HYPERLINK("http://x","y")')
    rows = list(
        csv.reader(
            io.StringIO(logged_in(played.ana.user).get(reverse("players:history_csv")).content.decode()),
            delimiter=";",
        )
    )
    assert {r[1] for r in rows[1:]} == {'\'=HYPERLINK("http://x","y")'}
    assert rows[2][10] == "-100.00"


def test_history_api(played: Played) -> None:
    client = logged_in(played.ana.user)
    body = client.get("/api/players/me/history/").json()
    assert [g["game"] for g in body["games"]] == [played.annulled.pk, played.lost.pk, played.won.pk]
    assert body["staked"] == "600.00"
    assert body["refunded"] == "300.00"
    assert body["games"][0]["net"] == "0.00"
    assert body["games"][1]["result"] == "lost"
    day = _day(played, played.won)
    only = client.get("/api/players/me/history/", {"from": day, "to": day}).json()
    assert [g["game"] for g in only["games"]] == [played.won.pk]
    swapped = client.get("/api/players/me/history/", {"from": "2026-12-02", "to": "2026-12-01"})
    assert swapped.status_code == 400
    # Only a player: the hall's cashier gets 403.
    staff = Client()
    staff.force_login(played.lobby.cashier)
    assert staff.get("/api/players/me/history/").status_code == 403
    assert staff.get(reverse("players:history")).status_code in (302, 403)
