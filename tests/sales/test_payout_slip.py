"""Paying a winning card by its QR code as a USB scanner types it, and the payout's slip (R50):
what it shows, its code that finds it again, who may see it, and its paper (80 mm or A4).

The payload is read off the card's printed PDF (cards/printing, the code that prints the cards),
so the desk reads exactly what the printer writes.
"""

from __future__ import annotations

import io
import re
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.test import Client

from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.engine.payout import slip_code
from bingo.models import Game, PrizePayment, PrizeWinner
from cards import selectors as card_selectors
from cards.models import Series
from cards.printing import pdf
from halls.models import StaffMembership
from tests.cards.printing.test_pdf import decode_qr_codes, page_image
from tests.conftest import MakeUser
from tests.draw.test_services import all_numbers, row
from tests.draw.test_views import Console, english, won

pytestmark = pytest.mark.django_db

PAY = "/caixa/premios/"
FIND = "/caixa/taloes/"
LICENCE = {"operator_name": "Jogos do Atlântico, S.A.", "licence_number": "CV-BING-07/2017"}


def printed_payload(series: Series, number: int) -> str:
    """What a scanner types for card ``number``: the QR code read off its printed PDF."""
    out = io.BytesIO()
    pdf.render_series_pdf(series, number, number, out)
    found = decode_qr_codes(page_image(out.getvalue()))
    assert len(found) == 1, "one card printed, one QR code"
    return found[0]


@pytest.fixture
def hall(db: None) -> Console:
    console = Console(tax_rate=Decimal("10"), tax_threshold=Decimal("100"), **LICENCE)
    console.cashier.first_name, console.cashier.last_name = "Ana", "Lopes"
    console.cashier.save(update_fields=["first_name", "last_name"])
    return console


@pytest.fixture
def cashier(client: Client, hall: Console) -> Client:
    client.force_login(hall.cashier)
    return english(client)


def scan(client: Client, hall: Console, payload: str) -> object:
    return client.post(PAY, {"cash_desk": hall.desk.pk, "scan": payload})


def text_of(body: str, marker: str) -> str:
    match = re.search(rf"{marker}>([^<]*)<", body)
    assert match is not None, f"the page has {marker}"
    return match[1]


def body(response: object) -> str:
    return response.content.decode()  # type: ignore[attr-defined]


# --- paying by the QR code ------------------------------------------------------------------------


def test_a_payout_by_the_printed_cards_qr_payload_lands_on_its_slip(cashier: Client, hall: Console) -> None:
    game, number = won(hall)
    series = hall.series_of(game)
    payload = printed_payload(series, number)
    assert payload.startswith("http")
    assert f"cartao={number}" in payload

    posted = scan(cashier, hall, payload)

    payments = list(PrizePayment.objects.order_by("pk"))
    assert {(p.winner.series_id, p.winner.card_number) for p in payments} == {(series.pk, number)}
    assert len(payments) == PrizeWinner.objects.filter(series=series, card_number=number).count() == 2
    assert {(p.cash_desk, p.cashier) for p in payments} == {(hall.desk, hall.cashier)}
    code = slip_code(bytes(series.check_key), payments[0].pk)
    assert posted.status_code == 302  # type: ignore[attr-defined]
    assert posted["Location"] == f"/caixa/taloes/{code}/"  # type: ignore[index]

    slip = cashier.get(posted["Location"])  # type: ignore[index]
    page = body(slip)
    zone = ZoneInfo(hall.hall.time_zone)
    gross = sum(p.gross for p in payments)
    tax = sum(p.tax_withheld for p in payments)
    assert tax > 0  # the hall's 10 % over 100 CVE (R61 g)
    assert text_of(page, "data-slip-gross") == f"{gross:.0f} CVE"
    assert text_of(page, "data-slip-tax") == f"{tax:.0f} CVE"
    assert text_of(page, "data-slip-net") == f"{gross - tax:.0f} CVE"
    assert text_of(page, "data-slip-card") == f"Series {series.label} n.º {number}"
    assert len(re.findall(r"data-slip-payment=", page)) == 2
    assert text_of(page, "data-print-game") == str(game.number)
    assert text_of(page, "data-print-room") == "Sala 1"
    started = game.session.starts_at.astimezone(zone).strftime("%d/%m/%Y %H:%M")
    assert text_of(page, "data-print-session") == f"n.º {game.session.pk}, {started}"
    assert text_of(page, "data-slip-desk") == "Caixa 1"
    assert text_of(page, "data-slip-cashier") == "Ana Lopes"
    assert text_of(page, "data-slip-when") == payments[0].paid_at.astimezone(zone).strftime("%d/%m/%Y %H:%M")
    assert text_of(page, "data-print-operator") == "Jogos do Atlântico, S.A."
    assert text_of(page, "data-print-licence") == "Concession n.º CV-BING-07/2017"
    assert text_of(page, "data-slip-code") == code
    assert re.search(r'<button type="button" data-print[^>]*>Print slip</button>', page)
    assert re.search(r'<a href="/caixa/premios/\?caixa=\d+">Back</a>', page)


