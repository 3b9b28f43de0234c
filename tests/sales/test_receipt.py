"""The printable receipt of a sale request: what it shows, in the hall's time zone, laid out for
an 80 mm printer; who may see it; and that a retried request shows the same receipt."""

from __future__ import annotations

import re
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from bingo.common.roles import Role
from bingo.models import Sale
from bingo.sales import services as sales_services
from halls.models import CashDesk, StaffMembership
from tests.conftest import MakeUser
from tests.factories import UserFactory
from tests.sales.test_views import SCREEN, Desk, english, key_of, sell_form


@pytest.fixture
def praia(db: None) -> Desk:
    desk = Desk(operator_name="Jogos do Atlântico, S.A.", licence_number="CV-BING-07/2017")
    desk.cashier.first_name, desk.cashier.last_name = "Ana", "Lopes"
    desk.cashier.save(update_fields=["first_name", "last_name"])
    return desk


@pytest.fixture
def cashier(client: Client, praia: Desk) -> Client:
    client.force_login(praia.cashier)
    return english(client)


def sell_through_the_screen(client: Client, desk: Desk, quantity: int = 3, cash: str = "500") -> str:
    """Sell at the cashier screen as a cashier would; return the request key."""
    key = key_of(client.get(f"{SCREEN}?jogo={desk.selling.pk}&caixa={desk.desk.pk}").content.decode())
    assert client.post(SCREEN, sell_form(desk, key, quantity=quantity, cash=cash)).status_code == 302
    return key


def receipt_url(key: str) -> str:
    return reverse("sales:receipt", args=[key])


def text_of(body: str, marker: str) -> str:
    match = re.search(rf"{marker}>([^<]*)<", body)
    assert match is not None, f"the receipt has {marker}"
    return match[1]


def test_the_receipt_url_is_portuguese() -> None:
    assert receipt_url("abc") == "/caixa/recibo/abc/"


def test_the_receipt_shows_the_sale_for_the_80mm_printer(cashier: Client, praia: Desk) -> None:
    key = sell_through_the_screen(cashier, praia, quantity=3, cash="500")

    response = cashier.get(receipt_url(key))

    assert response.status_code == 200
    body = response.content.decode()
    assert "<h1>Sala Praia</h1>" in body
    # The hall's licence data (R17), the room, the session and the game.
    assert text_of(body, "data-print-operator") == "Jogos do Atlântico, S.A."
    assert text_of(body, "data-print-licence") == "Concession n.º CV-BING-07/2017"
    assert text_of(body, "data-print-room") == "Sala 1"
    session = praia.selling.session
    started = session.starts_at.astimezone(ZoneInfo("Atlantic/Cape_Verde")).strftime("%d/%m/%Y %H:%M")
    assert text_of(body, "data-print-session") == f"n.º {session.pk}, {started}"
    assert text_of(body, "data-print-game") == str(praia.selling.number)
    assert text_of(body, "data-receipt-desk") == "Caixa 1"
    assert text_of(body, "data-receipt-cashier") == "Ana Lopes"
    assert "Series A-1" in body
    assert text_of(body, "data-receipt-range") == "n.º 1\N{EN DASH}3"
    assert text_of(body, "data-receipt-quantity") == "3"
    assert text_of(body, "data-receipt-unit-price") == "100 CVE"
    assert text_of(body, "data-receipt-amount") == "300 CVE"
    assert text_of(body, "data-receipt-received") == "500 CVE"
    assert text_of(body, "data-receipt-change") == "200 CVE"
    assert key in body
    # Laid out for the 80 mm printer by default, with a print button that the printout leaves
    # out; the style and the button's script are static files (the Content-Security-Policy
    # allows no inline ones).
    assert '<link rel="stylesheet" href="/static/css/receipt.css">' in body
    assert '<link rel="stylesheet" href="/static/css/paper-80mm.css" data-paper="80mm">' in body
    roll_css = Path(finders.find("css/paper-80mm.css")).read_text(encoding="utf-8")
    assert "@page { size: 80mm auto;" in roll_css
    assert re.search(r"@media print \{[^@]*\.receipt \{ width: 72mm;", roll_css)  # 80 mm roll, 72 mm print
    assert re.search(r'<button type="button" data-print[^>]*>Print receipt</button>', body)
    assert '<script src="/static/js/receipt.js" defer></script>' in body
    assert re.search(r'<div class="actions no-print">', body)


