"""Screens of online play (thin adapters, STYLE rule 3).

Managers: the online rooms of the halls they manage, each room's setup (R88-R93) and its
sessions' schedule (R91-R93). Players: the lobby (rooms, next games, jackpot, wallet) and the
game screen (buy, the cards marked live, the balls, prizes and winners; R94-R97). The game
screen's live part is ``static/js/online_game.js`` over ``ws/online/game/<id>/``
(``bingo.live.players``) and the state at ``/api/online/games/<id>/state/``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bingo.common.forms import form_errors_flash, form_saved, refusal_flash
from bingo.common.money import money_display, places_for
from bingo.common.roles import Role, role_required
from bingo.models import COMPLAINT_MAX_LENGTH, Game, OnlineOrder, OnlineRoom, Player
from bingo.online import selectors, services
from bingo.online.forms import BuyAheadForm, BuyForm, MarkingForm, OnlineRoomForm, SessionScheduleForm
from bingo.players.access import player_from_request, player_required
from bingo.playtime import selectors as playtime_selectors
from bingo.playtime import services as playtime_services
from bingo.protection import selectors as protection_selectors
from halls.models import Hall
from halls.selectors import hall_list_for

# --- managers ----------------------------------------------------------------------------------


def _room_or_404(request: HttpRequest, room_id: int) -> OnlineRoom:
    try:
        return selectors.online_room_get(halls=hall_list_for(request.user, Role.MANAGER), room_id=room_id)
    except OnlineRoom.DoesNotExist:
        raise Http404 from None


@require_GET
@role_required(Role.MANAGER)
def room_list(request: HttpRequest) -> HttpResponse:
    rooms = selectors.online_room_list(halls=hall_list_for(request.user, Role.MANAGER))
    return render(request, "online/room_list.html", {"nav": "online", "rooms": rooms})


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def room_create(request: HttpRequest) -> HttpResponse:
    halls = hall_list_for(request.user, Role.MANAGER)
    form = OnlineRoomForm(request.POST or None, halls=halls)
    room = form_saved(form)
    if room is None:
        return render(request, "online/room_form.html", {"nav": "online", "form": form, "room": None})
    messages.success(request, _("Online room %(name)s created.") % {"name": room.room.name})
    return redirect("online:room_detail", room.pk)


def _room_page(
    request: HttpRequest,
    room: OnlineRoom,
    form: OnlineRoomForm,
    schedule_form: SessionScheduleForm | None,
    status: int = 200,
) -> HttpResponse:
    """An online room's page: its settings' form, its latest games, whether it is idle, and in
    session mode the form to schedule a session."""
    context = {
        "nav": "online",
        "room": room,
        "form": form,
        "games": selectors.room_game_list(online_room=room, limit=50),
        "idle": selectors.online_room_idle(online_room=room),
        "schedule_form": schedule_form,
    }
    return render(request, "online/room_detail.html", context, status=status)


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def room_detail(request: HttpRequest, room_id: int) -> HttpResponse:
    room = _room_or_404(request, room_id)
    form = OnlineRoomForm(request.POST or None, room=room)
    if form_saved(form) is None:
        return _room_page(
            request, room, form, SessionScheduleForm(room=room) if room.mode == "session" else None
        )
    messages.success(request, _("Online room saved."))
    return redirect("online:room_detail", room.pk)


@require_POST
@role_required(Role.MANAGER)
def session_schedule(request: HttpRequest, room_id: int) -> HttpResponse:
    room = _room_or_404(request, room_id)
    form = SessionScheduleForm(request.POST, room=room)
    user = request.user
    assert isinstance(user, User)
    session = form_saved(form, user=user)
    if session is None:
        return _room_page(request, room, OnlineRoomForm(room=room), form, status=400)
    games = session.games.count()
    messages.success(
        request,
        ngettext(
            "Session scheduled with %(n)d game: sales open at its start and close together (R93).",
            "Session scheduled with %(n)d games: sales open at its start and close together (R93).",
            games,
        )
        % {"n": games},
    )
    return redirect("online:room_detail", room.pk)


# --- players -----------------------------------------------------------------------------------


def _game_or_404(player: Player, game_id: int) -> Game:
    try:
        return selectors.online_game_get(player=player, game_id=game_id)
    except Game.DoesNotExist:
        raise Http404 from None


@require_GET
@player_required
def lobby(request: HttpRequest) -> HttpResponse:
    player = player_from_request(request)
    # R99: the games that ended since the player last opened the lobby (away, or disconnected).
    since = services.player_lobby_visit(player=player)
    playtime = playtime_selectors.playtime_state(player=player)
    notice = protection_selectors.player_notice(player=player)  # R101
    lobby = selectors.online_lobby(player=player)
    context = {
        "lobby": lobby,
        # Each room's own form to buy ahead: its own key (a form of one room never answers as
        # another's), the price and variant shown for its next games, its own element ids.
        "rooms": [
            (
                entry,
                BuyAheadForm(
                    strips=entry.online_room.strips,
                    terms=entry.terms,
                    auto_id=f"ahead-{entry.online_room.pk}-%s",
                ),
            )
            for entry in lobby.rooms
        ],
        "away": selectors.player_games_ended_since(player=player, since=since),
        "playtime": playtime,
        "protection_notice": notice,
        # R101: an excluded player (or one whose play session reached its limit) is offered no
        # purchase: the notice says why, once.
        "can_buy": not notice and not playtime.get("limit_reached"),
        "marking_form": MarkingForm(initial={"marking": player.marking}),
    }
    return render(request, "online/lobby.html", context)


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    """«Regras e reclamações» (R103, PT-806/66, PT-803/38): how online bingo is played here,
    each open online room's card prices, prize plan and time between balls, and how to complain.
    Public (the rules are public information); a player sees their operator's rooms, anyone
    else every hall's open online rooms."""
    player = selectors.rules_player(user=request.user)
    halls = selectors.rules_hall_list(player=player)
    context = {
        "player": player,
        "rooms": selectors.online_rules(halls=halls),
        "halls": list(halls),
        "operator_contact": settings.OPERATOR_CONTACT,
        "complaint_max": COMPLAINT_MAX_LENGTH,
    }
    return render(request, "online/rules.html", context)


