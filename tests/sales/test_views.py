"""The cashier's screen, the shift report and the price board page: who may use them, selling
through the form (once per submit), errors that sell nothing, and a constant number of queries."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from bingo.common.roles import Role, user_roles_set
from bingo.draw import services as draw_services
from bingo.games import services
from bingo.models import Game, Sale
from bingo.sales import selectors as sales_selectors
from halls.models import CashDesk, StaffMembership
from tests.conftest import MakeUser
from tests.draw.test_services import Draw, all_numbers
from tests.factories import UserFactory
from tests.sales.test_services import HallSetup

SCREEN = "/caixa/venda/"


class Desk(HallSetup):
    """A HallSetup whose cashier also holds the cashier role, with one game selling series A-1."""

    def __init__(self, name: str = "Sala Praia", **hall_fields: object) -> None:
        super().__init__(name=name, **hall_fields)
        user_roles_set(user=self.cashier, roles=[Role.CASHIER])
        self.on_sale = self.series(1)
        self.selling = self.game(self.on_sale)

    def roll_over(self) -> Game:
        """Close ``selling`` for a new selling game of A-1 and A-2 whose A-1 has five cards left
        (85 sold in a game before): a sale of more than five rolls into A-2 (R38)."""
        services.game_close_sales(game=self.selling)
        first, second = self.on_sale, self.series(2)
        warm_up = self.game(first)
        self.sell(warm_up, 85)
        services.game_close_sales(game=warm_up)
        self.selling = self.game(first, second)
        return self.selling


@pytest.fixture
def praia(db: None) -> Desk:
    return Desk()


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.fixture
def cashier(client: Client, praia: Desk) -> Client:
    client.force_login(praia.cashier)
    return english(client)


def key_of(body: str) -> str:
    match = re.search(r'name="request_key" value="([0-9a-f]{32})"', body)
    assert match is not None, "the form carries an idempotency key"
    return match[1]


def sell_form(praia: Desk, key: str, quantity: object = 3, cash: object = "500", **extra: object) -> dict:
    return {
        "game": praia.selling.pk,
        "cash_desk": praia.desk.pk,
        "request_key": key,
        "quantity": quantity,
        "cash_received": cash,
        **extra,
    }


def test_the_url_names_resolve_to_portuguese_paths() -> None:
    assert reverse("sales:cashier") == SCREEN
    assert reverse("sales:shift_report") == "/caixa/turno/"
    assert reverse("sales:price_board", args=[7]) == "/quadro/7/"


def test_the_screen_shows_the_series_on_sale_with_next_number_and_price(cashier: Client, praia: Desk) -> None:
    praia.sell(praia.selling, 4)

    response = cashier.get(SCREEN)

    assert response.status_code == 200
    body = response.content.decode()
    assert "A-1" in body
    assert "n.º 5" in body  # the next card (R36)
    assert "100 CVE" in body
    assert 'name="quantity"' in body
    assert "autofocus" in body
    assert 'name="player"' not in body  # no per-player cap in this hall


def test_a_cashier_sells_through_the_form_and_gets_a_receipt(cashier: Client, praia: Desk) -> None:
    key = key_of(cashier.get(SCREEN).content.decode())

    posted = cashier.post(SCREEN, sell_form(praia, key, quantity=3, cash="500"))

    assert posted.status_code == 302
    sale = Sale.objects.get()
    assert (sale.first_number, sale.last_number, sale.amount) == (1, 3, Decimal("300.00"))
    assert sale.cashier == praia.cashier
    assert sale.cash_desk == praia.desk
    assert sale.request_key == key
    receipt = cashier.get(posted["Location"]).content.decode()
    assert 'id="receipt"' in receipt
    assert "n.º 1 \N{EN DASH} 3" in receipt
    assert re.search(r"data-receipt-amount>300 CVE<", receipt)
    assert re.search(r"data-receipt-change>200 CVE<", receipt)
    assert re.search(r"data-desk-cards>3<", receipt)
    assert re.search(r"data-desk-amount>300 CVE<", receipt)
    assert key_of(receipt) != key  # the next sale gets a fresh key


def test_the_screen_shows_the_cash_received_and_the_change_given_not_the_net(
    cashier: Client, praia: Desk
) -> None:
    """Issue 24: a 160 sale paid with 200 shows 200 received and 40 given back, not 160; a request
    spanning two series (R38, two ledger rows) counts its cash once."""
    services.game_close_sales(game=praia.selling)
    praia.selling = praia.game(praia.series(3, price="40.00"))
    key = key_of(cashier.get(f"{SCREEN}?jogo={praia.selling.pk}").content.decode())

    posted = cashier.post(SCREEN, sell_form(praia, key, quantity=4, cash="200"))

    body = cashier.get(posted["Location"]).content.decode()
    assert re.search(r"data-desk-amount>160 CVE<", body)
    assert re.search(r"data-desk-received>200 CVE<", body)
    assert re.search(r"data-desk-change>40 CVE<", body)
    rolling = praia.roll_over()
    praia.sell(rolling, 7, cash=Decimal("1000"))  # 5 of A-1, 2 of A-2: 700, change 300
    assert Sale.objects.filter(game=rolling, cash_desk=praia.desk).count() == 2  # one request, two rows
    totals = cashier.get(f"{SCREEN}?jogo={rolling.pk}").context["totals"]
    assert (totals.amount, totals.received, totals.change) == (
        Decimal("700"),
        Decimal("1000"),
        Decimal("300"),
    )


def test_a_double_submit_sells_once(cashier: Client, praia: Desk) -> None:
    key = key_of(cashier.get(SCREEN).content.decode())

    first = cashier.post(SCREEN, sell_form(praia, key, quantity=2))
    second = cashier.post(SCREEN, sell_form(praia, key, quantity=2))

    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert Sale.objects.count() == 1
    assert praia.sell(praia.selling, 1).sales[0].first_number == 3  # nothing skipped either


def test_the_sale_rolls_into_the_second_series_and_the_receipt_shows_both(db: None, client: Client) -> None:
    desk = Desk(name="Sala Rollover")
    desk.roll_over()
    client.force_login(desk.cashier)
    english(client)
    key = key_of(client.get(f"{SCREEN}?jogo={desk.selling.pk}&caixa={desk.desk.pk}").content.decode())

    posted = client.post(SCREEN, sell_form(desk, key, quantity=8, cash="1000"))

    receipt = client.get(posted["Location"]).content.decode()
    assert "n.º 86 \N{EN DASH} 90" in receipt
    assert "n.º 1 \N{EN DASH} 3" in receipt
    assert re.search(r"data-receipt-change>200 CVE<", receipt)


@pytest.mark.parametrize("quantity", ["0", "-2", "três", "", "1.5"])
def test_a_bad_quantity_shows_the_error_and_sells_nothing(
    cashier: Client, praia: Desk, quantity: str
) -> None:
    key = key_of(cashier.get(SCREEN).content.decode())

    response = cashier.post(SCREEN, sell_form(praia, key, quantity=quantity))

    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="sale-errors"' in body
    assert 'class="field-error"' in body
    assert not Sale.objects.exists()


@pytest.mark.parametrize("cash", ["", "-5", "muito", "NaN"])
def test_bad_cash_shows_the_error_and_sells_nothing(cashier: Client, praia: Desk, cash: str) -> None:
    key = key_of(cashier.get(SCREEN).content.decode())

    response = cashier.post(SCREEN, sell_form(praia, key, cash=cash))

    assert response.status_code == 400
    assert 'class="field-error"' in response.content.decode()
    assert not Sale.objects.exists()


def test_short_cash_shows_the_service_refusal_and_sells_nothing(cashier: Client, praia: Desk) -> None:
    key = key_of(cashier.get(SCREEN).content.decode())

    response = cashier.post(SCREEN, sell_form(praia, key, quantity=3, cash="250"))

    assert response.status_code == 400
    assert "no credit, R39" in response.content.decode()
    assert not Sale.objects.exists()
    # The same key may be used again once corrected: nothing was recorded under it.
    assert cashier.post(SCREEN, sell_form(praia, key, quantity=3, cash="300")).status_code == 302
    assert Sale.objects.count() == 1


def test_a_game_no_longer_selling_shows_the_error_and_sells_nothing(cashier: Client, praia: Desk) -> None:
    key = key_of(cashier.get(SCREEN).content.decode())
    services.game_close_sales(game=praia.selling)  # closed while the form was on screen

    response = cashier.post(SCREEN, sell_form(praia, key))

    assert response.status_code == 400
    assert "is not selling cards" in response.content.decode()
    assert not Sale.objects.exists()


def test_a_planned_game_cannot_be_sold(cashier: Client, praia: Desk) -> None:
    planned = services.game_create(session=praia.session, variant="90")

    response = cashier.post(SCREEN, {**sell_form(praia, "k" * 32), "game": planned.pk})

    assert response.status_code == 400
    assert "is not selling cards" in response.content.decode()
    assert not Sale.objects.exists()


def test_a_hall_with_a_per_player_cap_asks_who_buys(db: None, client: Client) -> None:
    capped = Desk(name="Sala Limite", card_limit_per_player=5)
    client.force_login(capped.cashier)
    english(client)
    body = client.get(SCREEN).content.decode()
    assert 'name="player"' in body

    refused = client.post(SCREEN, sell_form(capped, key_of(body), quantity=6, player="Rui"))
    assert refused.status_code == 400
    assert "R35" in refused.content.decode()
    assert client.post(SCREEN, sell_form(capped, key_of(body), quantity=5, player="Rui")).status_code == 302
    assert Sale.objects.get().player == "Rui"


# --- who may sell ---------------------------------------------------------------------------------


def test_a_cashier_of_another_hall_is_refused(praia: Desk, client: Client) -> None:
    other = Desk(name="Sala Mindelo")
    client.force_login(other.cashier)

    assert client.get(f"{SCREEN}?jogo={praia.selling.pk}").status_code == 403
    assert client.post(SCREEN, sell_form(praia, "a" * 32)).status_code == 403
    # Their own desk with the foreign game, or the foreign desk with their own game: refused too.
    assert client.post(SCREEN, {**sell_form(praia, "b" * 32), "cash_desk": other.desk.pk}).status_code == 403
    assert client.post(SCREEN, {**sell_form(other, "c" * 32), "cash_desk": praia.desk.pk}).status_code == 403
    assert client.get(f"/caixa/turno/?caixa={praia.desk.pk}").status_code == 403
    assert not Sale.objects.exists()


def test_the_screen_lists_only_the_games_of_the_cashiers_halls(praia: Desk, client: Client) -> None:
    other = Desk(name="Sala Mindelo")
    services.game_create(session=other.session, variant="90")  # planned: not listed either
    second = other.game(other.series(2))
    client.force_login(other.cashier)

    body = client.get(SCREEN).content.decode()
    games = re.search(r'<select name="jogo"[\s\S]*?</select>', body)
    assert games is not None

    assert f'value="{other.selling.pk}"' in games[0]
    assert f'value="{second.pk}"' in games[0]
    assert f'value="{praia.selling.pk}"' not in games[0]
    assert str(praia.desk) not in body


@pytest.mark.parametrize("roles", [(Role.CALLER,), (Role.MANAGER, Role.INSPECTOR)])
def test_other_roles_get_403(
    praia: Desk, client: Client, make_user: MakeUser, roles: tuple[Role, ...]
) -> None:
    client.force_login(make_user(*roles))

    assert client.get(SCREEN).status_code == 403
    assert client.post(SCREEN, sell_form(praia, "d" * 32)).status_code == 403
    assert client.get("/caixa/turno/").status_code == 403
    assert not Sale.objects.exists()


def test_a_cashier_role_without_a_hall_sees_no_game(client: Client, praia: Desk, make_user: MakeUser) -> None:
    client.force_login(make_user(Role.CASHIER))

    assert client.get(SCREEN).status_code == 200
    assert client.post(SCREEN, sell_form(praia, "e" * 32)).status_code == 403
    assert not Sale.objects.exists()


def test_anonymous_users_are_sent_to_log_in(client: Client, praia: Desk) -> None:
    response = client.get(SCREEN)

    assert response.status_code == 302
    assert response["Location"].startswith("/entrar/")


def test_the_cashier_dashboard_links_to_the_screen(cashier: Client) -> None:
    assert f'href="{SCREEN}"' in cashier.get("/caixa/").content.decode()


# --- fast ----------------------------------------------------------------------------------------


def test_the_screen_costs_the_same_queries_whatever_the_sales(
    cashier: Client, praia: Desk, django_assert_max_num_queries
) -> None:
    def screen_queries() -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as captured:
            assert cashier.get(SCREEN).status_code == 200
        return len(captured)

    praia.sell(praia.selling, 1)
    screen_queries()  # the first visit also saves the chosen desk in the session
    few = screen_queries()
    for _ in range(10):
        praia.sell(praia.selling, 2)
    CashDesk.objects.create(hall=praia.hall, name="Caixa 2")
    assert screen_queries() == few
    with django_assert_max_num_queries(14):
        cashier.get(SCREEN)


# --- the shift report ------------------------------------------------------------------------------


def test_the_shift_report_gives_ranges_by_series_and_the_cash_expected(cashier: Client, praia: Desk) -> None:
    other_desk = CashDesk.objects.create(hall=praia.hall, name="Caixa 2")
    praia.sell(praia.selling, 3)  # 1-3 here
    praia.sell(praia.selling, 2)  # 4-5 here: one range with the first
    praia.sell(praia.selling, 4, desk=other_desk)  # 6-9 at the other desk
    praia.sell(praia.selling, 1)  # 10 here

    response = cashier.get(f"/caixa/turno/?caixa={praia.desk.pk}")

    assert response.status_code == 200
    body = response.content.decode()
    assert "1\N{EN DASH}5, 10\N{EN DASH}10" in body
    assert re.search(r"data-shift-cards>6<", body)
    assert "600 CVE" in body
    report = response.context["report"]
    assert report.cash_expected == Decimal("600.00")
    assert report.cards == 6
    assert report.sales == 3


def test_the_shift_report_starts_at_the_chosen_day(cashier: Client, praia: Desk) -> None:
    praia.sell(praia.selling, 3)

    response = cashier.get(f"/caixa/turno/?caixa={praia.desk.pk}&desde=2999-01-01")

    assert response.context["report"].cards == 0


def colleague_of(desk: Desk, first_name: str = "Bruno", last_name: str = "Silva") -> User:
    """Another cashier of the desk's hall."""
    person = UserFactory(roles=[Role.CASHIER], first_name=first_name, last_name=last_name)
    StaffMembership.objects.create(hall=desk.hall, user=person, role=Role.CASHIER.value)
    return person


