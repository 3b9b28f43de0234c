"""The drawer's pages: a cashier opens the drawer with a float, sees its figures live, closes it
with the cash counted and reads the over/short; the hall's manager reads every desk's close-outs
(list, detail, PDF read back); another hall's staff get 404, a player 403; the cash of a range."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from bingo.common.clock import hall_local
from bingo.common.money import money_display
from bingo.common.roles import Role, user_roles_set
from bingo.drawers import services as drawer_services
from bingo.models import DrawerShift, WalletEntry
from halls.models import StaffMembership
from tests.drawers.walk import FLOAT, Walk
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

DRAWER = "/caixa/gaveta/"


@pytest.fixture
def walk(db: None) -> Walk:
    walk = Walk()
    user_roles_set(user=walk.cashier, roles=[Role.CASHIER])
    return walk


def staff(walk: Walk, role: Role, username: str) -> User:
    person = UserFactory(username=username, roles=[role])
    StaffMembership.objects.create(hall=walk.hall, user=person, role=role.value)
    return person


def logged_in(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def figure(body: str, key: str) -> str:
    match = re.search(rf'data-figure="{key}">(?:<strong>)?([^<]+)<', body)
    assert match is not None, f"the page shows {key}"
    return match[1]


def pdf_text(content: bytes) -> str:
    """The PDF's text read back, one space between words (a label and its value on one line)."""
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages).split())


def test_the_url_names_resolve_to_portuguese_paths() -> None:
    assert reverse("drawers:drawer") == DRAWER
    assert reverse("drawers:closeout_list") == "/caixa/fechos/"
    assert reverse("drawers:closeout_detail", args=[3]) == "/caixa/fechos/3/"
    assert reverse("drawers:range_report") == "/caixa/fechos/periodo/"


def test_a_cashier_opens_sees_the_drawer_live_and_closes_it_with_the_over_short(
    client: Client, walk: Walk
) -> None:
    cashier = logged_in(client, walk.cashier)
    page = cashier.get(f"{DRAWER}?caixa={walk.desk.pk}")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Abrir a caixa" in body  # R54: Portuguese
    assert 'name="opening_float"' in body

    opened = cashier.post(
        reverse("drawers:drawer_open"), {"cash_desk": walk.desk.pk, "opening_float": "5000"}
    )
    assert opened.status_code == 302
    shift = DrawerShift.objects.get()
    assert (shift.opening_float, shift.opened_by, shift.closed_at) == (FLOAT, walk.cashier, None)
    payout = walk.movements()

    live = cashier.get(opened["Location"]).content.decode()
    expected = FLOAT + Decimal("440") - payout.net + Decimal("900") - Decimal("464")
    assert figure(live, "cash_received") == "500 CVE"
    assert figure(live, "change_given") == "60 CVE"
    assert figure(live, "deposits") == "900 CVE"
    assert figure(live, "withdrawals") == "464 CVE"
    assert figure(live, "expected_cash") == money_display(expected, "CVE")
    assert 'name="counted_cash"' in live

    closed = cashier.post(
        reverse("drawers:drawer_close", args=[shift.pk]),
        {"counted_cash": str(expected + 20), "note": "Sobra."},
    )
    assert closed.status_code == 302
    assert closed["Location"] == reverse("drawers:closeout_detail", args=[shift.pk])
    shift.refresh_from_db()
    assert (shift.expected_cash, shift.counted_cash, shift.over_short) == (expected, expected + 20, 20)
    assert shift.closed_by == walk.cashier
    detail = cashier.get(closed["Location"]).content.decode()
    assert 'data-over-short="20.00"' in detail
    assert "A caixa tem a mais 20 CVE." in detail
    assert figure(detail, "over_short") == "20 CVE"

    # Closing again is refused, says so, and changes nothing.
    again = cashier.post(reverse("drawers:drawer_close", args=[shift.pk]), {"counted_cash": "1"}, follow=True)
    assert "já foi fechada" in again.content.decode()
    assert DrawerShift.objects.get().counted_cash == expected + 20


def test_bad_input_is_refused_on_the_page_and_writes_nothing(client: Client, walk: Walk) -> None:
    cashier = logged_in(client, walk.cashier)
    refused = cashier.post(reverse("drawers:drawer_open"), {"cash_desk": walk.desk.pk, "opening_float": "-5"})
    assert refused.status_code == 400
    assert not DrawerShift.objects.exists()
    shift = walk.open()
    twice = cashier.post(
        reverse("drawers:drawer_open"), {"cash_desk": walk.desk.pk, "opening_float": "10"}, follow=True
    )
    assert "já tem a caixa aberta" in twice.content.decode()  # shown over the open drawer
    assert DrawerShift.objects.count() == 1
    bad = cashier.post(reverse("drawers:drawer_close", args=[shift.pk]), {"counted_cash": "muito"})
    assert bad.status_code == 400
    assert DrawerShift.objects.get().closed_at is None


