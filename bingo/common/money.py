"""Money as the halls count and show it: the smallest unit of each currency, and the one formatter
every screen, display, receipt and PDF uses (``money_display``, and the ``money`` template filter
in bingo/templatetags/money.py)."""

from __future__ import annotations

from decimal import Decimal

from bingo.engine.sales import format_money

#: The smallest amount a prize is rounded down to (R6), per currency; 0.01 for any other.
CURRENCY_QUANTUM = {"CVE": Decimal("1")}


def quantum_for(currency: str) -> Decimal:
    """The smallest amount of ``currency`` a prize is rounded down to."""
    return CURRENCY_QUANTUM.get(currency, Decimal("0.01"))


def places_for(currency: str) -> int:
    """How many decimals ``currency`` is shown with: none for whole escudos, else two."""
    return 0 if quantum_for(currency) == 1 else 2


def money_display(amount: Decimal, currency: str) -> str:
    """Money as every screen, display, receipt, PDF, e-mail and message writes it (issue 25: one
    format): "1 234 CVE" (whole escudos), "25,01 CVE" (a price in centavos keeps them), "1 234,50
    EUR"; grouped by thousands with a space, a decimal comma, rounded half up to the cent. Machine
    formats (CSV, the API, the acta's data) keep their decimal point; only what a person reads is
    this."""
    places = places_for(currency)
    if places == 0 and amount.is_finite() and amount != amount.to_integral_value():
        places = 2  # never hide centavos an amount has
    return format_money(amount, currency, places=places)