@require_GET
@player_required
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    player = player_from_request(request)
    game = _game_or_404(player, game_id)
    # PT-806/70 b: the player's inactivity is counted in the room of the last game page opened.
    playtime_services.play_session_room_follow(player=player, room=game.session.room)
    state = selectors.player_game_state(player=player, game=game)
    context = {
        "game": game,
        "state": state,
        "protection_notice": protection_selectors.player_notice(player=player),  # R101
        "buy_form": BuyForm(strips=selectors.game_sells_strips(game=game)),
        "strips": selectors.game_sells_strips(game=game),
        "ws_path": f"/ws/online/game/{game.pk}/",
        "state_url": reverse("api:online-game-state", args=[game.pk]),
        "currency": player.hall.currency,
        "places": places_for(player.hall.currency),
    }
    return render(request, "online/game.html", context)


@require_POST
@player_required
def buy(request: HttpRequest, game_id: int) -> HttpResponse:
    player = player_from_request(request)
    game = _game_or_404(player, game_id)
    form = BuyForm(request.POST, strips=selectors.game_sells_strips(game=game))
    if form.is_valid():
        try:
            purchase = services.online_buy(
                player=player, game=game, quantity=form.cards(), key=form.cleaned_data["key"]
            )
        except ValidationError as exc:
            refusal_flash(request, exc)
        else:
            messages.success(
                request,
                ngettext(
                    "%(n)d card bought for %(amount)s.", "%(n)d cards bought for %(amount)s.", purchase.cards
                )
                % {"n": purchase.cards, "amount": money_display(purchase.amount, player.hall.currency)},
            )
    else:  # each refusal says what is wrong: the key, or the number of cards
        form_errors_flash(request, form)
    return redirect("online:game", game.pk)