def test_the_drawer_of_another_halls_desk_is_out_of_reach(client: Client, walk: Walk) -> None:
    other = Walk(name="Sala Mindelo")
    user_roles_set(user=other.cashier, roles=[Role.CASHIER])
    shift = walk.open()
    intruder = logged_in(client, other.cashier)

    assert intruder.get(f"{DRAWER}?caixa={walk.desk.pk}").status_code == 404
    assert (
        intruder.post(
            reverse("drawers:drawer_open"), {"cash_desk": walk.desk.pk, "opening_float": "1"}
        ).status_code
        == 404
    )
    assert (
        intruder.post(reverse("drawers:drawer_close", args=[shift.pk]), {"counted_cash": "1"}).status_code
        == 404
    )
    assert intruder.get(reverse("drawers:closeout_detail", args=[shift.pk])).status_code == 404
    assert intruder.get(reverse("drawers:closeout_pdf", args=[shift.pk])).status_code == 404
    assert 'data-closeout="' not in intruder.get(reverse("drawers:closeout_list")).content.decode()
    assert DrawerShift.objects.get().closed_at is None


def test_another_halls_manager_gets_404_and_a_player_or_a_caller_403(
    client: Client, walk: Walk, client_as: Callable[..., Client]
) -> None:
    shift = walk.open()
    other = Walk(name="Sala Mindelo")
    foreign_manager = UserFactory(username="gerente-mindelo", roles=[Role.MANAGER])
    StaffMembership.objects.create(hall=other.hall, user=foreign_manager, role=Role.MANAGER.value)
    manager = logged_in(client, foreign_manager)
    assert manager.get(reverse("drawers:closeout_detail", args=[shift.pk])).status_code == 404
    assert manager.get(reverse("drawers:closeout_pdf", args=[shift.pk])).status_code == 404
    # A manager does not count a cashier's drawer: the close is a cashier's.
    assert (
        manager.post(reverse("drawers:drawer_close", args=[shift.pk]), {"counted_cash": "1"}).status_code
        == 403
    )
    for role in (Role.PLAYER, Role.CALLER):
        someone = client_as(role)
        for url in (
            DRAWER,
            reverse("drawers:closeout_list"),
            reverse("drawers:closeout_detail", args=[shift.pk]),
        ):
            assert someone.get(url).status_code == 403
    client.logout()
    assert client.get(reverse("drawers:closeout_list")).status_code == 302  # to the login page


def test_the_manager_sees_every_desks_close_outs_and_their_pdf(client: Client, walk: Walk) -> None:
    manager = logged_in(client, staff(walk, Role.MANAGER, "gerente"))
    shift = walk.open()
    payout = walk.movements()
    expected = FLOAT + Decimal("440") - payout.net + Decimal("900") - Decimal("464")
    drawer_services.drawer_close(shift=shift, cashier=walk.cashier, counted_cash=expected - 3)
    other_desk = drawer_services.drawer_open(
        cash_desk=walk.other_desk, cashier=walk.cashier, opening_float=Decimal("1000")
    )

    listed = manager.get(reverse("drawers:closeout_list")).content.decode()
    assert f'data-closeout="{shift.pk}"' in listed
    assert f'data-closeout="{other_desk.pk}"' in listed
    only = manager.get(f"{reverse('drawers:closeout_list')}?caixa={walk.other_desk.pk}").content.decode()
    assert f'data-closeout="{shift.pk}"' not in only
    detail = manager.get(reverse("drawers:closeout_detail", args=[shift.pk])).content.decode()
    assert "A caixa tem a menos 3 CVE." in detail

    pdf = manager.get(reverse("drawers:closeout_pdf", args=[shift.pk]))
    assert pdf.status_code == 200
    assert pdf["Content-Type"] == "application/pdf"
    text = pdf_text(pdf.content)
    closed_at = hall_local(DrawerShift.objects.get(pk=shift.pk).closed_at, walk.hall)
    for line in (
        "Fecho de caixa",
        "Caixa 1",
        "Fundo de caixa 5 000 CVE",
        "Dinheiro recebido das vendas 500 CVE",
        "Troco dado 60 CVE",
        f"Prémios pagos (bruto) {money_display(payout.gross, 'CVE')}",
        f"Imposto retido {money_display(payout.tax, 'CVE')}",
        f"Prémios pagos em dinheiro {money_display(payout.net, 'CVE')}",
        "Depósitos nas carteiras 900 CVE",
        "Levantamentos das carteiras 464 CVE",
        f"Dinheiro esperado {money_display(expected, 'CVE')}",
        f"Dinheiro contado {money_display(expected - 3, 'CVE')}",
        "-3 CVE",
        f"{closed_at:%d/%m/%Y %H:%M}",
    ):
        assert line in text, line


