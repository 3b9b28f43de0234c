"""``{% load money %}`` then ``{{ amount|money:hall.currency }}``: "1 234 CVE" (bingo.common.money)."""

from __future__ import annotations

from decimal import Decimal

from django import template

from bingo.common.money import money_display

register = template.Library()


@register.filter(name="money")
def money(amount: Decimal | None, currency: str) -> str:
    """``amount`` in ``currency`` as the hall shows it; empty when there is no amount."""
    if amount is None or amount == "":
        return ""
    return money_display(Decimal(amount), currency)
