"""Reads of the card stock: card sets, their cards (one or all), series, card checks."""

from __future__ import annotations

import numpy as np
from django.db.models import BinaryField, QuerySet
from django.db.models.functions import Substr

from bingo.engine import Variant, geometry, grid_of
from bingo.engine.cardset import Cells
from bingo.engine.checkcode import check_code, check_code_matches
from bingo.engine.sales import SeriesStock
from cards.models import CardSet, CardSetCells, Series


def card_set_list() -> QuerySet[CardSet]:
    """Card sets, newest first, with who asked for them."""
    return CardSet.objects.select_related("created_by").order_by("-created_at", "-id")


def card_set_get(*, card_set_id: int) -> CardSet:
    """One card set; CardSet.DoesNotExist when there is none."""
    return card_set_list().get(pk=card_set_id)


def _shape(card_set: CardSet) -> tuple[int, int]:
    geo = geometry(Variant(card_set.variant))
    return geo.rows, geo.cols


def card_set_cells(card_set: CardSet) -> Cells:
    """All cards of a ready set as an array (cards, rows, cols); 0 marks a blank or free cell."""
    rows, cols = _shape(card_set)
    blob = CardSetCells.objects.filter(pk=card_set.pk).values_list("cells", flat=True).get()
    cells = np.frombuffer(bytes(blob), dtype=np.uint8).reshape(card_set.size, rows, cols)
    return cells


def card_get(*, card_set: CardSet, number: int) -> list[list[int | None]]:
    """Card ``number`` of a ready set, read on its own (a substring of the stored cards)."""
    if not 1 <= number <= card_set.size:
        raise IndexError(number)
    rows, cols = _shape(card_set)
    width = rows * cols
    blob = (
        CardSetCells.objects.filter(pk=card_set.pk)
        .annotate(card=Substr("cells", (number - 1) * width + 1, width, output_field=BinaryField()))
        .values_list("card", flat=True)
        .get()
    )
    return grid_of(np.frombuffer(bytes(blob), dtype=np.uint8).reshape(rows, cols))


def series_list(*, hall_id: int | None = None) -> QuerySet[Series]:
    """Series with their hall and card set, by hall and order number."""
    found = Series.objects.select_related("hall", "card_set")
    if hall_id is not None:
        found = found.filter(hall_id=hall_id)
    return found.order_by("hall__name", "order_number")


def series_get(*, series_id: int) -> Series:
    """One series; Series.DoesNotExist when there is none."""
    return series_list().get(pk=series_id)


def card_check_code(*, series: Series, number: int) -> str:
    """The check code printed on card ``number`` of ``series``."""
    return check_code(bytes(series.check_key), series.pk, number)


def card_check(*, series: Series, number: int, code: str) -> list[list[int | None]] | None:
    """The card, when ``code`` is its check code; None for a wrong number or code (nothing leaks)."""
    if not 1 <= number <= series.size or not check_code_matches(
        bytes(series.check_key), series.pk, number, code
    ):
        return None
    return card_get(card_set=series.card_set, number=number)


def series_stock(series: Series) -> SeriesStock:
    """``series`` as the engine's sale rules see it: its size, last card sold and price (R36-R38)."""
    return SeriesStock(series.pk, series.label, series.size, series.last_sold, series.price)