def test_the_range_report_counts_one_desk_between_two_moments_of_the_halls_clock(
    client: Client, walk: Walk
) -> None:
    cashier = logged_in(client, walk.cashier)
    start = hall_local(timezone.now(), walk.hall).replace(second=0, microsecond=0)
    walk.movements()
    end = hall_local(timezone.now(), walk.hall).replace(second=0, microsecond=0).replace(minute=59)
    query = {"caixa": walk.desk.pk, "start": f"{start:%Y-%m-%dT%H:%M}", "end": f"{end:%Y-%m-%dT%H:%M}"}
    url = reverse("drawers:range_report")

    body = cashier.get(url, {**query, "cash_desk": walk.desk.pk}).content.decode()
    assert figure(body, "deposits") == "900 CVE"
    assert figure(body, "withdrawals") == "464 CVE"
    assert 'data-figure="opening_float"' not in body  # a range has no float

    pdf = cashier.get(url, {**query, "cash_desk": walk.desk.pk, "formato": "pdf"})
    assert pdf["Content-Type"] == "application/pdf"
    text = pdf_text(pdf.content)
    assert "Depósitos nas carteiras 900 CVE" in text
    backwards = cashier.get(
        url, {"caixa": walk.desk.pk, "cash_desk": walk.desk.pk, "start": query["end"], "end": query["start"]}
    )
    assert backwards.status_code == 400
    other = Walk(name="Sala Mindelo")
    foreign = cashier.get(url, {**query, "cash_desk": other.desk.pk})
    assert foreign.status_code == 400  # not one of the cashier's desks: no figures of it


def test_the_desks_wallet_page_records_the_desk_of_the_movement(client: Client, walk: Walk) -> None:
    cashier = logged_in(client, walk.cashier)
    url = reverse("players:staff_player", args=[walk.player.pk])
    page = cashier.get(url).content.decode()
    assert 'name="cash_desk"' in page
    posted = cashier.post(
        url,
        {"kind": "deposit", "amount": "900", "reference": "CNI 1", "key": "k-1", "cash_desk": walk.desk.pk},
    )
    assert posted.status_code == 302
    assert WalletEntry.objects.get(kind="deposit").cash_desk == walk.desk


def test_the_shift_report_counts_prizes_and_wallet_movements_in_the_cash_expected(
    client: Client, walk: Walk
) -> None:
    cashier = logged_in(client, walk.cashier)
    walk.open()
    payout = walk.movements()
    # The day's report counts the won game's sale of ten cards too (1 000 000 handed over, the
    # change given back): what the drawer gained is its sales' value.
    response = cashier.get(f"/caixa/turno/?caixa={walk.desk.pk}")
    report = response.context["report"]
    assert report.cash_expected == Decimal("1000") + Decimal("440") - payout.net + 900 - 464
    assert figure(response.content.decode(), "prizes_net") == f"{payout.net:.0f} CVE"


def test_the_apis_wallet_movements_name_their_desk_and_refuse_another_halls(
    client: Client, walk: Walk
) -> None:
    cashier = logged_in(client, walk.cashier)
    url = reverse("api:player-withdrawals", args=[walk.player.pk])
    walk.wallet("deposit", "1000", None)
    body = {"amount": "464", "reference": "CNI 1", "key": "api-w1", "cash_desk": walk.desk.pk}

    made = cashier.post(url, data=json.dumps(body), content_type="application/json")

    assert made.status_code == 201, made.content
    assert made.json()["cash_desk"] == walk.desk.pk
    assert WalletEntry.objects.get(kind="withdrawal").cash_desk == walk.desk
    other = Walk(name="Sala Mindelo")
    foreign = {**body, "key": "api-w2", "cash_desk": other.desk.pk}
    refused = cashier.post(url, data=json.dumps(foreign), content_type="application/json")
    assert refused.status_code == 400
    assert "cash_desk" in refused.json(), refused.json()
    assert WalletEntry.objects.filter(kind="withdrawal").count() == 1