def test_the_shift_report_narrows_to_one_cashier(cashier: Client, praia: Desk) -> None:
    bruno = colleague_of(praia)
    other_desk = CashDesk.objects.create(hall=praia.hall, name="Caixa 2")
    praia.sell(praia.selling, 3)  # 1-3
    praia.sell(praia.selling, 2, cashier=bruno)  # 4-5 by Bruno, same desk
    praia.sell(praia.selling, 1)  # 6
    praia.sell(praia.selling, 4, desk=other_desk)  # 7-10 at the other desk
    url = f"/caixa/turno/?caixa={praia.desk.pk}"

    mine = cashier.get(f"{url}&operador={praia.cashier.pk}")
    his = cashier.get(f"{url}&operador={bruno.pk}")
    everyone = cashier.get(url)

    assert mine.status_code == his.status_code == everyone.status_code == 200
    assert "1\N{EN DASH}3, 6\N{EN DASH}6" in mine.content.decode()
    assert (mine.context["report"].cards, mine.context["report"].sales) == (4, 2)
    assert mine.context["report"].cash_expected == Decimal("400.00")
    assert re.search(r"data-shift-cash><strong>400 CVE<", mine.content.decode())
    assert "4\N{EN DASH}5" in his.content.decode()
    assert (his.context["report"].cards, his.context["report"].cash_expected) == (2, Decimal("200.00"))
    assert "1\N{EN DASH}6" in everyone.content.decode()
    assert everyone.context["report"].cards == 6
    # The filter lists the hall's cashiers and keeps the one chosen.
    body = his.content.decode()
    assert re.search(rf'<option value="{bruno.pk}" selected>Bruno Silva</option>', body)
    assert f'<option value="{praia.cashier.pk}">' in body
    assert "Sala Praia · Caixa 1 · Bruno Silva" in body


