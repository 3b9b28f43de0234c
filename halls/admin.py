"""Admin for halls: until the halls screens exist (next issue), halls are created here."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from halls.models import BallReplacement, BallSet, BallSetCheck, Hall, Jackpot, JackpotMovement


@admin.register(Hall)
class HallAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "currency", "time_zone", "created_at")
    search_fields = ("name",)


class _ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Shown for reading only: every write goes through the services of bingo/ballsets and
    bingo/jackpot, which keep the rules (R23, R25, R26, R10-R11); the ledgers are insert-only besides."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(BallSet)
class BallSetAdmin(_ReadOnlyAdmin):
    list_display = ("serial_number", "hall", "size", "games_played", "state", "created_at")
    list_filter = ("hall", "size", "state")
    search_fields = ("serial_number",)


@admin.register(BallSetCheck)
class BallSetCheckAdmin(_ReadOnlyAdmin):
    list_display = ("ball_set", "session", "phase", "result", "faulty_balls", "checked_by", "checked_at")
    list_filter = ("phase", "result")


@admin.register(BallReplacement)
class BallReplacementAdmin(_ReadOnlyAdmin):
    list_display = ("ball_set", "ball_number", "replacement_set", "session", "reason", "replaced_at")


@admin.register(Jackpot)
class JackpotAdmin(_ReadOnlyAdmin):
    list_display = ("hall", "balance", "base_value", "authorization_reference", "valid_until")


@admin.register(JackpotMovement)
class JackpotMovementAdmin(_ReadOnlyAdmin):
    list_display = ("jackpot", "kind", "amount", "balance_after", "game", "created_at")
    list_filter = ("kind",)