def test_the_slip_time_is_on_the_halls_clock(db: None, client: Client) -> None:
    tokyo = Console(name="Sala Tóquio", time_zone="Asia/Tokyo")
    client.force_login(tokyo.cashier)
    game, number = won(tokyo)
    posted = scan(english(client), tokyo, printed_payload(tokyo.series_of(game), number))
    paid_at = PrizePayment.objects.order_by("pk").first().paid_at  # type: ignore[union-attr]

    shown = text_of(body(client.get(posted["Location"])), "data-slip-when")  # type: ignore[index]

    assert shown == paid_at.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%d/%m/%Y %H:%M")
    assert shown != paid_at.astimezone(ZoneInfo("Atlantic/Cape_Verde")).strftime("%d/%m/%Y %H:%M")


def test_the_payout_form_autofocuses_the_scan_field_and_never_shows_what_was_scanned(
    cashier: Client, hall: Console
) -> None:
    page = body(cashier.get(f"{PAY}?caixa={hall.desk.pk}"))
    field = re.search(r"<input[^>]*name=\"scan\"[^>]*>", page)
    assert field is not None
    assert "autofocus" in field[0]
    assert "value=" not in field[0]

    refused = body(scan(cashier, hall, "not a card"))
    field = re.search(r"<input[^>]*name=\"scan\"[^>]*>", refused)
    assert field is not None
    assert "value=" not in field[0]  # the next scan is not typed after the refused one


def test_typing_the_card_still_pays_and_lands_on_the_slip(cashier: Client, hall: Console) -> None:
    game, number = won(hall)
    series = hall.series_of(game)
    code = card_selectors.card_check_code(series=series, number=number)

    posted = cashier.post(
        PAY, {"cash_desk": hall.desk.pk, "series": series.pk, "card_number": number, "check_code": code}
    )

    assert posted.status_code == 302
    assert posted["Location"].startswith(FIND)
    assert PrizePayment.objects.count() == 2


def test_nothing_scanned_nor_typed_asks_for_the_card(cashier: Client, hall: Console) -> None:
    won(hall)
    response = cashier.post(PAY, {"cash_desk": hall.desk.pk, "scan": "  "})

    assert response.status_code == 400
    assert body(response).count("This field is required.") == 3
    assert not PrizePayment.objects.exists()


# --- wrong payloads: a clear refusal, nothing paid ---------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        "hello",
        "https://bingo.example.cv/verificar/",
        "https://bingo.example.cv/verificar/?serie=abc&cartao=5&codigo=ABCDEFGH",
        "https://bingo.example.cv/verificar/?serie=1&cartao=5",
        "https://bingo.example.cv/verificar/?serie=1&serie=2&cartao=5&codigo=ABCDEFGH",
        "https://bingo.example.cv/outra/?serie=1&cartao=5&codigo=ABCDEFGH",
        "https://[bingo/verificar/?serie=1&cartao=5&codigo=ABCDEFGH",
        "x" * 400,
    ],
)
def test_a_malformed_payload_is_refused(cashier: Client, hall: Console, payload: str) -> None:
    won(hall)

    response = scan(cashier, hall, payload)

    assert response.status_code == 400  # type: ignore[attr-defined]
    assert "Not a card&#x27;s QR code: scan the card again" in body(response)
    assert not PrizePayment.objects.exists()


def test_a_payload_with_a_wrong_check_code_is_refused(cashier: Client, hall: Console) -> None:
    game, number = won(hall)
    series = hall.series_of(game)
    forged = pdf.card_check_url(series_id=series.pk, number=number, code="ABCDEFGH")

    response = scan(cashier, hall, forged)

    assert response.status_code == 400  # type: ignore[attr-defined]
    assert "The card number or its check code is wrong." in body(response)
    assert not PrizePayment.objects.exists()


