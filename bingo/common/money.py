"""Money as the halls count and show it: the smallest unit of each currency, and the one formatter
every screen, display and receipt uses (``money_display``, and the ``money`` template filter in
bingo/templatetags/money.py)."""

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
    """Money as the hall shows it: "1 234 CVE" (whole escudos) or "1 234,50 EUR"."""
    return format_money(amount, currency, places=places_for(currency))
