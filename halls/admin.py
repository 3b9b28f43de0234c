"""Admin for halls: until the halls screens exist (next issue), halls are created here."""

from django.contrib import admin

from halls.models import Hall


@admin.register(Hall)
class HallAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "currency", "time_zone", "created_at")
    search_fields = ("name",)
