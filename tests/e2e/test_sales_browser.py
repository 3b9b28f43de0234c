"""Selling at the cash desk in a real browser while the hall's price board updates live (R29)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bingo.models import Sale
from tests.e2e.conftest import RunInBrowser, live_page, log_in
from tests.sales.test_views import Desk

pytestmark = pytest.mark.browser


def test_a_cashier_sells_and_the_price_board_updates_without_reloading(
    asgi_server: str, browser: RunInBrowser[Any], tmp_path: Path
) -> None:
    desk = Desk(name="Salão da Praia", jackpot_active=True)
    game = desk.selling
    base = asgi_server

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        board = live_page(context, f"{base}/quadro/{game.pk}/")
        seen["board_before"] = board.locator("[data-cards-sold]").inner_text()

        page = context.new_page()
        log_in(page, base, desk.cashier.username, "/caixa/")
        page.locator('a[href="/caixa/venda/"]').first.click()
        page.wait_for_url(re.compile(r".*/caixa/venda/"))

        # Keyboard only: the quantity has the focus, Tab to the cash, Enter sells.
        page.wait_for_function("() => document.activeElement && document.activeElement.name === 'quantity'")
        page.keyboard.type("3")
        page.keyboard.press("Tab")
        page.keyboard.type("500")
        page.keyboard.press("Enter")
        page.wait_for_selector("#receipt, #sale-errors")
        assert page.locator("#sale-errors").count() == 0, page.locator("main").inner_text()
        seen["receipt"] = page.locator("#receipt").inner_text()
        seen["change"] = page.locator("[data-receipt-change]").inner_text()
        page.screenshot(path=str(tmp_path / "cashier.png"), full_page=True)

        board.wait_for_function(
            "() => document.querySelector('[data-cards-sold]').textContent.trim() === '3'"
        )
        seen["board_total"] = board.locator("[data-total]").inner_text()
        seen["board_line"] = board.locator('[data-prize="line"] [data-prize-value]').inner_text()
        seen["board_bingo"] = board.locator('[data-prize="bingo"] [data-prize-value]').inner_text()
        seen["board_jackpot"] = board.locator("[data-jackpot-value]").inner_text()
        seen["same_document"] = board.evaluate("window.__sameDocument === true")

        # A second sale from the screen shown after the receipt.
        page.locator("input[name=quantity]").fill("2")
        page.locator("input[name=cash_received]").fill("200")
        page.locator("button[data-sell]").click()
        page.wait_for_selector("#receipt")
        board.wait_for_function(
            "() => document.querySelector('[data-cards-sold]').textContent.trim() === '5'"
        )
        seen["board_total_after_second"] = board.locator("[data-total]").inner_text()
        board.screenshot(path=str(tmp_path / "board.png"), full_page=True)
        return seen

    seen = browser(scenario)

    assert seen["board_before"] == "0"
    assert "A-1" in seen["receipt"]
    assert "n.º 1 \N{EN DASH} 3" in seen["receipt"]
    assert seen["change"] == "200 CVE"
    # 300 CVE of sales: prize money 240, 3 % (7 CVE, rounded down) to the jackpot (R10), the
    # rest split 20:60 and rounded down to whole escudos.
    assert seen["board_total"] == "300 CVE"
    assert seen["board_jackpot"] == "7 CVE"
    assert seen["board_line"] == "58 CVE"
    assert seen["board_bingo"] == "174 CVE"
    assert seen["same_document"] is True
    assert seen["board_total_after_second"] == "500 CVE"
    assert sorted(Sale.objects.values_list("first_number", "last_number")) == [(1, 3), (4, 5)]
    assert (tmp_path / "cashier.png").stat().st_size > 0
    assert (tmp_path / "board.png").stat().st_size > 0