def test_the_print_button_reads_imprimir_in_portuguese(client: Client, praia: Desk) -> None:
    client.force_login(praia.cashier)  # no language cookie: Portuguese (R54)
    key = sell_through_the_screen(client, praia)

    body = client.get(receipt_url(key)).content.decode()

    assert re.search(r"data-print[^>]*>Imprimir</button>", body)
    assert "Recibo" in body


def test_the_receipt_time_is_the_halls(db: None, client: Client) -> None:
    tokyo = Desk(name="Sala Tóquio", time_zone="Asia/Tokyo")
    client.force_login(tokyo.cashier)
    key = sell_through_the_screen(english(client), tokyo)
    sold_at = Sale.objects.get(request_key=key).created_at

    shown = text_of(client.get(receipt_url(key)).content.decode(), "data-receipt-when")

    assert shown == sold_at.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%d/%m/%Y %H:%M")
    # Ten hours from Cabo Verde (the server's zone): the hour must not be the server's.
    assert shown != sold_at.astimezone(ZoneInfo("Atlantic/Cape_Verde")).strftime("%d/%m/%Y %H:%M")


def test_a_rollover_sale_shows_both_series_on_the_receipt(db: None, client: Client) -> None:
    desk = Desk(name="Sala Rollover")
    desk.roll_over()
    client.force_login(desk.cashier)
    key = sell_through_the_screen(english(client), desk, quantity=8, cash="1000")

    body = client.get(receipt_url(key)).content.decode()

    parts = re.findall(r"<span>Series (A-\d)</span>\s*<span data-receipt-range>([^<]*)<", body)
    assert parts == [("A-1", "n.º 86\N{EN DASH}90"), ("A-2", "n.º 1\N{EN DASH}3")]
    assert text_of(body, "data-receipt-quantity") == "8"
    assert text_of(body, "data-receipt-amount") == "800 CVE"
    assert text_of(body, "data-receipt-change") == "200 CVE"


def test_the_sale_result_links_to_its_receipt(cashier: Client, praia: Desk) -> None:
    key = key_of(cashier.get(SCREEN).content.decode())

    posted = cashier.post(SCREEN, sell_form(praia, key))
    screen = cashier.get(posted["Location"]).content.decode()

    assert re.search(rf'href="/caixa/recibo/{key}/"[^>]*data-receipt-print', screen)
    assert cashier.get(receipt_url(key)).status_code == 200


def test_a_retried_request_shows_the_same_receipt(cashier: Client, praia: Desk) -> None:
    key = key_of(cashier.get(SCREEN).content.decode())
    cashier.post(SCREEN, sell_form(praia, key, quantity=2, cash="200"))
    before = cashier.get(receipt_url(key)).content.decode()

    retried = cashier.post(SCREEN, sell_form(praia, key, quantity=2, cash="200"))
    again = sales_services.sale_make(
        game=praia.selling,
        quantity=2,
        cash_desk=praia.desk,
        cashier=praia.cashier,
        cash_received="200",
        request_key=key,
    )
    after = cashier.get(receipt_url(key)).content.decode()

    assert retried.status_code == 302
    assert [(s.first_number, s.last_number) for s in again.sales] == [(1, 2)]
    assert Sale.objects.count() == 1
    assert after == before
    assert text_of(after, "data-receipt-range") == "n.º 1\N{EN DASH}2"


# --- who may see it -------------------------------------------------------------------------------