def test_the_cashier_filter_keeps_the_day_filter(cashier: Client, praia: Desk) -> None:
    praia.sell(praia.selling, 3)

    today = cashier.get(f"/caixa/turno/?caixa={praia.desk.pk}&operador={praia.cashier.pk}")
    later = cashier.get(f"/caixa/turno/?caixa={praia.desk.pk}&operador={praia.cashier.pk}&desde=2999-01-01")

    assert today.context["report"].cards == 3
    assert later.context["report"].cards == 0
    assert later.context["cashier"] == praia.cashier
    assert "No sales by this cashier at this desk in this period." in later.content.decode()


def test_a_cashier_from_another_hall_in_the_filter_shows_the_whole_desk(cashier: Client, praia: Desk) -> None:
    other = Desk(name="Sala Mindelo")
    praia.sell(praia.selling, 3)

    response = cashier.get(f"/caixa/turno/?caixa={praia.desk.pk}&operador={other.cashier.pk}")

    assert response.status_code == 200
    assert response.context["cashier"] is None
    assert response.context["report"].cards == 3
    assert f'value="{other.cashier.pk}"' not in response.content.decode()


# --- the price board page ---------------------------------------------------------------------------


def test_the_price_board_is_public_and_shows_price_sales_and_prizes(client: Client, praia: Desk) -> None:
    praia.sell(praia.selling, 10)  # 1 000 CVE: prize money 800, line 200, bingo 600 (R7)

    response = english(client).get(f"/quadro/{praia.selling.pk}/")

    assert response.status_code == 200
    body = response.content.decode()
    assert f'data-ws-path="/ws/quadro/{praia.selling.pk}/"' in body
    assert re.search(r"data-price>100 CVE<", body)
    assert re.search(r"data-cards-sold>10<", body)
    assert re.search(r"data-total>1 000 CVE<", body)
    assert re.search(
        r'data-prize="line">\s*<span class="board-label">Line prize</span>\s*'
        r"<strong class=\"board-big\" data-prize-value>200 CVE<",
        body,
    )
    assert re.search(r'data-prize="bingo">[\s\S]*?data-prize-value>600 CVE<', body)
    assert re.search(r"<footer[^>]*data-jackpot hidden", body)
    assert "/static/js/board.js" in body