def test_another_halls_card_is_refused_at_this_desk(cashier: Client, hall: Console) -> None:
    won(hall)
    other = Console(name="Sala Mindelo")
    game, number = won(other)

    response = scan(cashier, hall, printed_payload(other.series_of(game), number))

    assert response.status_code == 400  # type: ignore[attr-defined]
    assert "This card is not of a series of this hall: it is not paid here." in body(response)
    assert not PrizePayment.objects.exists()


def test_a_card_that_did_not_win_is_refused(cashier: Client, hall: Console) -> None:
    game, _number = won(hall)
    winners = set(PrizeWinner.objects.values_list("card_number", flat=True))
    loser = next(n for n in range(1, 11) if n not in winners)

    response = scan(cashier, hall, printed_payload(hall.series_of(game), loser))

    assert response.status_code == 400  # type: ignore[attr-defined]
    assert "This card has no prize to pay." in body(response)
    assert not PrizePayment.objects.exists()


def test_a_card_of_a_game_still_drawing_is_refused(cashier: Client, hall: Console) -> None:
    game: Game = hall.drawing(cards=10)
    hall.key(game, *row(hall.card(game, 3), 0))
    draw_services.prize_award(game=game, user=hall.caller, kind="line")
    assert PrizeWinner.objects.filter(card_number=3).exists()

    response = scan(cashier, hall, printed_payload(hall.series_of(game), 3))

    assert response.status_code == 400  # type: ignore[attr-defined]
    assert "Prizes are paid once the game has ended (R44, R50)." in body(response)
    assert not PrizePayment.objects.exists()


def test_a_share_already_paid_is_refused_and_paid_once(cashier: Client, hall: Console) -> None:
    game, number = won(hall)
    payload = printed_payload(hall.series_of(game), number)
    assert scan(cashier, hall, payload).status_code == 302  # type: ignore[attr-defined]
    paid = list(PrizePayment.objects.values_list("pk", "net"))

    again = scan(cashier, hall, payload)

    assert again.status_code == 400  # type: ignore[attr-defined]
    assert "This card&#x27;s prizes were already paid, on " in body(again)
    assert list(PrizePayment.objects.values_list("pk", "net")) == paid


def test_the_refusal_is_in_portuguese(client: Client, hall: Console) -> None:
    won(hall)
    client.force_login(hall.cashier)  # no language cookie: Portuguese (R54)

    response = scan(client, hall, "hello")

    assert response.status_code == 400  # type: ignore[attr-defined]
    assert "Não é o código QR de um cartão" in body(response)


# --- the slip's code and who may see it ---------------------------------------------------------------


def paid_slip(client: Client, hall: Console) -> str:
    """Pay the hall's winning card by scanning it; the slip's code."""
    game, number = won(hall)
    posted = scan(client, hall, printed_payload(hall.series_of(game), number))
    match = re.fullmatch(r"/caixa/taloes/([^/]+)/", posted["Location"])  # type: ignore[index]
    assert match is not None
    return match[1]


def test_the_code_finds_the_slip_for_a_cashier_and_a_manager_of_the_hall(
    cashier: Client, hall: Console, client: Client, make_user: MakeUser
) -> None:
    code = paid_slip(cashier, hall)

    found = cashier.get(FIND, {"codigo": code})
    assert found.status_code == 302
    assert found["Location"] == f"/caixa/taloes/{code}/"
    # As typed from paper: lower case, spaces, no dash, O for 0 — the same slip.
    typed = code.lower().replace("-", " ")
    assert cashier.get(FIND, {"codigo": typed})["Location"] == f"/caixa/taloes/{code}/"
    assert cashier.get(f"/caixa/taloes/{code.lower()}/")["Location"] == f"/caixa/taloes/{code}/"

    manager = make_user(Role.MANAGER)
    StaffMembership.objects.create(hall=hall.hall, user=manager, role=Role.MANAGER.value)
    client.force_login(manager)
    english(client)
    assert client.get(FIND).status_code == 200
    assert client.get(FIND, {"codigo": code})["Location"] == f"/caixa/taloes/{code}/"
    page = body(client.get(f"/caixa/taloes/{code}/"))
    assert text_of(page, "data-slip-code") == code
    assert re.search(r'<a href="/caixa/taloes/">Back</a>', page)  # not a cashier: back to the search