def test_another_cashier_of_the_hall_may_reprint_it(cashier: Client, praia: Desk, client: Client) -> None:
    key = sell_through_the_screen(cashier, praia)
    colleague = UserFactory(roles=[Role.CASHIER])
    StaffMembership.objects.create(hall=praia.hall, user=colleague, role=Role.CASHIER.value)
    client.force_login(colleague)

    body = client.get(receipt_url(key)).content.decode()

    assert text_of(body, "data-receipt-cashier") == "Ana Lopes"  # who sold it, not who reprints


def test_a_cashier_of_another_hall_is_refused(praia: Desk, client: Client) -> None:
    praia.sell(praia.selling, 2, key="k" * 32)
    other = Desk(name="Sala Mindelo")
    client.force_login(other.cashier)

    assert client.get(receipt_url("k" * 32)).status_code == 403


@pytest.mark.parametrize("roles", [(Role.CALLER,), (Role.MANAGER, Role.INSPECTOR)])
def test_other_roles_are_refused(
    praia: Desk, client: Client, make_user: MakeUser, roles: tuple[Role, ...]
) -> None:
    praia.sell(praia.selling, 2, key="k" * 32)
    client.force_login(make_user(*roles))

    assert client.get(receipt_url("k" * 32)).status_code == 403


def test_anonymous_users_are_sent_to_log_in(praia: Desk, client: Client) -> None:
    praia.sell(praia.selling, 2, key="k" * 32)

    response = client.get(receipt_url("k" * 32))

    assert response.status_code == 302
    assert response["Location"].startswith("/entrar/")


def test_an_unknown_request_key_is_404(cashier: Client) -> None:
    assert cashier.get(receipt_url("no-such-sale")).status_code == 404


# --- the paper: 80 mm or A4, remembered per desk -------------------------------------------------


def paper_sheet(body: str) -> str:
    match = re.search(r'href="/static/css/paper-([a-z0-9]+)\.css" data-paper="([a-z0-9]+)"', body)
    assert match is not None, "the page links a paper's sheet"
    assert match[1] == match[2]
    return match[1]


def test_the_paper_is_chosen_and_remembered_for_the_desk(cashier: Client, praia: Desk) -> None:
    key = sell_through_the_screen(cashier, praia)
    assert paper_sheet(cashier.get(receipt_url(key)).content.decode()) == "80mm"

    chosen = cashier.get(receipt_url(key) + "?papel=a4").content.decode()
    assert paper_sheet(chosen) == "a4"
    assert re.search(r'data-paper-choice="a4" aria-current="true"', chosen)
    a4_css = Path(finders.find("css/paper-a4.css")).read_text(encoding="utf-8")
    assert "@page { size: A4;" in a4_css

    # The next receipt of this desk comes on A4 without asking again...
    later = sell_through_the_screen(cashier, praia)
    assert paper_sheet(cashier.get(receipt_url(later)).content.decode()) == "a4"
    # ... a paper not offered changes nothing, and the roll is chosen back the same way.
    assert paper_sheet(cashier.get(receipt_url(later) + "?papel=letter").content.decode()) == "a4"
    assert paper_sheet(cashier.get(receipt_url(later) + "?papel=80mm").content.decode()) == "80mm"
    assert paper_sheet(cashier.get(receipt_url(key)).content.decode()) == "80mm"


def test_another_desks_paper_is_its_own(db: None, client: Client) -> None:
    praia = Desk()
    second = CashDesk.objects.create(hall=praia.hall, name="Caixa 2")
    client.force_login(praia.cashier)
    english(client)
    first_key = sell_through_the_screen(client, praia)
    client.get(receipt_url(first_key) + "?papel=a4")
    praia.sell(praia.selling, 1, key="s" * 32, desk=second)

    assert paper_sheet(client.get(receipt_url("s" * 32)).content.decode()) == "80mm"
    assert paper_sheet(client.get(receipt_url(first_key)).content.decode()) == "a4"
