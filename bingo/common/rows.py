"""Model instances from the rows of a hand-written PostgreSQL statement.

The reads every request of a player makes (their roles and row, their play session) are written
as SQL on PostgreSQL: compiling their querysets cost more than running them (issue 23). psycopg
hands back each column as Python already (dates, aware datetimes, Decimals), which is what
``Model.from_db`` wants; on SQLite the same reads are querysets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)


def columns(model: type[models.Model], alias: str) -> str:
    """``alias.column, ...`` for every concrete field of ``model``, in the model's order."""
    return ", ".join(f"{alias}.{field.column}" for field in model._meta.concrete_fields)


def width(model: type[models.Model]) -> int:
    """How many columns ``columns`` lists for ``model``."""
    return len(model._meta.concrete_fields)


def instance(model: type[M], values: Sequence[Any]) -> M | None:
    """``model`` from the values of its ``columns``, read from the database; None when its key
    is NULL (a row an outer join did not find)."""
    if values[model._meta.concrete_fields.index(model._meta.pk)] is None:
        return None
    fields = model._meta.concrete_fields
    names = [field.attname for field in fields]
    values = list(values)
    for i, field in enumerate(fields):
        # What the queryset's compiler would apply: a JSON field's text read as its value.
        for convert in field.get_db_converters(connection):
            values[i] = convert(values[i], None, connection)
    return model.from_db(connection.alias, names, values)


def instances(row: Sequence[Any], *kinds: type[models.Model]) -> list[models.Model | None]:
    """One instance of each model of ``kinds`` from ``row``, which lists their ``columns`` one
    model after another (``instance`` of each: None for a key an outer join did not find)."""
    found: list[models.Model | None] = []
    start = 0
    for model in kinds:
        found.append(instance(model, row[start : start + width(model)]))
        start += width(model)
    return found