def test_the_price_board_shows_the_jackpot_when_it_is_active(db: None, client: Client) -> None:
    jackpot = Desk(name="Sala Jackpot", jackpot_active=True)
    jackpot.sell(jackpot.selling, 10)  # prize money 800: 24 to the jackpot (R10)

    body = client.get(f"/quadro/{jackpot.selling.pk}/").content.decode()

    assert not re.search(r"<footer[^>]*data-jackpot hidden", body)
    assert re.search(r"data-jackpot-value>24 CVE<", body)


def test_an_unknown_board_is_404(client: Client, db: None) -> None:
    assert client.get("/quadro/999999/").status_code == 404


# --- the board after the sales: the game's real state (issue 24) ------------------------------------


def _ended(kind: str) -> tuple[Game, Draw]:
    hall = Draw(name=f"Sala {kind}")
    game = hall.drawing(cards=5)
    if kind == "finished":
        hall.key(game, *all_numbers(hall.card(game, 1)))
        draw_services.prize_award(game=game, user=hall.caller, kind="line")
        draw_services.prize_award(game=game, user=hall.caller, kind="bingo")
    elif kind == "annulled":
        hall.key(game, 5)
        draw_services.game_annul(game=game, user=hall.caller, reason="ball 5 announced as 8")
    game.refresh_from_db()
    return game, hall


