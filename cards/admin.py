"""Admin views of the card stock, read-only: card sets, series and print jobs change only
through the services (the manager's screens), and cards and check keys are never shown or
edited by hand."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from cards.models import CardSet, PrintJob, Series


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CardSet)
class CardSetAdmin(ReadOnlyAdmin):
    list_display = ("id", "variant", "size", "algorithm", "status", "progress", "fingerprint", "created_at")
    list_filter = ("variant", "status", "algorithm")


@admin.register(Series)
class SeriesAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "hall", "order_number", "size", "price", "status", "last_sold", "double")
    list_filter = ("hall", "status", "size_letter")
    exclude = ("check_key",)  # the secret behind the check codes never leaves the server


@admin.register(PrintJob)
class PrintJobAdmin(ReadOnlyAdmin):
    list_display = ("id", "series", "first", "last", "status", "progress", "created_at")
    list_filter = ("status",)
