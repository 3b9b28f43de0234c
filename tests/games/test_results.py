"""A finished or annulled game's results page (bingo.games.views.game_results, read by
bingo.games.selectors.game_results_get): the balls in order, each prize with its winning cards,
equal shares and rounding remainder (R6), the jackpot's movements (R9-R11, R57), the payments
made and the shares still due (R50); for the staff of the game's hall only; linked from the
session's page, the caller's console, the price board and the inspector's portal."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bingo.common.money import money_display
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.games import selectors
from bingo.models import Game, Prize, PrizeWinner
from cards import selectors as card_selectors
from halls.models import StaffMembership
from tests.draw.test_services import all_numbers, row
from tests.draw.test_views import Console, english
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def results_url(game: Game) -> str:
    return reverse("games:game_results", args=[game.pk])


def staff(hall: Console, role: Role, name: str) -> User:
    user = UserFactory(username=f"{name}-{hall.hall.name}", roles=[role])
    StaffMembership.objects.create(hall=hall.hall, user=user, role=role.value)
    return user


def section(page: str, marker: str) -> str:
    """The part of ``page`` from the element carrying ``marker`` to the next ``</section>`` or prize."""
    start = page.index(marker)
    end = min(
        i for i in (page.find("</section>", start), page.find('class="results-prize"', start + 1)) if i > 0
    )
    return page[start:end]


class Played:
    """A game of a hall with the jackpot (R10), 5 cards of 100 CVE sold: 500 CVE, of which the
    jackpot takes 12, the line 97 and the bingo 291. Cards 1 and 2 share the line: 97 is prime,
    so however many cards share it a remainder is left (R6). Card 1 then wins the bingo and is
    paid at the desk; card 2's line share is still due."""

    def __init__(self) -> None:
        self.hall = Console(jackpot_active=True)
        game = self.hall.drawing(cards=5)
        one, two = self.hall.card(game, 1), self.hall.card(game, 2)
        line_balls = list(dict.fromkeys(row(one, 0) + row(two, 0)))
        self.hall.key(game, *line_balls)
        self.line = draw_services.prize_award(game=game, user=self.hall.caller, kind="line")
        self.hall.key(game, *[n for n in all_numbers(one) if n not in line_balls])
        self.bingo = draw_services.prize_award(game=game, user=self.hall.caller, kind="bingo")
        series = self.hall.series_of(game)
        self.payout = draw_services.prize_pay(
            series=series,
            card_number=1,
            check_code=card_selectors.card_check_code(series=series, number=1),
            cash_desk=self.hall.desk,
            cashier=self.hall.cashier,
        )
        game.refresh_from_db()
        self.game = game


@pytest.fixture
def played(db: None) -> Played:
    return Played()


