"""The player's play session pages (thin adapters, STYLE rule 3): «As minhas sessões» with every
ended session's summary (PT-806/67), the time limit and reminders (R101), the summary shown
when a session ends, the answer to the inactivity invitation (PT-806/70-71), and the logout
that shows the summary."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bingo.common.forms import add_service_errors, refusal_flash
from bingo.common.roles import Role, role_required
from bingo.models import PlaySession
from bingo.players.access import player_from_request, player_required
from bingo.playtime import selectors, services
from bingo.playtime.forms import PlayLimitForm
from bingo.playtime.middleware import SUMMARY_KEY, remember_summary

#: Sessions per page of «As minhas sessões».
SESSIONS_PAGE = 25


class LogoutView(auth_views.LogoutView):
    """Django's logout (POST only); a player then sees the summary of the session just ended
    (PT-806/67, PT-803/39)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = super().post(request, *args, **kwargs)
        if remember_summary(request):
            return redirect("playtime:summary")
        return response


def _line(session: PlaySession) -> dict[str, Any]:
    return {"session": session, "minutes": selectors.played_seconds(session=session) // 60}


@require_GET
@player_required
def session_list(request: HttpRequest) -> HttpResponse:
    """«As minhas sessões»: the session open now, the time limit in force, and every ended
    session with its summary, newest first (PT-806/67)."""
    player = player_from_request(request)
    page = Paginator(selectors.play_session_list(player=player), SESSIONS_PAGE).get_page(
        request.GET.get("pagina")
    )
    context = {
        "player": player,
        "page": page,
        "lines": [_line(s) for s in page.object_list],
        "current": selectors.playtime_state(player=player),
        "limits": selectors.play_limits(player=player),
    }
    return render(request, "playtime/sessions.html", context)


@require_http_methods(["GET", "POST"])
@player_required
def limit(request: HttpRequest) -> HttpResponse:
    """R101: the player sets a session time limit and reminders of the time played. A tighter
    limit applies at once, a looser one after 24 hours."""
    player = player_from_request(request)
    limits = selectors.play_limits(player=player)
    status = 200
    if request.method == "POST":
        form = PlayLimitForm(request.POST)
        if form.is_valid():
            try:
                saved = services.play_limit_set(
                    player=player,
                    session_minutes=form.cleaned_data["session_minutes"],
                    reminder_minutes=form.cleaned_data["reminder_minutes"],
                )
            except ValidationError as exc:
                add_service_errors(form, exc)
            else:
                if saved.next_from is not None:
                    messages.success(
                        request,
                        _(
                            "Saved. A looser limit applies after 24 hours;"
                            " until then the current one holds (R101)."
                        ),
                    )
                else:
                    messages.success(request, _("Saved: your time limit and reminders apply now."))
                return redirect("playtime:sessions")
        status = 400
    else:
        form = PlayLimitForm(
            initial={"session_minutes": limits.session_minutes, "reminder_minutes": limits.reminder_minutes}
        )
    return render(
        request, "playtime/limit.html", {"player": player, "form": form, "limits": limits}, status=status
    )


@require_GET
def summary(request: HttpRequest) -> HttpResponse:
    """The summary of the session that just ended (PT-806/67): shown after logout, a timeout,
    the time limit or inactivity, to whoever's browser session it ended in."""
    session_id = request.session.get(SUMMARY_KEY)
    if session_id is None:
        return redirect("playtime:sessions" if request.user.is_authenticated else "login")
    try:
        session = selectors.play_session_get(session_id=session_id)
    except PlaySession.DoesNotExist:
        raise Http404 from None
    if request.user.is_authenticated and session.player.user_id != request.user.pk:
        # Someone else logged in on this browser since (a shared terminal): not theirs to read.
        request.session.pop(SUMMARY_KEY, None)
        return redirect("home")
    context = {"line": _line(session), "player": session.player}
    return render(request, "playtime/summary.html", context)


@require_GET
@role_required(Role.PLAYER)
def end(request: HttpRequest) -> HttpResponse:
    """Where a page goes when the state says the session must end: the middleware ends it and
    shows the summary before this view runs; reached, the session goes on."""
    return redirect("online:lobby")


@require_POST
@player_required
def go_on(request: HttpRequest) -> HttpResponse:
    """PT-806/71: «Continuar» after the inactivity invitation: the player is warned that the
    session ends if they buy nothing in the next game."""
    player = player_from_request(request)
    session = selectors.play_session_open_get(player=player)
    if session is not None:
        try:
            services.play_session_continue(session=session)
        except ValidationError as exc:
            refusal_flash(request, exc)
        else:
            messages.info(request, _("The session ends if you buy no cards in the next game."))
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("online:lobby")
    return redirect(back)
