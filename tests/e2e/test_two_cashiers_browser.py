"""Two cashiers, two browsers, one game: sales sent at the same moment get contiguous card
numbers with no gap and no repeat (R36), and the hall's price board shows the total (R29).

PostgreSQL only: the SQLite test database lives in memory with a shared cache, where a second
writer fails at once ("database table is locked") instead of waiting as it does on the embedded
file database (WAL, BEGIN IMMEDIATE) or on PostgreSQL's row locks.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from bingo.common.money import money_display
from bingo.common.roles import Role
from bingo.models import Sale
from halls.models import CashDesk, StaffMembership
from tests.e2e.conftest import RunInBrowser, log_in
from tests.factories import UserFactory
from tests.sales.test_views import Desk

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

#: What each cashier sells in each round; both rounds' requests are in flight together.
ANA = (3, 1, 4, 2, 5)
BRUNO = (2, 5, 1, 3, 2)


def test_two_cashiers_selling_at_once_get_contiguous_numbers_and_the_board_adds_up(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers need PostgreSQL (the in-memory SQLite test database refuses them)")
    hall = Desk(name="Salão do Plateau")
    game = hall.selling
    ana = hall.cashier
    bruno = UserFactory(username="caixa-bruno", roles=[Role.CASHIER])
    StaffMembership.objects.create(hall=hall.hall, user=bruno, role=Role.CASHIER.value)
    desk_two = CashDesk.objects.create(hall=hall.hall, name="Caixa 2")
    base = asgi_server
    total = sum(ANA) + sum(BRUNO)

    def open_screen(context: Any, user: User, desk: CashDesk) -> Any:
        page = context.new_page()
        log_in(page, base, user.username, "/caixa/")
        page.goto(f"{base}/caixa/venda/?jogo={game.pk}&caixa={desk.pk}")
        page.wait_for_selector("button[data-sell]")
        return page

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {"errors": [], "receipts": []}
        board = context.new_page()
        board.goto(f"{base}/quadro/{game.pk}/")
        board.wait_for_selector("[data-live].is-live")  # the websocket is open
        # A separate browser context: its own cookies, so its own login session.
        other = context.browser.new_context(locale="en-GB")
        other.set_default_timeout(15_000)
        try:
            pages = [open_screen(context, ana, hall.desk), open_screen(other, bruno, desk_two)]
            for round_quantities in zip(ANA, BRUNO, strict=True):
                keys = []
                for page, quantity in zip(pages, round_quantities, strict=True):
                    page.locator("input[name=quantity]").fill(str(quantity))
                    page.locator("input[name=cash_received]").fill("1000")
                    keys.append(page.locator("input[name=request_key]").input_value())
                # Both submits leave before either answer is awaited: the two requests overlap.
                for page in pages:
                    page.evaluate("() => { document.querySelector('form.sell-form').requestSubmit(); }")
                for page, key in zip(pages, keys, strict=True):
                    page.wait_for_url(re.compile(rf".*recibo={key}"))
                    seen["errors"] += page.locator("#sale-errors").all_inner_texts()
                    seen["receipts"].append(page.locator("#receipt").inner_text())
            board.wait_for_function(
                f"() => document.querySelector('[data-cards-sold]').textContent.trim() === '{total}'"
            )
            seen["live_total"] = board.locator("[data-total]").inner_text()
            board.reload()
            seen["reloaded_cards"] = board.locator("[data-cards-sold]").inner_text()
            seen["reloaded_total"] = board.locator("[data-total]").inner_text()
        finally:
            other.close()
        return seen

    seen = browser(scenario)

    assert seen["errors"] == []
    assert len(seen["receipts"]) == len(ANA) + len(BRUNO)
    sales = list(Sale.objects.filter(game=game).order_by("first_number"))
    numbers = [n for sale in sales for n in range(sale.first_number, sale.last_number + 1)]
    assert numbers == list(range(1, total + 1))  # contiguous from 1: nothing skipped, nothing twice
    assert all(sale.series_id == hall.on_sale.pk for sale in sales)
    assert sorted(s.quantity for s in sales if s.cashier_id == ana.pk) == sorted(ANA)
    assert sorted(s.quantity for s in sales if s.cashier_id == bruno.pk) == sorted(BRUNO)
    assert {s.cash_desk_id for s in sales if s.cashier_id == bruno.pk} == {desk_two.pk}
    hall.on_sale.refresh_from_db()
    assert hall.on_sale.last_sold == total
    expected_total = money_display(Decimal(100) * total, "CVE")
    assert seen["live_total"] == seen["reloaded_total"] == expected_total
    assert seen["reloaded_cards"] == str(total)