def test_another_halls_staff_do_not_find_the_slip(
    cashier: Client, hall: Console, client: Client, make_user: MakeUser
) -> None:
    code = paid_slip(cashier, hall)
    other = Console(name="Sala Mindelo")
    other_manager = make_user(Role.MANAGER)
    StaffMembership.objects.create(hall=other.hall, user=other_manager, role=Role.MANAGER.value)

    for person in (other.cashier, other_manager):
        client.force_login(person)
        english(client)
        response = client.get(FIND, {"codigo": code})
        assert response.status_code == 404
        assert "No payout slip of your halls has this code." in body(response)
        assert client.get(f"/caixa/taloes/{code}/").status_code == 404


def test_a_wrong_code_finds_nothing(cashier: Client, hall: Console) -> None:
    code = paid_slip(cashier, hall)
    number, mac = code.split("-")
    wrong_mac = f"{number}-{'0000' if mac != '0000' else '1111'}"

    for typed in (wrong_mac, f"{int(number) + 1}-{mac}", "hello", "-"):
        assert cashier.get(FIND, {"codigo": typed}).status_code == 404, typed
        assert cashier.get(f"/caixa/taloes/{typed}/").status_code == 404, typed
    assert cashier.get(FIND, {"codigo": ""}).status_code == 400


@pytest.mark.parametrize("roles", [(Role.CALLER,), (Role.INSPECTOR,), (Role.PLAYER,)])
def test_other_roles_may_not_see_slips(
    cashier: Client, hall: Console, client: Client, make_user: MakeUser, roles: tuple[Role, ...]
) -> None:
    code = paid_slip(cashier, hall)
    client.force_login(make_user(*roles))

    assert client.get(FIND).status_code == 403
    assert client.get(FIND, {"codigo": code}).status_code == 403
    assert client.get(f"/caixa/taloes/{code}/").status_code == 403


def test_anonymous_people_are_sent_to_log_in(cashier: Client, hall: Console, client: Client) -> None:
    code = paid_slip(cashier, hall)
    client.logout()

    for url in (FIND, f"/caixa/taloes/{code}/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/entrar/")


def test_the_desks_list_links_each_payment_to_its_slip(cashier: Client, hall: Console) -> None:
    code = paid_slip(cashier, hall)

    page = body(cashier.get(f"{PAY}?caixa={hall.desk.pk}"))
    links = re.findall(r'href="/caixa/taloes/([^/]+)/" data-slip-link', page)

    assert len(links) == 2
    assert code in links
    for link in links:  # each payment's code reaches the payout's one slip
        assert cashier.get(f"/caixa/taloes/{link}/", follow=True).redirect_chain[-1:] in (
            [],
            [(f"/caixa/taloes/{code}/", 302)],
        )


def test_the_slip_is_laid_out_for_the_desks_paper(cashier: Client, hall: Console) -> None:
    code = paid_slip(cashier, hall)
    slip = f"/caixa/taloes/{code}/"

    assert 'href="/static/css/paper-80mm.css"' in body(cashier.get(slip))
    assert 'href="/static/css/paper-a4.css"' in body(cashier.get(f"{slip}?papel=a4"))
    assert 'href="/static/css/paper-a4.css"' in body(cashier.get(slip))  # remembered for the desk
    typed = cashier.get(f"/caixa/taloes/{code.lower()}/", follow=True)
    assert 'href="/static/css/paper-a4.css"' in body(typed)


def test_an_online_payout_has_no_slip(cashier: Client, hall: Console) -> None:
    """A prize paid into a player's wallet (R97) has no desk and no slip: its code finds nothing."""
    game, number = won(hall)
    winner = PrizeWinner.objects.filter(card_number=number).first()
    assert winner is not None
    payment = PrizePayment.objects.create(
        winner=winner, gross=winner.amount, tax_withheld=0, net=winner.amount
    )
    code = slip_code(bytes(hall.series_of(game).check_key), payment.pk)

    assert cashier.get(FIND, {"codigo": code}).status_code == 404
    assert cashier.get(f"/caixa/taloes/{code}/").status_code == 404


def test_a_double_cards_slip_names_both_games(hall: Console) -> None:
    """The slip lists every game the card won in: two for a double card (R15, R45)."""
    from bingo.sales.selectors import payout_slip_of

    game, number = won(hall)
    payout = draw_services.prize_pay(
        series=hall.series_of(game),
        card_number=number,
        check_code=card_selectors.card_check_code(series=hall.series_of(game), number=number),
        cash_desk=hall.desk,
        cashier=hall.cashier,
    )
    slip = payout_slip_of(payout.payments[-1])
    assert slip.first.pk == payout.payments[0].pk
    assert [g.pk for g in slip.games] == [game.pk]
    assert slip.net == sum(p.net for p in payout.payments)
    assert all_numbers(hall.card(game, number))
