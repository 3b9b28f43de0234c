"""Halls. Issue [3 of 6] extends this with rooms, cash desks, staff and the prize plan."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Hall(models.Model):
    """A licensed bingo hall: the operator's unit that owns series, rooms and ball sets."""

    name = models.CharField(_("name"), max_length=120, unique=True)
    currency = models.CharField(_("currency"), max_length=3, default="CVE")
    time_zone = models.CharField(_("time zone"), max_length=64, default="Atlantic/Cape_Verde")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("hall")
        verbose_name_plural = _("halls")
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name