def test_the_results_show_the_balls_prizes_shares_remainder_jackpot_and_payments(
    client: Client, played: Played
) -> None:  # R6, R10, R42, R50
    game, line = played.game, played.line
    assert game.state == "finished"
    # The setup holds: cards 1 and 2 (and any other holding a line then) share 97 CVE.
    assert (line.total, line.winners >= 2, line.remainder > 0) == (Decimal("97"), True, True)
    client.force_login(played.hall.caller)

    page = english(client).get(results_url(game)).content.decode()

    # Every ball, in the order drawn (R42).
    balls = list(game.balls.order_by("position").values_list("number", flat=True))
    assert [int(n) for n in re.findall(r'data-ball="(\d+)"', page)] == balls
    # The line: its value, each card's equal share and what rounding down left (R6).
    shared = section(page, 'data-prize="line"')
    assert "97 CVE" in shared
    assert f"<strong data-prize-each>{money_display(line.amount_each, 'CVE')}</strong>" in shared
    assert f"<strong data-prize-remainder>{money_display(line.remainder, 'CVE')}</strong>" in shared
    winners = PrizeWinner.objects.filter(prize=line)
    assert len(re.findall(r"data-winner=", shared)) == line.winners
    for winner in winners:
        assert f'data-winner="A-1 n.º {winner.card_number}"' in shared
    # Card 1 was paid at the desk, by whom and when; card 2's share is still due.
    assert re.search(r'data-winner="A-1 n.º 1" data-paid>', shared)
    assert re.search(r'data-winner="A-1 n.º 2" data-due>', shared)
    assert f"Paid at Caixa 1 by {played.hall.cashier.username} at" in shared
    assert "Still due" in shared
    bingo = section(page, 'data-prize="bingo"')
    assert "291 CVE" in bingo
    assert 'data-winner="A-1 n.º 1" data-paid>' in bingo
    # The jackpot: this game's 3 % contribution (R10).
    assert re.search(
        r'data-jackpot-move="contribution">\s*<td>Contribution \(R10\)</td>\s*'
        r'<td class="num" data-amount>12 CVE</td>',
        page,
    )
    # What was paid and what is still owed.
    paid = played.payout.gross
    due = sum(
        (w.amount for w in PrizeWinner.objects.filter(prize__game=game, payment__isnull=True)), Decimal(0)
    )
    assert due > 0
    assert f"<dd data-paid-total>{money_display(paid, 'CVE')}</dd>" in page
    assert f"<dd data-due-total>{money_display(due, 'CVE')}" in page
    assert "<dd data-collected>500 CVE</dd>" in page


def test_the_results_are_read_in_a_fixed_number_of_queries(played: Played) -> None:
    # A game with one prize and nothing paid reads as many as one with shared prizes and payments.
    small = Console(name="Sala Mindelo")
    other = small.drawing(cards=2)
    small.key(other, *all_numbers(small.card(other, 1)))
    draw_services.prize_award(game=other, user=small.caller, kind="line")
    draw_services.prize_award(game=other, user=small.caller, kind="bingo")

    counts = []
    for game in (played.game, other):
        with CaptureQueriesContext(connection) as queries:
            results = selectors.game_results_get(game=Game.objects.get(pk=game.pk))
            assert results.prizes
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_results_selector_stays_under_its_query_budget(
    played: Played, django_assert_max_num_queries
) -> None:
    game = Game.objects.select_related("session__room__hall").get(pk=played.game.pk)
    # The acta's record of the game (game_export_data: ten, one more for double cards), its
    # winning cards with their payments, the jackpot's movements.
    with django_assert_max_num_queries(12):
        results = selectors.game_results_get(game=game)
        assert sum(len(p.cards) for p in results.prizes) == played.line.winners + played.bingo.winners


def test_an_annulled_games_results_show_the_refund_and_the_jackpot_given_back(client: Client) -> None:
    # R57, R10
    hall = Console(jackpot_active=True)
    game = hall.drawing(cards=5)
    hall.key(game, 5, 6)
    draw_services.game_annul(game=game, user=hall.caller, reason="ball 6 announced as 9")
    client.force_login(hall.caller)

    page = english(client).get(results_url(game)).content.decode()

    assert 'data-results-state="annulled"' in page
    assert "every card sold was refunded in full (500 CVE)" in page
    assert "ball 6 announced as 9" in page
    assert [int(n) for n in re.findall(r'data-ball="(\d+)"', page)] == [5, 6]
    assert "data-no-prizes" in page
    assert 'data-jackpot-move="contribution"' in page
    reversal = section(page, 'data-jackpot-move="reversal"')
    assert "-12 CVE" in reversal


# --- who reads them ------------------------------------------------------------------------------


@pytest.mark.parametrize("role", [Role.MANAGER, Role.CALLER, Role.CASHIER, Role.INSPECTOR])
def test_the_halls_staff_read_the_results(client: Client, played: Played, role: Role) -> None:
    client.force_login(staff(played.hall, role, role.value))
    response = client.get(results_url(played.game))
    assert response.status_code == 200
    assert 'data-prize="line"' in response.content.decode()


