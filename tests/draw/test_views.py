"""The draw's screens (bingo.draw.views): the caller's console, the room's display, prize payment.

Who may use them (callers of the game's hall; cashiers of the desk's hall; the display is
public behind its signed token), CSRF on every POST, and what each action does through its
service, including the service's refusals shown as messages.
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bingo.common.money import money_display
from bingo.common.roles import Role, user_roles_set
from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.draw.views import _board_rows
from bingo.games import services
from bingo.jackpot import services as jackpot_services
from bingo.models import Ball, Claim, DrawMode, Game, Prize, PrizePayment
from cards import selectors as card_selectors
from halls.models import BallSetUse, CashDesk, StaffMembership
from tests.autodraw.helpers import Clock
from tests.draw.test_services import Draw, all_numbers, row
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


class Console(Draw):
    """A ``Draw`` hall whose caller and cashier also hold their roles (the screens need both)."""

    def __init__(self, **hall_fields: object) -> None:
        super().__init__(**hall_fields)
        user_roles_set(user=self.caller, roles=[Role.CALLER])
        user_roles_set(user=self.cashier, roles=[Role.CASHIER])


@pytest.fixture
def hall(db: None) -> Console:
    return Console()


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.fixture
def caller(client: Client, hall: Console) -> Client:
    client.force_login(hall.caller)
    return english(client)


def url(name: str, game: Game) -> str:
    return reverse(f"draw:{name}", args=[game.pk])


def body(response: object) -> str:
    return response.content.decode()  # type: ignore[attr-defined]


def test_the_url_names_resolve_to_portuguese_paths() -> None:
    assert reverse("draw:caller_games") == "/locutor/jogos/"
    assert reverse("draw:console", args=[7]) == "/locutor/jogo/7/"
    assert reverse("draw:draw_ball", args=[7]) == "/locutor/jogo/7/bola/"
    assert reverse("draw:display", args=["abc"]) == "/ecra/abc/"
    assert reverse("sales:prize_pay") == "/caixa/premios/"


# --- who may use the console ---------------------------------------------------------------------


def test_the_caller_lists_only_their_halls_games_ready_to_draw(caller: Client, hall: Console) -> None:
    ready = hall.closed()
    drawing = hall.drawing(mode=DrawMode.ELECTRONIC)
    selling = hall.game(hall.series(50))
    other = Console(name="Sala Mindelo")
    foreign = other.closed()

    page = body(caller.get("/locutor/jogos/"))

    listed = {int(n) for n in re.findall(r'data-game="(\d+)"', page)}
    assert listed == {ready.pk, drawing.pk}
    assert selling.pk not in listed
    assert foreign.pk not in listed
    assert f'href="/locutor/jogo/{ready.pk}/"' in page


@pytest.mark.parametrize(
    ("name", "method"),
    [
        ("console", "get"),
        ("console_live", "get"),
        ("draw_ball", "post"),
        ("draw_start", "post"),
        ("claim", "post"),
    ],
)
def test_a_cashier_gets_403_and_a_caller_of_another_hall_404(
    client: Client, hall: Console, name: str, method: str
) -> None:
    game = hall.closed()
    other = Console(name="Sala Mindelo")

    client.force_login(hall.cashier)
    assert getattr(client, method)(url(name, game), {"position": 1, "mode": "electronic"}).status_code == 403
    client.force_login(other.caller)
    assert getattr(client, method)(url(name, game), {"position": 1, "mode": "electronic"}).status_code == 404
    game.refresh_from_db()
    assert game.state == "sales_closed"
    assert not Ball.objects.exists()


def test_someone_logged_out_is_sent_to_log_in(client: Client, hall: Console) -> None:
    game = hall.closed()
    response = client.get(url("console", game))
    assert response.status_code == 302
    assert response["Location"].startswith("/entrar/")


def test_every_post_needs_the_csrf_token(hall: Console) -> None:
    game = hall.drawing(mode=DrawMode.ELECTRONIC)
    strict = english(Client(enforce_csrf_checks=True))
    strict.force_login(hall.caller)

    refused = strict.post(url("draw_ball", game), {"position": 1})

    assert refused.status_code == 403
    assert not Ball.objects.exists()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body(strict.get(url("console", game))))
    assert token is not None
    accepted = strict.post(url("draw_ball", game), {"position": 1, "csrfmiddlewaretoken": token[1]})
    assert accepted.status_code == 302
    assert Ball.objects.filter(game=game).count() == 1


# --- the draw -------------------------------------------------------------------------------------


def test_an_electronic_draw_starts_and_each_press_draws_the_next_ball_once(
    caller: Client, hall: Console
) -> None:
    game = hall.closed()
    page = body(caller.get(url("console", game)))
    assert "data-start-form" in page
    assert f'href="/ecra/{draw_selectors.display_token(room=hall.room)}/"' in page  # the room's display

    started = caller.post(url("draw_start", game), {"mode": "electronic"}, follow=True)

    assert "The draw has started." in body(started)
    game.refresh_from_db()
    assert (game.state, game.draw_mode) == ("drawing", "electronic")
    page = body(started)
    assert "data-draw-ball" in page
    assert re.search(r'name="position" value="1"', page)

    caller.post(url("draw_ball", game), {"position": 1})
    caller.post(url("draw_ball", game), {"position": 1})  # pressed twice: one ball
    assert game.balls.count() == 1
    caller.post(url("draw_ball", game), {"position": 2})
    balls = list(game.balls.order_by("position").values_list("number", flat=True))
    assert len(balls) == 2

    page = body(caller.get(url("console", game)))
    assert re.search(r"data-count>2<", page)
    assert re.search(rf"data-last-ball>{balls[-1]}<", page)
    assert re.search(r'name="position" value="3"', page)
    assert [int(n) for n in re.findall(r'data-ball="(\d+)"', page)] == balls


def test_a_ball_out_of_turn_is_refused_with_the_services_message(caller: Client, hall: Console) -> None:
    game = hall.drawing(mode=DrawMode.ELECTRONIC)

    response = caller.post(url("draw_ball", game), {"position": 3}, follow=True)

    assert "Ball 3 cannot come before ball 1." in body(response)
    assert not game.balls.exists()


def test_a_physical_draw_needs_the_halls_ball_set_and_takes_keyed_balls(
    caller: Client, hall: Console
) -> None:
    game = hall.closed()

    refused = caller.post(url("draw_start", game), {"mode": "physical"}, follow=True)
    assert "physical draw needs the ball set" in body(refused)
    game.refresh_from_db()
    assert game.state == "sales_closed"

    caller.post(url("draw_start", game), {"mode": "physical", "ball_set": hall.ball_set.pk})
    game.refresh_from_db()
    assert (game.state, game.draw_mode) == ("drawing", "physical")
    assert BallSetUse.objects.get(game=game).ball_set == hall.ball_set  # R25: counted
    page = body(caller.get(url("console", game)))
    assert 'name="number"' in page
    assert "data-draw-ball" not in page

    caller.post(url("draw_ball", game), {"position": 1, "number": 42})
    bad = caller.post(url("draw_ball", game), {"position": 2, "number": 42}, follow=True)
    assert "already been drawn" in body(bad)
    assert list(game.balls.values_list("number", "source")) == [(42, "manual")]


def test_the_electronic_draw_switches_to_manual_extraction_with_a_reason(
    caller: Client, hall: Console
) -> None:
    game = hall.drawing(mode=DrawMode.ELECTRONIC)
    assert "data-manual-form" not in body(caller.get(url("console", game)))  # R55: not before ball 1
    first = draw_services.game_draw_ball(game=game, user=hall.caller, position=1)
    assert "data-manual-form" in body(caller.get(url("console", game)))

    blank = caller.post(url("draw_manual", game), {"reason": ""}, follow=True)
    assert "This field is required" in body(blank)

    switched = caller.post(url("draw_manual", game), {"reason": "Drum jammed"}, follow=True)

    game.refresh_from_db()
    assert game.manual_from_ball == 2
    assert game.state_reason == "Drum jammed"
    page = body(switched)
    assert "key in the balls from the blower (R55)" in page
    assert 'name="number"' in page
    keyed = (first.number % 90) + 1
    caller.post(url("draw_ball", game), {"position": 2, "number": keyed})
    assert game.balls.get(position=2).number == keyed


# --- claims and prizes -----------------------------------------------------------------------------


def claim_form(hall: Console, game: Game, number: int, kind: str = "line") -> dict[str, object]:
    return {"series": hall.series_of(game).pk, "card_number": number, "kind": kind}


def test_a_valid_claim_shows_the_card_marked_and_every_card_holding_the_prize(
    caller: Client, hall: Console
) -> None:
    game = hall.drawing(cards=10)
    card = hall.card(game, 3)
    hall.key(game, *row(card, 0))

    response = caller.post(url("claim", game), claim_form(hall, game, 3), follow=True)

    assert response.redirect_chain[0][1] == 302  # post/redirect/get
    assert response.status_code == 200
    page = body(response)
    assert 'data-claim-outcome="valid"' in page
    assert "Any other line?" in page
    assert page.count("data-marked") == 5  # the five numbers of the row, on the card shown
    holders = re.search(r"data-claim-holders>(.*?)</ul>", page, re.S)
    assert holders is not None
    expected = {w.card.number for w in hall.claim(game, 3).holders}
    assert set(map(int, re.findall(r"A-1 n.º (\d+)", holders[1]))) == expected
    assert 'data-award="line"' in page
    # R43: while a claim is being checked, Enter does not draw the next ball.
    assert not re.search(r"data-draw-ball[^>]*autofocus", page)
    assert Claim.objects.filter(game=game, card_number=3, outcome="valid").exists()


def test_reloading_a_claims_answer_shows_it_again_and_records_nothing(caller: Client, hall: Console) -> None:
    game = hall.drawing(cards=10)
    hall.key(game, *row(hall.card(game, 4), 0))
    answer = caller.post(url("claim", game), claim_form(hall, game, 4))
    again = caller.get(answer["Location"])  # what the browser's reload asks for
    page = body(again)
    assert 'data-claim-outcome="valid"' in page
    assert page.count("data-marked") == 5
    assert "data-claim-holders" in page
    assert Claim.objects.filter(game=game).count() == 1
    # Once awarded, the answer still shows the card, and no longer offers to award it.
    caller.post(url("prize_award", game), {"kind": "line", "confirmado": "1"})
    page = body(caller.get(answer["Location"]))
    assert 'data-claim-outcome="valid"' in page
    assert 'data-award="line"' not in page.split('id="claim-result"')[1].split("</div>")[0]
    # A claim of another game is not shown here.
    other = hall.drawing(cards=5)
    page = body(caller.get(f"{url('console', other)}?reclamacao={Claim.objects.get().pk}"))
    assert "data-claim-outcome" not in page


@pytest.mark.parametrize(("number", "outcome"), [(3, "false"), (50, "not_sold")])
def test_a_false_claim_or_an_unsold_card_is_said_so_and_the_game_goes_on(
    caller: Client, hall: Console, number: int, outcome: str
) -> None:
    game = hall.drawing(cards=10)
    hall.key(game, *row(hall.card(game, 3), 0)[:4])

    page = body(caller.post(url("claim", game), claim_form(hall, game, number), follow=True))

    assert f'data-claim-outcome="{outcome}"' in page
    assert "data-claim-holders" not in page
    assert Claim.objects.get().outcome == outcome
    game.refresh_from_db()
    assert game.state == "drawing"


def test_a_claim_for_an_awarded_prize_is_late(caller: Client, hall: Console) -> None:
    game = hall.drawing(cards=10)
    hall.key(game, *row(hall.card(game, 2), 2))
    draw_services.prize_award(game=game, user=hall.caller, kind="line")

    page = body(caller.post(url("claim", game), claim_form(hall, game, 2), follow=True))

    assert 'data-claim-outcome="late"' in page  # R47


def test_the_console_lists_the_system_detected_holders_after_each_ball(caller: Client, hall: Console) -> None:
    game = hall.drawing(cards=10)
    card = hall.card(game, 7)
    hall.key(game, *row(card, 0)[:4])
    page = body(caller.get(url("console_live", game)))
    assert "<html" not in page  # the fragment alone
    assert "data-holders" not in page
    assert int(re.findall(r"data-one-to-go>(\d+)<", page)[0]) >= 1  # card 7 is one number away

    hall.key(game, row(card, 0)[4])
    page = body(caller.get(url("console_live", game)))

    holders = re.search(r'data-prize="line".*?data-holders>(.*?)</ul>', page, re.S)
    assert holders is not None
    assert "A-1 n.º 7" in holders[1]
    assert 'data-award="line"' in page


def test_confirming_a_prize_awards_it_to_every_holder_and_the_bingo_ends_the_game(
    caller: Client, hall: Console
) -> None:
    game = hall.drawing(cards=10)
    card = hall.card(game, 6)
    hall.key(game, *all_numbers(card))

    early = caller.post(url("prize_award", game), {"kind": "bingo", "confirmado": "1"}, follow=True)
    assert "first (R44)" in body(early)
    assert not Prize.objects.exists()

    line = caller.post(url("prize_award", game), {"kind": "line", "confirmado": "1"}, follow=True)
    prize = Prize.objects.get(game=game, kind="line")
    assert f"Prize confirmed: Line, {prize.winners} card" in body(line)
    assert 'class="console-prize is-awarded" data-prize="line"' in body(line)
    assert '<option value="bingo" selected>' in body(line)  # the next claim is for the bingo

    caller.post(url("prize_award", game), {"kind": "bingo", "confirmado": "1"})
    game.refresh_from_db()
    assert game.state == "finished"
    assert 6 in Prize.objects.get(game=game, kind="bingo").cards.values_list("card_number", flat=True)
    page = body(caller.get(url("console", game)))
    assert "The game has ended." in page
    assert "data-claim-form" not in page


def test_confirming_the_bingo_announces_the_jackpot_it_won(client: Client, db: None) -> None:  # R9
    hall = Console(jackpot_active=True)
    jackpot_services.jackpot_configure(hall=hall.hall, base_value=Decimal("5000"))
    jackpot_services.jackpot_seed(hall=hall.hall, amount=Decimal("5000"))
    hall.session.jackpot_balls = 90
    hall.session.save()
    client.force_login(hall.caller)
    english(client)
    game = hall.drawing(cards=10)
    hall.key(game, *all_numbers(hall.card(game, 3)))
    client.post(url("prize_award", game), {"kind": "line", "confirmado": "1"})
    page = body(client.post(url("prize_award", game), {"kind": "bingo", "confirmado": "1"}, follow=True))
    jackpot = Prize.objects.get(game=game, kind="jackpot")
    assert "Jackpot won within 90 balls: " in page
    assert f"{jackpot.winners} card" in page.split("Jackpot won within 90 balls")[1]


# --- the display -----------------------------------------------------------------------------------


def test_the_display_is_public_and_shows_the_balls_count_and_last_ball(client: Client, hall: Console) -> None:
    game = hall.drawing(cards=10)
    hall.key(game, 12, 45, 78)
    token = draw_selectors.display_token(room=hall.room)

    response = english(client).get(f"/ecra/{token}/")

    assert response.status_code == 200
    page = body(response)
    lit = {int(n) for n in re.findall(r'class="display-cell is-drawn" data-n="(\d+)"', page)}
    assert lit == {12, 45, 78}
    assert len(re.findall(r'data-n="\d+"', page)) == 90
    assert re.search(r"data-count>3<", page)  # R13
    assert re.search(r"data-last>78<", page)
    assert re.search(r"data-cards-sold>10<", page)
    assert f'data-ws-path="/ws/ecra/{token}/"' in page
    assert 'data-prize="line"' in page
    assert 'id="display-state"' in page
    assert "data-jackpot hidden" in page  # this hall runs no jackpot


def test_a_display_with_a_bad_token_is_not_found(client: Client, hall: Console) -> None:
    token = draw_selectors.display_token(room=hall.room)
    assert client.get(f"/ecra/{token}x/").status_code == 404
    assert client.get(f"/ecra/{hall.room.pk}/").status_code == 404


def test_the_75_ball_board_has_a_row_per_letter() -> None:  # R77
    rows = _board_rows(75, [1, 75])
    assert [letter for letter, _ in rows] == list("BINGO")
    assert rows[0][1][0] == (1, True)
    assert rows[4][1][-1] == (75, True)
    assert [len(cells) for _, cells in _board_rows(90, [])] == [10] * 9


# --- prize payment ------------------------------------------------------------------------------


def won(hall: Console) -> tuple[Game, int]:
    game = hall.drawing(cards=10)
    hall.key(game, *all_numbers(hall.card(game, 5)))
    draw_services.prize_award(game=game, user=hall.caller, kind="line")
    draw_services.prize_award(game=game, user=hall.caller, kind="bingo")
    return game, 5


@pytest.fixture
def cashier(client: Client, hall: Console) -> Client:
    client.force_login(hall.cashier)
    return english(client)


def pay_form(hall: Console, game: Game, number: int, code: str) -> dict[str, object]:
    return {
        "cash_desk": hall.desk.pk,
        "series": hall.series_of(game).pk,
        "card_number": number,
        "check_code": code,
    }


def test_the_cashier_pays_a_winning_card_and_sees_gross_tax_and_net(db: None, client: Client) -> None:
    from decimal import Decimal

    hall = Console(tax_rate=Decimal("10"), tax_threshold=Decimal("100"))
    client.force_login(hall.cashier)
    english(client)
    game, number = won(hall)
    code = card_selectors.card_check_code(series=hall.series_of(game), number=number)
    page = body(client.get("/caixa/premios/"))
    assert re.search(rf'<option value="{hall.series_of(game).pk}"( selected)?>A-1</option>', page)

    posted = client.post("/caixa/premios/", pay_form(hall, game, number, code))

    assert posted.status_code == 302
    assert posted["Location"].startswith("/caixa/taloes/")  # the payout's slip (R50)
    payments = list(PrizePayment.objects.order_by("pk"))
    assert payments
    assert {p.cashier for p in payments} == {hall.cashier}
    page = body(client.get(posted["Location"]))
    assert len(re.findall(r'data-slip-payment="\d+"', page)) == len(payments)
    net = sum(p.net for p in payments)
    tax = sum(p.tax_withheld for p in payments)
    assert tax > 0
    assert re.search(rf"data-slip-net>{net:.0f} CVE<", page)
    assert re.search(rf"data-slip-tax>{tax:.0f} CVE<", page)
    desk_list = body(client.get(f"/caixa/premios/?caixa={hall.desk.pk}"))
    assert len(re.findall(r'<tr data-payment="\d+">', desk_list)) == len(payments)

    again = client.post("/caixa/premios/", pay_form(hall, game, number, code))
    assert again.status_code == 400
    assert "This card&#x27;s prizes were already paid, on " in body(again)
    assert PrizePayment.objects.count() == len(payments)


def test_a_wrong_check_code_pays_nothing(cashier: Client, hall: Console) -> None:
    game, number = won(hall)

    response = cashier.post("/caixa/premios/", pay_form(hall, game, number, "WRONG"))

    assert response.status_code == 400
    assert "check code is wrong" in body(response)
    assert not PrizePayment.objects.exists()


def test_prize_payment_is_for_the_cashiers_of_the_desks_hall(client: Client, hall: Console) -> None:
    game, number = won(hall)
    code = card_selectors.card_check_code(series=hall.series_of(game), number=number)
    other = Console(name="Sala Mindelo")

    client.force_login(hall.caller)
    assert client.get("/caixa/premios/").status_code == 403
    assert client.post("/caixa/premios/", pay_form(hall, game, number, code)).status_code == 403
    client.force_login(other.cashier)
    assert client.get(f"/caixa/premios/?caixa={hall.desk.pk}").status_code == 403
    assert client.post("/caixa/premios/", pay_form(hall, game, number, code)).status_code == 403
    # Their own desk, this hall's series: not one of the desk's hall's series, refused.
    foreign = {**pay_form(hall, game, number, code), "cash_desk": other.desk.pk}
    assert client.post("/caixa/premios/", foreign).status_code == 400
    assert not PrizePayment.objects.exists()
    assert CashDesk.objects.count() == 2


def test_the_claim_form_offers_each_series_of_the_game_once(hall: Console) -> None:
    from bingo.draw.forms import ClaimForm

    series = hall.series(99)
    first = hall.game(series)
    hall.sell(first, 3)
    services.game_close_sales(game=first)
    second = hall.game(series)  # the same series goes on selling in the next game (R37)

    offered = list(ClaimForm(game=second).fields["series"].queryset)  # type: ignore[attr-defined]

    assert offered == [series]


# --- suspension and annulment from the console (R55, R57) --------------------------------------


def test_the_console_suspends_resumes_and_annuls_with_a_reason(caller: Client, hall: Console) -> None:
    game = hall.closed(cards=3)
    page = body(caller.get(url("console", game)))
    assert "data-suspend-form" in page
    assert "data-annul-form" not in page  # R57 needs balls drawn; R55 needs a suspension first

    refused = caller.post(url("game_suspend", game), {"reason": ""}, follow=True)
    assert Game.objects.get(pk=game.pk).state == "sales_closed"
    assert "This field is required" in body(refused)

    caller.post(url("game_suspend", game), {"reason": "monitor down"})
    game.refresh_from_db()
    assert (game.state, game.state_reason) == ("suspended", "monitor down")
    page = body(caller.get(url("console", game)))
    assert "data-resume" in page
    assert "data-annul-form" in page
    assert f'data-game="{game.pk}"' in body(caller.get("/locutor/jogos/"))  # still listed

    early = caller.post(url("game_annul", game), {"reason": "not solved", "confirmado": "1"}, follow=True)
    assert "15 minutes" in body(early)
    assert Game.objects.get(pk=game.pk).state == "suspended"

    caller.post(url("game_resume", game))
    assert Game.objects.get(pk=game.pk).state == "sales_closed"


def test_the_console_does_not_annul_a_game_with_sales_closed_at_once(caller: Client, hall: Console) -> None:
    game = hall.closed(cards=3)  # R55: a failure before the first ball suspends it first

    refused = caller.post(
        url("game_annul", game), {"reason": "the blower does not start", "confirmado": "1"}, follow=True
    )

    assert "suspended first" in body(refused)
    game.refresh_from_db()
    assert game.state == "sales_closed"
    assert not game.refunds.exists()


def test_the_console_says_when_a_suspended_game_may_be_annulled_and_annuls_it_then(
    caller: Client, hall: Console, monkeypatch: pytest.MonkeyPatch
) -> None:  # R55
    clock = Clock()
    monkeypatch.setattr(timezone, "now", clock)
    hall.hall.time_zone = "Atlantic/Cape_Verde"
    hall.hall.save()
    game = hall.closed(cards=3)
    caller.post(url("game_suspend", game), {"reason": "power cut"})
    allowed = timezone.localtime(clock.now + timedelta(minutes=15), ZoneInfo("Atlantic/Cape_Verde"))

    page = body(caller.get(url("console", game)))
    assert f'data-annul-from="{allowed:%H:%M}"' in page
    assert f"Annulment possible from {allowed:%H:%M}" in page

    clock.advance(14 * 60 + 59)
    early = caller.post(url("game_annul", game), {"reason": "not solved", "confirmado": "1"}, follow=True)
    assert f"from {allowed:%H:%M} (in 1 min)" in body(early)
    assert Game.objects.get(pk=game.pk).state == "suspended"

    clock.advance(1)
    caller.post(url("game_annul", game), {"reason": "power cut, not solved in 15 minutes", "confirmado": "1"})
    game.refresh_from_db()
    assert (game.state, game.state_reason) == ("annulled", "power cut, not solved in 15 minutes")
    assert sum(r.amount for r in game.refunds.all()) == Decimal("300.00")  # every card in full


def test_an_announcement_error_annuls_a_drawing_game_from_the_console(caller: Client, hall: Console) -> None:
    game = hall.drawing(cards=4)
    hall.key(game, 8)
    assert "data-annul-form" in body(caller.get(url("console", game)))
    caller.post(url("game_annul", game), {"reason": "8 announced as 3", "confirmado": "1"})
    game.refresh_from_db()
    assert game.state == "annulled"
    assert game.refunds.count() == game.sales.count() > 0


def test_another_halls_caller_cannot_suspend(client: Client, hall: Console) -> None:
    game = hall.closed()
    other = Console(name="Sala Mindelo")
    client.force_login(other.caller)
    assert client.post(url("game_suspend", game), {"reason": "x"}).status_code == 404
    assert Game.objects.get(pk=game.pk).state == "sales_closed"


# --- the same from the manager's game page (issue [A0] 6: one rule for screens and API) ---------


def hall_manager(hall: Console) -> object:
    manager = UserFactory(username=f"gerente-{hall.hall.name}", roles=[Role.MANAGER])
    StaffMembership.objects.create(hall=hall.hall, user=manager, role=Role.MANAGER.value)
    return manager


@pytest.fixture
def manager(client: Client, hall: Console) -> Client:
    client.force_login(hall_manager(hall))  # type: ignore[arg-type]
    return english(client)


def game_page(game: Game) -> str:
    return reverse("games:game_detail", args=[game.pk])


def test_a_manager_suspends_resumes_and_annuls_from_the_games_page(manager: Client, hall: Console) -> None:
    game = hall.closed(cards=3)
    page = body(manager.get(game_page(game)))
    assert f'action="{url("game_suspend", game)}"' in page
    assert "data-annul-form" not in page

    response = manager.post(url("game_suspend", game), {"reason": "monitor down", "back": "game"})
    assert response["Location"] == game_page(game)  # back to the page the form was on
    game.refresh_from_db()
    assert (game.state, game.state_reason) == ("suspended", "monitor down")
    page = body(manager.get(game_page(game)))
    assert "data-resume" in page
    assert "data-annul-form" in page

    manager.post(url("game_resume", game), {"back": "game"})
    assert Game.objects.get(pk=game.pk).state == "sales_closed"


def test_a_manager_annuls_for_an_announcement_error_with_full_refunds(manager: Client, hall: Console) -> None:
    game = hall.drawing(cards=4)
    hall.key(game, 8)
    assert "data-annul-form" in body(manager.get(game_page(game)))

    response = manager.post(
        url("game_annul", game), {"reason": "8 announced as 3", "confirmado": "1"}, follow=True
    )

    game.refresh_from_db()
    assert (game.state, game.state_reason) == ("annulled", "8 announced as 3")
    assert game.refunds.count() == game.sales.count() > 0
    assert "every card sold is refunded in full" in body(response)


def test_a_managers_refused_change_is_said_on_the_games_page(manager: Client, hall: Console) -> None:
    game = hall.drawing(cards=4)
    hall.key(game, 8)

    response = manager.post(url("game_suspend", game), {"reason": "late"}, follow=True)

    assert response.redirect_chain == [(game_page(game), 302)]
    assert "R55" in body(response)  # the service's refusal: the draw has begun
    assert Game.objects.get(pk=game.pk).state == "drawing"


def test_another_halls_manager_cannot_suspend_or_annul(client: Client, hall: Console) -> None:
    game = hall.closed()
    client.force_login(hall_manager(Console(name="Sala Mindelo")))  # type: ignore[arg-type]

    assert client.post(url("game_suspend", game), {"reason": "x"}).status_code == 404
    assert client.post(url("game_annul", game), {"reason": "x", "confirmado": "1"}).status_code == 404
    assert Game.objects.get(pk=game.pk).state == "sales_closed"


@pytest.mark.parametrize("role", [Role.CASHIER, Role.INSPECTOR])
def test_other_roles_cannot_suspend_resume_or_annul(client: Client, hall: Console, role: Role) -> None:
    game = hall.closed()
    person = UserFactory(username=f"{role.value}-praia", roles=[role])
    StaffMembership.objects.create(hall=hall.hall, user=person, role=role.value)
    client.force_login(person)

    for name in ("game_suspend", "game_resume", "game_annul"):
        assert client.post(url(name, game), {"reason": "x", "confirmado": "1"}).status_code == 403
    assert Game.objects.get(pk=game.pk).state == "sales_closed"


def test_the_games_page_offers_no_changes_to_a_caller(client: Client, hall: Console) -> None:
    """Callers read the game's page; they suspend and annul from their console."""
    game = hall.closed()
    client.force_login(hall.caller)

    assert "data-suspend-form" not in body(client.get(game_page(game)))


