"""Paying prizes: the tax withheld on a prize (SPEC §2, R61 g)).

The hall's rule is a rate and a threshold: a prize share of at least the threshold is taxed at
the rate on its whole amount, and the tax is rounded down to the currency's unit (never more
than the rate). A threshold of 0 taxes every prize; a rate of 0 none.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal


def tax_withheld(amount: Decimal, *, rate: Decimal, threshold: Decimal, quantum: Decimal) -> Decimal:
    """The tax withheld from a prize share of ``amount`` under a ``rate`` in percent."""
    for name, value in (("amount", amount), ("rate", rate), ("threshold", threshold)):
        if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
            raise ValueError(f"{name} must be a non-negative Decimal, not {value!r}")
    if rate > 100:
        raise ValueError(f"a tax rate is at most 100 %, not {rate}")
    if not isinstance(quantum, Decimal) or quantum <= 0:
        raise ValueError(f"the quantum must be a positive Decimal, not {quantum!r}")
    if amount < threshold or rate == 0:
        return Decimal(0).quantize(quantum)
    return (amount * rate / 100).quantize(quantum, rounding=ROUND_FLOOR)
