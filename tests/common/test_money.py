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
    ("amount", "currency", "text"),
    [
        ("100", "CVE", "100 CVE"),
        ("1500.00", "CVE", "1 500 CVE"),
        ("1500.5", "CVE", "1 500,50 CVE"),  # centavos an amount has are never hidden
        ("0.25", "CVE", "0,25 CVE"),
        ("1234567.89", "CVE", "1 234 567,89 CVE"),
        ("-1500.50", "CVE", "-1 500,50 CVE"),
        ("-0.00", "CVE", "0 CVE"),
        ("1234567.89", "EUR", "1 234 567,89 EUR"),
        ("100", "EUR", "100,00 EUR"),
    ],
)
def test_one_format_everywhere_a_person_reads_money(amount: str, currency: str, text: str) -> None:
    """Issue 25: the screens, the printed card, the acta's PDF and the statement wrote money in six
    ways (1 000 CVE, 50,00 CVE, 50.00 CVE, 150.00, 50000.00, «a 20.00»); now in one."""
    assert money_display(Decimal(amount), currency) == text
