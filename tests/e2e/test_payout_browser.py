"""Paying a prize by scanning the card in a real browser: the USB scanner's keystrokes and Enter
land on the payout's slip (R50); the slip and the sale receipt fit the 80 mm roll when printed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bingo.models import PrizePayment
from tests.draw.test_views import Console, won
from tests.e2e.conftest import RunInBrowser, log_in
from tests.sales.test_payout_slip import LICENCE, printed_payload

pytestmark = pytest.mark.browser

#: 80 mm at CSS's 96 pixels an inch: the thermal roll's width.
ROLL_PX = 302

#: Every element whose box leaves the page's width (a pixel of rounding allowed), by tag and
#: class; and whether the print button takes any room.
OVERFLOWING = """
() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // not printed (display: none)
    if (box.left < -1 || box.right > width + 1) {
      wide.push(`${el.tagName}.${el.className} ${box.left}-${box.right}`);
    }
  }
  const button = document.querySelector('button[data-print]').getBoundingClientRect();
  const printed = button.width > 0 || button.height > 0;
  return {width, scroll: document.documentElement.scrollWidth, wide, button: printed};
}
"""


def print_fits(page: Any) -> dict[str, Any]:
    """The page as the 80 mm printer lays it out: print media on a 302 px (80 mm) viewport."""
    page.set_viewport_size({"width": ROLL_PX, "height": 1200})
    page.emulate_media(media="print")
    try:
        return dict(page.evaluate(OVERFLOWING))
    finally:
        page.emulate_media(media="screen")


def test_a_scanned_card_is_paid_and_its_slip_fits_the_80mm_roll(
    asgi_server: str, browser: RunInBrowser[Any], tmp_path: Path
) -> None:
    hall = Console(name="Salão do Plateau", **LICENCE)
    game, number = won(hall)
    payload = printed_payload(hall.series_of(game), number)
    assert not PrizePayment.objects.exists()
    receipt_key = "r" * 32
    selling = hall.game(hall.series(99))
    hall.sell(selling, 3, key=receipt_key)
    base = asgi_server

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        log_in(page, base, hall.cashier.username, "/caixa/")
        page.goto(f"{base}/caixa/premios/?caixa={hall.desk.pk}")
        # The scanner types into whatever has the focus: the scan field has it on arrival.
        page.wait_for_function("() => document.activeElement && document.activeElement.name === 'scan'")
        page.keyboard.type(payload, delay=2)  # a burst of keystrokes...
        page.keyboard.press("Enter")  # ... ended by Enter, which submits the form
        page.wait_for_url(re.compile(r".*/caixa/taloes/[^/]+/$"))
        seen["url"] = page.url
        seen["net"] = page.locator("[data-slip-net]").inner_text().strip()
        seen["code"] = page.locator("[data-slip-code]").inner_text().strip()
        seen["licence"] = page.locator("[data-print-licence]").inner_text().strip()
        seen["print_button"] = page.locator("button[data-print]").is_visible()
        seen["slip_fit"] = print_fits(page)
        page.screenshot(path=str(tmp_path / "slip.png"), full_page=True)

        # A4 beside it: the choice switches the sheet, and the next slip of the desk keeps it.
        page.set_viewport_size({"width": 1280, "height": 900})
        page.locator("[data-paper-choice=a4]").click()
        page.wait_for_url(re.compile(r".*\?papel=a4$"))
        seen["a4_sheet"] = page.locator("link[data-paper]").get_attribute("data-paper")
        page.goto(seen["url"])
        seen["a4_remembered"] = page.locator("link[data-paper]").get_attribute("data-paper")
        page.locator("[data-paper-choice='80mm']").click()
        page.wait_for_url(re.compile(r".*\?papel=80mm$"))

        # The sale receipt, on the same roll.
        page.goto(f"{base}/caixa/recibo/{receipt_key}/")
        seen["receipt_game"] = page.locator("[data-print-game]").inner_text().strip()
        seen["receipt_fit"] = print_fits(page)
        page.screenshot(path=str(tmp_path / "receipt.png"), full_page=True)
        return seen

    seen = browser(scenario)

    payments = list(PrizePayment.objects.order_by("pk"))
    assert {(p.winner.card_number, p.cash_desk_id) for p in payments} == {(number, hall.desk.pk)}
    assert seen["url"].endswith(f"/caixa/taloes/{seen['code']}/")
    assert seen["net"].replace("\xa0", " ") == f"{sum(p.net for p in payments):.0f} CVE"
    assert seen["licence"] == f"Concessão n.º {LICENCE['licence_number']}"  # Portuguese (R54)
    assert seen["print_button"]
    for fit in (seen["slip_fit"], seen["receipt_fit"]):
        assert fit["width"] == ROLL_PX
        assert fit["wide"] == [], fit["wide"]
        assert fit["scroll"] <= ROLL_PX
        assert not fit["button"]  # the print layout leaves the buttons out
    assert seen["a4_sheet"] == "a4"
    assert seen["a4_remembered"] == "a4"
    assert seen["receipt_game"] == str(selling.number)
