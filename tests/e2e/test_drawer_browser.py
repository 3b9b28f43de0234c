"""The cashier closes the demo desk's drawer in a real browser (issue 24): the drawer page shows
what the demo sold and paid there since the float, the cashier counts the cash, closes, and lands
on the close-out with the over/short and who closed it; the drawer is closed once, for good."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from bingo.common.money import money_display
from bingo.drawers.selectors import drawer_figures
from bingo.models import DrawerShift
from tests.e2e.conftest import RunInBrowser, log_in

pytestmark = pytest.mark.browser


def _orm(fn: Callable[[], Any]) -> Any:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


def test_the_cashier_counts_and_closes_the_demo_drawer(
    asgi_server: str, browser: RunInBrowser[Any], settings: Any, transactional_db: None
) -> None:
    settings.DEBUG = True
    call_command("demo_setup", stdout=StringIO())
    drawer = DrawerShift.objects.get(closed_at__isnull=True)
    figures = drawer_figures(
        cash_desk=drawer.cash_desk,
        start=drawer.opened_at,
        end=timezone.now(),
        opening_float=drawer.opening_float,
    )
    counted = figures.expected_cash - Decimal("25.00")  # 25 CVE short

    def scenario(context: Any) -> dict[str, str]:
        page = context.new_page()
        page.set_viewport_size({"width": 360, "height": 740})
        log_in(page, asgi_server, "caixa", None, password="caixa-demo")
        page.wait_for_load_state()
        page.goto(f"{asgi_server}/caixa/")
        page.get_by_role("link", name="Fecho de caixa").first.click()
        page.wait_for_url("**/caixa/gaveta/**")
        seen = {"expected": page.locator('[data-figure="expected_cash"]').inner_text()}
        page.get_by_label("Dinheiro contado").fill(f"{counted:.2f}".replace(".", ","))
        page.get_by_role("button", name="Fechar a caixa").click()
        page.wait_for_url("**/caixa/fechos/*/")
        seen["over_short"] = page.locator('[data-figure="over_short"]').inner_text()
        seen["width"] = page.evaluate("document.documentElement.scrollWidth")
        return seen

    seen = browser(scenario)

    closed = _orm(lambda: DrawerShift.objects.select_related("closed_by").get(pk=drawer.pk))
    assert closed.closed_at is not None
    assert closed.counted_cash == counted
    assert closed.expected_cash == figures.expected_cash
    assert closed.over_short == Decimal("-25.00")
    assert closed.closed_by.username == "caixa"
    assert seen["over_short"] == "-25 CVE"
    assert seen["expected"] == money_display(figures.expected_cash, "CVE")
    assert seen["width"] <= 360
