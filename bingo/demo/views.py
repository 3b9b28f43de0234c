"""Screens of demo mode (R102, PT-803/43-44; thin adapters, STYLE rule 3).

``/demo/``: the demo credits, free credits when they run out (at most once an hour), the
operator's online rooms to try and the latest demo games. ``/demo/jogo/<id>/``: the online game
screen (its board and script) over a demo game, which reads its state from
``/api/demo/games/<id>/`` as the balls come. Every page says «DEMONSTRAÇÃO — sem dinheiro real».
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from bingo.common.forms import form_errors_flash, refusal_flash
from bingo.demo import selectors, services
from bingo.demo.forms import DemoStartForm
from bingo.models import DemoGame, OnlineRoom
from bingo.players.access import player_from_request, player_required


@require_GET
@player_required
def home(request: HttpRequest) -> HttpResponse:
    player = player_from_request(request)
    balance = selectors.demo_balance(player=player)
    context = {
        "balance": balance,
        "balance_display": selectors.credits_display(balance),
        "grant": selectors.demo_grant_status(player=player),
        "grant_display": selectors.credits_display(selectors.DEMO_GRANT),
        "price_display": selectors.credits_display(selectors.DEMO_CARD_PRICE),
        "rooms": selectors.demo_room_list(player=player),
        "games": selectors.demo_game_list(player=player),
        "form": DemoStartForm(),
        "others": selectors.DEMO_OTHER_CARDS,
    }
    return render(request, "demo/home.html", context)


@require_POST
@player_required
def grant(request: HttpRequest) -> HttpResponse:
    player = player_from_request(request)
    try:
        entry = services.demo_credit_grant(player=player)
    except ValidationError as exc:
        refusal_flash(request, exc)
    else:
        messages.success(
            request, _("%(credits)s to play with.") % {"credits": selectors.credits_display(entry.credits)}
        )
    return redirect("demo:home")


@require_POST
@player_required
def start(request: HttpRequest, room_id: int) -> HttpResponse:
    player = player_from_request(request)
    try:
        room = selectors.demo_room_get(player=player, room_id=room_id)
    except OnlineRoom.DoesNotExist:
        raise Http404 from None
    form = DemoStartForm(request.POST)
    if not form.is_valid():
        form_errors_flash(request, form)  # the number of cards, or the page's key
        return redirect("demo:home")
    try:
        game = services.demo_game_start(
            player=player, online_room=room, cards=form.cleaned_data["cards"], key=form.cleaned_data["key"]
        )
    except ValidationError as exc:
        refusal_flash(request, exc)
        return redirect("demo:home")
    return redirect("demo:game", game.pk)


@require_GET
@player_required
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    player = player_from_request(request)
    try:
        game = selectors.demo_game_get(player=player, game_id=game_id)
    except DemoGame.DoesNotExist:
        raise Http404 from None
    services.demo_game_settle(game=game)
    context = {
        "game": game,
        "state": selectors.demo_game_state(player=player, game=game),
        "state_url": reverse("api:demo-game-state", args=[game.pk]),
        "poll_ms": int(float(game.ball_interval) * 1000),
        "form": DemoStartForm(),
    }
    return render(request, "demo/game.html", context)