@require_POST
@player_required
def buy_ahead(request: HttpRequest, room_id: int) -> HttpResponse:
    """Cards in each of a room's next games in one action: the games selling now bought at once,
    each its own purchase, the rest as a standing order filled as their sales open for everyone
    (R93); the page says what was bought, what was ordered, and why anything was not."""
    player = player_from_request(request)
    try:
        room = selectors.online_room_get(halls=Hall.objects.filter(pk=player.hall_id), room_id=room_id)
    except OnlineRoom.DoesNotExist:
        raise Http404 from None
    form = BuyAheadForm(request.POST, strips=room.strips)
    if not form.is_valid():
        form_errors_flash(request, form)
        return redirect("online:lobby")
    try:
        ahead = services.online_buy_ahead(
            player=player,
            online_room=room,
            games=form.cleaned_data["games"],
            quantity=form.cards(),
            key=form.cleaned_data["key"],
            **form.seen(),
        )
    except ValidationError as exc:
        refusal_flash(request, exc)
        return redirect("online:lobby")
    for line in ahead.lines:
        if line.purchase is None:
            messages.error(request, _("Game %(n)d: %(why)s") % {"n": line.game.number, "why": line.refusal})
        else:
            messages.success(request, _bought_text(line.game, line.purchase, player))
    if ahead.order is not None:
        messages.success(request, order_text(ahead.order, strips=room.strips))
    elif ahead.order_refusal:
        messages.error(request, _("Nothing was ordered: %(why)s") % {"why": ahead.order_refusal})
    return redirect("online:lobby")


def _bought_text(game: Game, purchase: services.OnlinePurchase, player: Player) -> str:
    """«Comprado: 3 cartões na jogada 12 por 30 CVE.»"""
    return ngettext(
        "Bought: %(n)d card in game %(game)d for %(amount)s.",
        "Bought: %(n)d cards in game %(game)d for %(amount)s.",
        purchase.cards,
    ) % {
        "n": purchase.cards,
        "game": game.number,
        "amount": money_display(purchase.amount, player.hall.currency),
    }


def order_text(order: OnlineOrder, *, strips: bool) -> str:
    """«Encomendado: 2 cartões em cada uma das próximas 4 jogadas, comprados quando abrirem as
    vendas.» (of the games left, strips counted as strips)."""
    left = order.games_left
    games = ngettext("in the next game", "in each of the next %(n)d games", left) % {"n": left}
    if strips:
        count = order.quantity // selectors.STRIP_CARDS
        text = ngettext(
            "Ordered: %(n)d strip of six %(games)s, bought when the sales open.",
            "Ordered: %(n)d strips of six %(games)s, bought when the sales open.",
            count,
        )
    else:
        count = order.quantity
        text = ngettext(
            "Ordered: %(n)d card %(games)s, bought when the sales open.",
            "Ordered: %(n)d cards %(games)s, bought when the sales open.",
            count,
        )
    return text % {"n": count, "games": games}


@require_POST
@player_required
def order_cancel(request: HttpRequest, order_id: int) -> HttpResponse:
    """The player cancels an open standing order of theirs (another's is a 404): it buys nothing
    more, and nothing is refunded as nothing was held."""
    player = player_from_request(request)
    try:
        services.online_order_cancel(player=player, order_id=order_id)
    except OnlineOrder.DoesNotExist:
        raise Http404 from None
    except ValidationError as exc:
        refusal_flash(request, exc)
    else:
        messages.success(
            request, _("Order cancelled: it buys nothing more. Nothing was held, so nothing is refunded.")
        )
    return redirect("online:lobby")


@require_POST
@player_required
def marking(request: HttpRequest) -> HttpResponse:
    player = player_from_request(request)
    form = MarkingForm(request.POST)
    if form.is_valid():
        services.player_marking_set(player=player, marking=form.cleaned_data["marking"])
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("online:lobby")
    return redirect(back)