@pytest.mark.parametrize(
    ("kind", "english_name", "portuguese_name"),
    [
        ("drawing", "Drawing", "Em extração"),
        ("finished", "Finished", "Terminada"),
        ("annulled", "Annulled", "Anulada"),
    ],
)
def test_the_price_board_shows_the_games_real_state_once_sales_are_over(
    client: Client, db: None, kind: str, english_name: str, portuguese_name: str
) -> None:
    game, _ = _ended(kind)
    assert game.state == kind

    portuguese = client.get(f"/quadro/{game.pk}/").content.decode()
    page = english(client).get(f"/quadro/{game.pk}/").content.decode()

    state = re.search(r"<span class=\"board-closed\" data-closed data-state-name[^>]*>([^<]*)</span>", page)
    assert state is not None
    assert state[1] == english_name
    assert "Sales closed</span>" not in page
    assert re.search(rf"data-state-name[^>]*>{portuguese_name}</span>", portuguese)
    assert "Vendas fechadas</span>" not in portuguese
    assert re.search(r'<span class="board-selling" data-selling hidden>', page)
    # Every state's name is on the page for the live updates (static/js/board.js).
    assert 'data-label-finished="Finished"' in page
    assert 'data-label-annulled="Annulled"' in page
    # Once the game is over, the board links its results (for the hall's staff).
    results = reverse("games:game_results", args=[game.pk])
    assert (f'href="{results}" data-results-link>' in page) is (kind != "drawing")


def test_the_price_board_figures_say_the_game_ended(db: None) -> None:
    for kind in ("finished", "annulled"):
        game, _ = _ended(kind)
        figures = sales_selectors.game_board(game_id=game.pk)
        assert figures is not None
        message = figures.as_message()
        assert (message["state"], message["selling"], message["ended"]) == (kind, False, True)
    drawing, _ = _ended("drawing")
    figures = sales_selectors.game_board(game_id=drawing.pk)
    assert figures is not None
    assert (figures.as_message()["state"], figures.as_message()["ended"]) == ("drawing", False)
