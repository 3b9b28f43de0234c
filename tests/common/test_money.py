"""The one money formatter (bingo.common.money) and its template filter."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.template import Context, Template

from bingo.common.money import money_display, places_for, quantum_for


def render(amount: object, currency: str) -> str:
    return Template("{% load money %}{{ amount|money:currency }}").render(
        Context({"amount": amount, "currency": currency})
    )


def test_escudos_are_whole_and_other_currencies_have_cents() -> None:
    assert (quantum_for("CVE"), places_for("CVE")) == (Decimal("1"), 0)
    assert (quantum_for("EUR"), places_for("EUR")) == (Decimal("0.01"), 2)


@pytest.mark.parametrize(
    ("amount", "currency"),
    [(Decimal("1234"), "CVE"), (Decimal("1234.5"), "EUR"), (Decimal("0"), "CVE"), (Decimal("-20"), "CVE")],
)
def test_the_filter_shows_what_money_display_shows(amount: Decimal, currency: str) -> None:
    assert render(amount, currency) == money_display(amount, currency)
    assert currency in render(amount, currency)


def test_amounts_read_as_in_the_hall() -> None:
    assert render(Decimal("1234"), "CVE") == "1 234 CVE"
    assert render(Decimal("1234.5"), "EUR") == "1 234,50 EUR"


def test_the_filter_shows_nothing_for_no_amount() -> None:
    assert render(None, "CVE") == ""
    assert render("", "CVE") == ""


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        ("100", "100,00 CVE"),
        ("1500.5", "1.500,50 CVE"),
        ("0.25", "0,25 CVE"),
        ("1234567.89", "1.234.567,89 CVE"),
    ],
)
def test_prices_are_written_the_portuguese_way(amount: str, text: str) -> None:
    """The price on a printed card (cards/printing/pdf.py)."""
    assert money_display(Decimal(amount), "CVE", style="printed") == text


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [
        ("1500.00", "CVE", "1500.00 CVE"),
        ("1234567.89", "EUR", "1234567.89 EUR"),
        ("-1500.50", "CVE", "-1500.50 CVE"),
        ("-0.00", "CVE", "-0.00 CVE"),
        ("100", "CVE", "100.00 CVE"),
    ],
)
def test_the_acta_and_the_statement_print_the_plain_decimal(amount: str, currency: str, text: str) -> None:
    """What actas/pdf.py and bingo/players/pdf.py print: the export's own decimal, as always."""
    assert money_display(Decimal(amount), currency, style="plain") == text
