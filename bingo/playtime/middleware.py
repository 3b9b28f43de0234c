"""The request side of play sessions (PT-803 g): the login and logout receivers, and the
middleware that keeps a player's session alive and ends it when it is due.

* Before login (``bingo.accounts.signals.login_checking``): refused during the hall's mandatory
  break after a session ended at the player's time limit (R101).
* Login (``user_logged_in``): the player's play session starts (or the open one is joined).
* Logout (``user_logged_out``): it ends, its summary kept; ``LogoutView`` (bingo/playtime/views.py)
  then shows the summary (PT-806/67).
* Every request of a logged-in player: ``last_seen_at`` moves on (at most once a minute); a
  session idle longer than ``PLAYER_IDLE_TIMEOUT``, past the player's time limit (R101) or
  inactive (PT-806/71) is ended, the player logged out and shown its summary.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth import logout
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.models import Player, PlaySession
from bingo.players.access import request_player
from bingo.playtime import selectors, services

#: The Django session's keys: the play session of this login, and the one whose summary to show.
SESSION_KEY = "play_session"
SUMMARY_KEY = "play_summary"


def _player(user: AbstractBaseUser | Any) -> Player | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return Player.objects.filter(user_id=user.pk).first()


def on_login(sender: Any, request: HttpRequest | None, user: AbstractBaseUser, **kwargs: Any) -> None:
    """``user_logged_in``: a player's play session starts (PT-803 g)."""
    player = _player(user)
    if player is None or request is None:
        return
    session = services.play_session_start(player=player)
    request.session[SESSION_KEY] = session.pk


def on_login_checking(sender: Any, user: AbstractBaseUser, **kwargs: Any) -> None:
    """``bingo.accounts.signals.login_checking``: a player's login is refused, with the reason,
    during their hall's mandatory break after a session ended at their time limit (R101)."""
    player = _player(user)
    if player is not None:
        services.play_login_check(player=player)


def on_logout(sender: Any, request: HttpRequest | None, user: AbstractBaseUser | None, **kwargs: Any) -> None:
    """``user_logged_out``: the player's play session ends, its summary kept (PT-806/67); the
    request remembers it for the summary page (the Django session is flushed next)."""
    player = _player(user)
    if player is None or request is None:
        return
    session_id = request.session.get(SESSION_KEY)
    session = PlaySession.objects.filter(pk=session_id, player=player).first() if session_id else None
    if session is None:
        session = selectors.play_session_open_get(player=player)
    if session is None:
        return
    ended = services.play_session_end(session=session, reason=PlaySession.EndReason.LOGOUT)
    request.play_summary_id = ended.pk  # type: ignore[attr-defined]


def remember_summary(request: HttpRequest) -> bool:
    """After a logout: keep the ended session's id in the new Django session for the summary
    page; False when there is none."""
    summary_id = getattr(request, "play_summary_id", None)
    if summary_id is None:
        return False
    request.session[SUMMARY_KEY] = summary_id
    return True


class PlaySessionMiddleware:
    """Keep a logged-in player's play session alive; end it, log out and show its summary when
    it is due (idle, time limit R101, inactivity PT-806/71) or was ended elsewhere."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.check(request) or self.get_response(request)

    def check(self, request: HttpRequest) -> HttpResponse | None:
        if request.path.startswith(settings.STATIC_URL):
            return None
        if getattr(request, "user", None) is None:
            return None
        # A player's Django session holds their play session (on_login): their roles and their
        # row are read together, once, and kept on the request for the views.
        player = request_player(request, likely=SESSION_KEY in request.session)
        if player is None:
            return None
        now = timezone.now()
        session_id = request.session.get(SESSION_KEY)
        # The session with its time limit and inactivity, in one read.
        found = (
            selectors.play_session_due_get(session_id=session_id, player=player, now=now)
            if session_id
            else None
        )
        if found is None:
            # Logged in before play sessions existed, or the session's row is gone: start one.
            session = services.play_session_start(player=player, now=now)
            request.session[SESSION_KEY] = session.pk
            return None
        session, reason = found
        if reason is not None:
            session = services.play_session_end(session=session, reason=reason, now=now)
        if session.ended_at is not None:
            return self.ended(request, session)
        if not (request.method == "GET" and request.path == reverse("api:player-playtime")):
            # The pages' own reading of the session's state, every 30 seconds, is not the player
            # being there: a tab left open must not hold off the idle timeout.
            services.play_session_touch(session=session, now=now)
        return None

    def ended(self, request: HttpRequest, session: PlaySession) -> HttpResponse:
        """Log the player out and show the ended session's summary (JSON for the API)."""
        logout(request)
        request.session[SUMMARY_KEY] = session.pk
        if request.path.startswith("/api/"):
            return JsonResponse(
                {
                    "detail": _("Your play session ended (%(reason)s): log in again to play.")
                    % {"reason": session.get_end_reason_display()},
                    "session": session.pk,
                    "end_reason": session.end_reason,
                },
                status=403,
            )
        return redirect("playtime:summary")
