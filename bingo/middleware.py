"""Project middleware: the UI language, the page a person gets for an address that is not
there, and static files served well under ASGI."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.deprecation import MiddlewareMixin
from whitenoise.middleware import WhiteNoiseMiddleware


def request_language(request: HttpRequest) -> str:
    """The language a request is served in: the user's explicit choice, else the default.

    R54: the game is run in Portuguese. Unlike Django's ``LocaleMiddleware`` the browser's
    ``Accept-Language`` is ignored: English is shown only when the user picks it (the
    language cookie set by ``set_language``).
    """
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    if chosen:
        try:
            return translation.get_supported_language_variant(chosen)
        except LookupError:
            pass
    return settings.LANGUAGE_CODE


class LanguageMiddleware(MiddlewareMixin):
    """Activate the language from the language cookie, or ``settings.LANGUAGE_CODE``."""

    def process_request(self, request: HttpRequest) -> None:
        language = request_language(request)
        translation.activate(language)
        request.LANGUAGE_CODE = language

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        language = getattr(request, "LANGUAGE_CODE", settings.LANGUAGE_CODE)
        response.headers.setdefault("Content-Language", language)
        # The same URL renders in another language when the cookie differs.
        patch_vary_headers(response, ("Cookie",))
        return response


class NotFoundPageMiddleware(MiddlewareMixin):
    """With debug on (``make run``), a page not found is the site's own, in the page's language
    (issue 25: the newcomer met Django's technical page, in English), as with debug off; the API
    keeps its JSON 404. ``BINGO_TECHNICAL_404=true`` shows Django's page again, for a developer
    looking for the route that did not match."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if (
            response.status_code != 404
            or not settings.DEBUG
            or settings.BINGO_TECHNICAL_404
            or request.path.startswith("/api/")
            or not response.get("Content-Type", "").startswith("text/html")
        ):
            return response
        return render(request, "404.html", status=404)


def _next_chunk(chunks: Iterator[bytes]) -> bytes | None:
    return next(chunks, None)


async def _read_in_thread(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    while (chunk := await sync_to_async(_next_chunk, thread_sensitive=False)(chunks)) is not None:
        yield chunk


class StaticFilesMiddleware(WhiteNoiseMiddleware):  # type: ignore[misc]  # WhiteNoise is untyped
    """WhiteNoise, streaming file bodies asynchronously when served over ASGI.

    WhiteNoise hands Django a file iterator that blocks; under ASGI Django would read it
    in one go and warn on every static file. Here each chunk is read in a worker thread.
    With ``WHITENOISE_USE_FINDERS`` (debug) a missing STATIC_ROOT is not worth a warning.
    """

    def add_files(self, root: str, prefix: str | None = None) -> None:
        # With the finders on (debug), static files come from the source folders and an
        # absent STATIC_ROOT is expected (no collectstatic): do not warn about it.
        if self.use_finders and not Path(root).is_dir():
            return
        super().add_files(root, prefix)

    def serve(self, static_file: Any, request: HttpRequest) -> HttpResponseBase:
        response: HttpResponseBase = super().serve(static_file, request)
        if (
            isinstance(request, ASGIRequest)
            and isinstance(response, StreamingHttpResponse)
            and not response.is_async
        ):
            # not is_async: the content is a plain (blocking) iterator
            blocking: Iterator[bytes] = iter(response.streaming_content)  # type: ignore[arg-type]
            response.streaming_content = _read_in_thread(blocking)
        return response
