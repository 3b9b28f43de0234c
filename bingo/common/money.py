"""Money as the halls count and show it: the smallest unit of each currency, and the one formatter
every screen, display, receipt and PDF uses (``money_display``, and the ``money`` template filter
in bingo/templatetags/money.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from bingo.engine.sales import format_money

#: The smallest amount a prize is rounded down to (R6), per currency; 0.01 for any other.
CURRENCY_QUANTUM = {"CVE": Decimal("1")}

#: How money is written: "hall" as the screens show it; "plain" and "printed" as two PDFs have
#: always printed it (issue 21 moved them here unchanged, see ``money_display``).
MoneyStyle = Literal["hall", "plain", "printed"]


def quantum_for(currency: str) -> Decimal:
    """The smallest amount of ``currency`` a prize is rounded down to."""
    return CURRENCY_QUANTUM.get(currency, Decimal("0.01"))


def places_for(currency: str) -> int:
    """How many decimals ``currency`` is shown with: none for whole escudos, else two."""
    return 0 if quantum_for(currency) == 1 else 2


def money_display(amount: Decimal, currency: str, *, style: MoneyStyle = "hall") -> str:
    """Money as the hall shows it: "1 234 CVE" (whole escudos) or "1 234,50 EUR".

    The PDFs keep the text they have always printed, which is not the screens':

    * ``style="plain"``: "1234.50 CVE", the session export's own decimal (two places, a point, no
      grouping): the acta (whose data holds money so) and the player's statement;
    * ``style="printed"``: "1.234,50 CVE" (two places, dots between thousands): the price on a
      printed card.

    Both round half to even, as Python's formatting does; "hall" rounds half up.
    """
    if style == "plain":
        return f"{amount:.2f} {currency}"
    if style == "printed":
        text = f"{abs(amount.quantize(Decimal('0.01'))):.2f}"
        whole, cents = text.split(".")
        grouped = f"{int(whole):,}".replace(",", ".")
        sign = "-" if amount < 0 else ""
        return f"{sign}{grouped},{cents} {currency}"
    return format_money(amount, currency, places=places_for(currency))