@pytest.mark.parametrize("role", [Role.MANAGER, Role.CALLER, Role.CASHIER, Role.INSPECTOR])
def test_another_halls_staff_get_404(client: Client, played: Played, role: Role) -> None:
    other = Console(name="Sala Mindelo")
    client.force_login(staff(other, role, role.value))
    assert client.get(results_url(played.game)).status_code == 404


def test_a_player_gets_403_and_anonymous_goes_to_log_in(client: Client, played: Played) -> None:
    assert client.get(results_url(played.game))["Location"].startswith("/entrar/")
    client.force_login(UserFactory(username="jogador", roles=[Role.PLAYER]))
    assert client.get(results_url(played.game)).status_code == 403


def test_a_game_not_ended_has_no_results_yet(client: Client) -> None:
    hall = Console()
    game = hall.drawing(cards=3)
    client.force_login(hall.caller)
    assert client.get(results_url(game)).status_code == 404
    assert "data-results-link" not in client.get(reverse("draw:console", args=[game.pk])).content.decode()


def test_only_a_get_reads_them(client: Client, played: Played) -> None:
    client.force_login(played.hall.caller)
    assert client.post(results_url(played.game)).status_code == 405


# --- where they are linked from --------------------------------------------------------------------


def test_the_session_page_the_game_page_and_the_portal_link_the_results_of_ended_games(
    client: Client, played: Played
) -> None:
    drawing = played.hall.drawing(cards=2)
    link = f'href="{results_url(played.game)}"'
    client.force_login(staff(played.hall, Role.MANAGER, "gerente"))

    session_page = client.get(reverse("games:session_detail", args=[played.hall.session.pk])).content.decode()
    game_page = client.get(reverse("games:game_detail", args=[played.game.pk])).content.decode()
    portal = client.get(reverse("actas:session_detail", args=[played.hall.session.pk])).content.decode()

    assert link in session_page
    assert link in game_page
    assert link in portal
    assert f'data-results-link="{drawing.pk}"' not in session_page + portal
    assert (
        "data-results-link"
        not in client.get(reverse("games:game_detail", args=[drawing.pk])).content.decode()
    )


def test_the_console_links_the_results_once_the_game_has_ended(client: Client, played: Played) -> None:
    client.force_login(played.hall.caller)
    live = client.get(reverse("draw:console_live", args=[played.game.pk])).content.decode()
    assert f'href="{results_url(played.game)}" data-results-link' in live


def test_the_price_board_links_the_results_once_the_game_has_ended(client: Client, played: Played) -> None:
    drawing = played.hall.drawing(cards=2)
    ended = client.get(reverse("sales:price_board", args=[played.game.pk])).content.decode()
    assert f'href="{results_url(played.game)}" data-results-link>' in ended
    going = client.get(reverse("sales:price_board", args=[drawing.pk])).content.decode()
    assert f'href="{results_url(drawing)}" data-results-link hidden>' in going


def test_the_results_page_is_in_portuguese(client: Client, played: Played) -> None:
    client.force_login(played.hall.caller)
    page = client.get(results_url(played.game)).content.decode()
    assert f"Resultados da jogada {played.game.number}" in page
    assert "Bolas pela ordem de extração" in page
    assert "Ainda por pagar" in page


def test_prizes_are_listed_as_the_acta_recorded_them(played: Played) -> None:
    results = selectors.game_results_get(game=Game.objects.get(pk=played.game.pk))
    recorded = {p.kind: p for p in Prize.objects.filter(game=played.game)}
    assert [p.kind for p in results.prizes] == [p["kind"] for p in results.record["prizes"]]
    for prize in results.prizes:
        assert (prize.total, prize.amount_each, prize.remainder) == (
            recorded[prize.kind].total,
            recorded[prize.kind].amount_each,
            recorded[prize.kind].remainder,
        )
        assert prize.amount_each * len(prize.cards) + prize.remainder == prize.total  # R6