# --- confirmations: awarding a prize and annulling ask first (issue 24) ------------------------------


def test_awarding_a_prize_asks_for_confirmation_naming_who_shares_what(caller: Client, hall: Console) -> None:
    game = hall.drawing(cards=10)  # 1 000 CVE: the line is worth 200 CVE (R7)
    hall.key(game, *row(hall.card(game, 3), 0))
    holders = sorted(w.card.number for w in hall.claim(game, 3).holders)

    asked = caller.post(url("prize_award", game), {"kind": "line"})

    assert asked.status_code == 200
    page = body(asked)
    assert f"Confirm the prize Line of game {game.number}?" in page
    assert all(f"A-1 n.º {n}" in page for n in holders)
    each = money_display(Decimal(200) // len(holders), "CVE")  # R6: rounded down to the escudo
    assert f"Its value, 200 CVE, is shared in equal parts (R6): {each} each." in page
    assert '<input type="hidden" name="kind" value="line">' in page
    assert 'name="confirmado" value="1"' in page
    assert f'href="{url("console", game)}" data-confirm-cancel' in page
    assert not Prize.objects.exists()  # nothing awarded yet
    assert Game.objects.get(pk=game.pk).state == "drawing"

    caller.post(url("prize_award", game), {"kind": "line", "confirmado": "1"})

    prize = Prize.objects.get(game=game, kind="line")
    assert sorted(prize.cards.values_list("card_number", flat=True)) == holders


def test_confirming_the_bingo_says_it_ends_the_game(caller: Client, hall: Console) -> None:  # R44
    game = hall.drawing(cards=10)
    hall.key(game, *all_numbers(hall.card(game, 6)))
    caller.post(url("prize_award", game), {"kind": "line", "confirmado": "1"})

    page = body(caller.post(url("prize_award", game), {"kind": "bingo"}))

    assert "The bingo ends the game (R44)." in page
    assert Game.objects.get(pk=game.pk).state == "drawing"
    assert not Prize.objects.filter(kind="bingo").exists()


def test_a_prize_posted_wrong_asks_nothing_and_awards_nothing(caller: Client, hall: Console) -> None:
    game = hall.drawing(cards=10)
    hall.key(game, *row(hall.card(game, 3), 0))
    response = caller.post(url("prize_award", game), {"kind": "nonsense"})
    assert response.status_code == 302  # back to the console with the refusal
    assert not Prize.objects.exists()


def test_annulling_asks_for_confirmation_and_refunds_only_once_confirmed(
    caller: Client, hall: Console
) -> None:
    game = hall.drawing(cards=4)
    hall.key(game, 8)

    asked = caller.post(url("game_annul", game), {"reason": "8 announced as 3", "back": "console"})

    assert asked.status_code == 200
    page = body(asked)
    assert f"Annul game {game.number}?" in page
    assert "8 announced as 3" in page
    assert "Every card sold is refunded in full: 4 cards, 400 CVE." in page
    assert '<input type="hidden" name="reason" value="8 announced as 3">' in page
    assert f'href="{url("console", game)}" data-confirm-cancel' in page
    game.refresh_from_db()
    assert game.state == "drawing"
    assert not game.refunds.exists()

    caller.post(url("game_annul", game), {"reason": "8 announced as 3", "back": "console", "confirmado": "1"})

    game.refresh_from_db()
    assert (game.state, game.state_reason) == ("annulled", "8 announced as 3")
    assert game.refunds.count() == game.sales.count()


def test_an_annulment_without_a_reason_asks_nothing(caller: Client, hall: Console) -> None:
    game = hall.drawing(cards=4)
    hall.key(game, 8)
    response = caller.post(url("game_annul", game), {"reason": ""}, follow=True)
    assert "data-confirm-form" not in body(response)
    assert "This field is required" in body(response)
    assert Game.objects.get(pk=game.pk).state == "drawing"


def test_a_managers_annulment_is_confirmed_back_to_the_games_page(manager: Client, hall: Console) -> None:
    game = hall.drawing(cards=4)
    hall.key(game, 8)
    page = body(manager.post(url("game_annul", game), {"reason": "8 announced as 3", "back": "game"}))
    assert f'href="{game_page(game)}" data-confirm-cancel' in page
    assert Game.objects.get(pk=game.pk).state == "drawing"


def test_the_confirmation_pages_are_in_portuguese(client: Client, hall: Console) -> None:
    game = hall.drawing(cards=4)
    hall.key(game, *row(hall.card(game, 1), 0))
    client.force_login(hall.caller)
    award = body(client.post(url("prize_award", game), {"kind": "line"}))
    annul = body(client.post(url("game_annul", game), {"reason": "erro"}))
    assert "Confirmar o prémio Linha da jogada" in award
    assert "Sim, atribuir o prémio" in award
    assert f"Anular a jogada {game.number}?" in annul
    assert "Sim, anular e reembolsar" in annul


# --- R53: the last game, in the session's last 10 minutes ---------------------------------------


@pytest.mark.parametrize(("minutes_left", "due"), [(5, True), (30, False)])
def test_the_console_announces_the_last_game_in_the_sessions_last_10_minutes(
    caller: Client, hall: Console, clock: Clock, minutes_left: int, due: bool
) -> None:  # R53
    game = hall.drawing(cards=3)
    clock.to(hall.session.scheduled_end - timedelta(minutes=minutes_left))

    live = body(caller.get(url("console_live", game)))
    page = body(caller.get(url("console", game)))

    assert ("data-last-game " in live) is due
    assert ("data-last-game " in page) is due
    if due:
        end = timezone.localtime(hall.session.scheduled_end, ZoneInfo(hall.hall.time_zone))
        assert f"The session ends at {end:%H:%M}: announce that this is the last game." in live
    else:
        # When the notice comes due, the page fetches its live part again (static/js/caller.js).
        starts = hall.session.scheduled_end - timedelta(minutes=10)
        assert f'data-last-game-from="{timezone.localtime(starts).isoformat()}"' in live


@pytest.mark.parametrize(("minutes_left", "due"), [(5, True), (30, False)])
def test_the_display_announces_the_last_game_in_the_sessions_last_10_minutes(
    client: Client, hall: Console, clock: Clock, minutes_left: int, due: bool
) -> None:  # R53
    hall.drawing(cards=3)
    clock.to(hall.session.scheduled_end - timedelta(minutes=minutes_left))
    token = draw_selectors.display_token(room=hall.room)

    page = body(english(client).get(f"/ecra/{token}/"))
    state = draw_selectors.display_state(room_id=hall.room.pk)

    shown = re.search(
        r"<p class=\"display-last-game\" data-last-game aria-live=\"polite\"( hidden)?>Last game</p>", page
    )
    assert shown is not None
    assert (shown[1] is None) is due
    assert state["last_game"] is due
    assert state["last_game_from"] == (hall.session.scheduled_end - timedelta(minutes=10)).isoformat()
    assert f'"last_game": {"true" if due else "false"}' in page  # the state the page starts from
