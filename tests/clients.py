"""Django test clients logged in as someone (``force_login``: no password, no login page), with
the language cookie their browser would send."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client


def logged_in(user: User | None = None, language: str | None = None) -> Client:
    """A new client with ``user``'s session (anonymous when None) and, given a ``language`` ("pt",
    "en"), its language cookie; without one the pages answer in the site's, Portuguese."""
    client = Client()
    if language:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    if user is not None:
        client.force_login(user)
    return client


def api(user: User | None = None, language: str | None = "en") -> Client:
    """A client for the API tests: ``logged_in``, reading the messages in English unless told
    (None: the site's, Portuguese)."""
    return logged_in(user, language)
