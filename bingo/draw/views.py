"""Screens of the draw: the caller's console, the hall's display, prize payment at the cash desk.

Thin adapters (STYLE rule 3): a form parses, one service of ``bingo.draw.services`` acts, the
selectors of ``bingo.draw.selectors`` read, and a refused action shows the service's message.

* The caller's console (R42-R47, R49, R55) lists the games of the halls where the user is a
  caller; a game of another hall answers 404 and a user without the caller role 403. Every
  action is a POST (CSRF-protected) that redirects back to the console, except the claim check,
  whose answer (the card, its marks, every card holding the prize, R46) is the page itself. The
  part of the console that changes with the draw is also served alone (``console_live``) so the
  page can fetch it again when its websocket says the game changed.
* The display (R13, R28) is public: it hangs on a TV and opens with a signed token, not a login.
* Prize payment (R45, R50) belongs to the cashiers of the desk's hall.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from bingo.common.forms import ReasonForm, form_errors_flash, refusal_flash
from bingo.common.money import money_display
from bingo.common.patterns import pattern_shown
from bingo.common.roles import Role, role_required
from bingo.common.views import Confirmation, confirmation_page, confirmed
from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.draw.forms import AwardForm, BallForm, ClaimForm, ManualForm, StartDrawForm
from bingo.draw.selectors import ClaimResult
from bingo.engine import Variant
from bingo.faults import services as fault_services
from bingo.games import selectors
from bingo.models import Claim, Game, GameState, PrizeKind
from bingo.sales import selectors as sales_selectors
from cards.models import Series
from halls.models import BallSet, Room

#: The console's query parameter naming the claim whose answer it shows.
CLAIM_PARAM = "reclamacao"

#: The games a caller's list shows: ready to draw, drawing (R42), or suspended.
CONSOLE_STATES = (GameState.SALES_CLOSED.value, GameState.DRAWING.value, GameState.SUSPENDED.value)

_T = TypeVar("_T")

# --- helpers -----------------------------------------------------------------------------------


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


def _caller_games(request: HttpRequest) -> QuerySet[Game]:
    return selectors.game_list_for(request.user, Role.CALLER)


def _get_or_404(games: QuerySet[Game], pk: int) -> Game:
    try:
        return games.get(pk=pk)
    except ObjectDoesNotExist:
        raise Http404 from None


def _game_or_404(request: HttpRequest, pk: int) -> Game:
    """A game of a hall where the user is a caller; 404 for any other."""
    return _get_or_404(_caller_games(request), pk)


def _to_console(game: Game) -> HttpResponse:
    return redirect("draw:console", pk=game.pk)


def _console_act(request: HttpRequest, form: forms.Form, act: Callable[[dict[str, Any]], _T]) -> _T | None:
    """A caller's action posted from the console: ``act`` on the form's data, and what it
    returns; None when the form or the service refuses, the refusals then shown as messages (the
    console is where the caller goes back to either way)."""
    if not form.is_valid():
        form_errors_flash(request, form)
        return None
    try:
        return act(form.cleaned_data)
    except ValidationError as exc:
        refusal_flash(request, exc)
        return None


def _display_url(room: Room) -> str:
    return reverse("draw:display", args=[draw_selectors.display_token(room=room)])


def _ball_sets(game: Game) -> QuerySet[BallSet]:
    # R22-R25: the hall's active sets of the game's size; the service checks the rest (R23).
    return BallSet.objects.filter(
        hall_id=game.session.room.hall_id, state=BallSet.State.ACTIVE, size=int(game.variant)
    ).order_by("serial_number")


def _live_context(request: HttpRequest, game: Game) -> dict[str, Any]:
    """What the live part of the console shows: the draw, its controls, the prizes."""
    console = draw_selectors.console_state(game=game)
    game = console.game
    prizes = [
        {
            "status": status,
            "each": money_display(status.awarded.amount_each, game.session.room.hall.currency)
            if status.awarded
            else "",
            "total": money_display(status.awarded.total, game.session.room.hall.currency)
            if status.awarded
            else "",
        }
        for status in console.prizes
    ]
    drawing = game.state == GameState.DRAWING.value
    return {
        "game": game,
        "console": console,
        "balls": list(zip(console.balls, console.labels, strict=True)),
        "last_label": console.labels[-1] if console.labels else "",
        "prizes": prizes,
        "total_display": money_display(console.total, game.session.room.hall.currency),
        "drawing": drawing,
        "can_start": game.state == GameState.SALES_CLOSED.value,
        "start_form": StartDrawForm(ball_sets=_ball_sets(game)),
        "ball_form": BallForm(initial={"position": console.next_position}),
        "can_switch": drawing and console.electronic and bool(console.balls),
        "manual_form": ManualForm(),
        "state_actions": draw_selectors.game_state_actions(game=game, balls_drawn=len(console.balls)),
        "reason_form": ReasonForm(),
        "display_url": _display_url(game.session.room),
        # R43: while a claim is being checked the draw stops, so Enter must not draw a ball.
        "focus_draw": True,
        # R53: in the session's last 10 minutes the caller announces the last game; the page
        # fetches this part again when that time comes (static/js/caller.js).
        "last_game": draw_selectors.session_last_game_due(session=game.session),
        "last_game_from": draw_selectors.session_last_game_from(session=game.session)
        if game.session.ended_at is None
        else None,
    }


def _console_page(
    request: HttpRequest,
    game: Game,
    *,
    claim_form: ClaimForm | None = None,
    result: ClaimResult | None = None,
    status: int = 200,
) -> HttpResponse:
    # A claim just checked, or keyed in wrong: the draw waits for the caller (R43).
    checking = result is not None or (claim_form is not None and claim_form.is_bound)
    context = _live_context(request, game)
    game = context["game"]
    if game.state == GameState.DRAWING.value and (claim_form is None or result is not None):
        # The prize most likely claimed next: the first not yet awarded (R44: the line first).
        pending = [p.kind for p in context["console"].prizes if p.awarded is None]
        claim_form = ClaimForm(game=game, initial={"kind": pending[0]} if pending else None)
    context.update(
        {
            "nav": "console",
            "claim_form": claim_form,
            "claim": _claim_context(game, result) if result is not None else None,
            "focus_draw": not checking,
            "live_url": reverse("draw:console_live", args=[game.pk]),
            "ws_path": f"/ws/locutor/{game.pk}/",
            # R73 b): the pattern the bingo is, shown to the caller checking claims.
            "pattern": pattern_shown(game.win_rules),
        }
    )
    return render(request, "bingo/caller_console.html", context, status=status)


def _claim_context(game: Game, result: ClaimResult) -> dict[str, Any]:
    """The answer to a claim as the console shows it: outcome, card with marks, holders (R46)."""
    series = {s.pk: s.label for s in Series.objects.filter(games__game=game)}
    check = result.check
    rows: list[list[tuple[int | None, bool]]] = []
    if check is not None:
        rows = [
            list(zip(values, marks, strict=True))
            for values, marks in zip(check.grid, check.marks, strict=True)
        ]
    claim = result.claim
    return {
        "claim": claim,
        "valid": result.valid,
        "outcome": claim.get_outcome_display(),
        "kind_name": PrizeKind(claim.kind).label,
        "card_label": f"{claim.series.label} n.º {claim.card_number}",
        "rows": rows,
        "letters": "BINGO" if game.variant == Variant.B75.value else "",
        "holders": [f"{series.get(w.card.series_id, '?')} n.º {w.card.number}" for w in result.holders],
        "first": [(kind, PrizeKind(kind).label) for kind in result.first],
    }


# --- the caller's console ------------------------------------------------------------------------


@require_GET
@role_required(Role.CALLER)
def caller_games(request: HttpRequest) -> HttpResponse:
    """The games of the caller's halls whose sales are closed or that are drawing (R42)."""
    games = (
        _caller_games(request)
        .filter(state__in=CONSOLE_STATES)
        .order_by("session__room__hall__name", "session__room__name", "session__starts_at", "number")
    )
    return render(request, "bingo/caller_games.html", {"nav": "games", "games": games})


@require_GET
@role_required(Role.CALLER)
def console(request: HttpRequest, pk: int) -> HttpResponse:
    """The caller's console of one game: the draw, claims and prizes, live over a websocket;
    with ``?reclamacao=<id>``, the answer to that claim of the game."""
    game = _game_or_404(request, pk)
    result = None
    if (claim_id := request.GET.get(CLAIM_PARAM, "")).isdigit():
        claim = (
            Claim.objects.filter(game=game, pk=int(claim_id))
            .select_related("game", "series__card_set")
            .first()
        )
        if claim is not None:
            result = draw_selectors.claim_answer(claim=claim)
    return _console_page(request, game, result=result)


@never_cache
@require_GET
@role_required(Role.CALLER)
def console_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The live part of the console alone, fetched again after each change of the game."""
    game = _game_or_404(request, pk)
    return render(request, "bingo/caller_console_live.html", _live_context(request, game))


@require_POST
@role_required(Role.CALLER)
def draw_start(request: HttpRequest, pk: int) -> HttpResponse:
    """Start the draw, electronic or physical (R42; a physical one with the hall's ball set)."""
    game = _game_or_404(request, pk)
    started = _console_act(
        request,
        StartDrawForm(request.POST, ball_sets=_ball_sets(game)),
        lambda data: draw_services.game_start_draw(
            game=game, user=_user(request), mode=data["mode"], ball_set=data["ball_set"]
        ),
    )
    if started is not None:
        messages.success(request, gettext("The draw has started."))
    return _to_console(game)


@require_POST
@role_required(Role.CALLER)
def draw_ball(request: HttpRequest, pk: int) -> HttpResponse:
    """Draw the next ball (electronic), or record the one keyed in from the blower."""
    game = _game_or_404(request, pk)
    _console_act(
        request,
        BallForm(request.POST),
        lambda data: draw_services.game_draw_ball(
            game=game, user=_user(request), position=data["position"], number=data["number"]
        ),
    )
    return _to_console(game)


@require_POST
@role_required(Role.CALLER)
def draw_manual(request: HttpRequest, pk: int) -> HttpResponse:
    """R55: go on by manual extraction after the electronic mechanism failed."""
    game = _game_or_404(request, pk)
    switched = _console_act(
        request,
        ManualForm(request.POST),
        lambda data: draw_services.game_switch_to_manual(
            game=game, user=_user(request), reason=data["reason"]
        ),
    )
    if switched is not None:
        messages.success(request, gettext("From the next ball on, key in the balls from the blower (R55)."))
    return _to_console(game)


@require_POST
@role_required(Role.CALLER)
def claim(request: HttpRequest, pk: int) -> HttpResponse:
    """Check a claimed card (R43, R49); the answer shows it marked and every card holding the
    prize now (R46). The claim is recorded whatever the outcome."""
    game = _game_or_404(request, pk)
    if game.state != GameState.DRAWING.value:
        messages.error(request, gettext("Game %(n)d is not drawing.") % {"n": game.number})
        return _to_console(game)
    form = ClaimForm(request.POST, game=game)
    if not form.is_valid():
        return _console_page(request, game, claim_form=form, status=400)
    data = form.cleaned_data
    try:
        result = draw_services.claim_check(
            game=game,
            user=_user(request),
            series=data["series"],
            card_number=data["card_number"],
            kind=data["kind"],
        )
    except ValidationError as exc:
        refusal_flash(request, exc)
        return _console_page(request, game, claim_form=form, status=400)
    # Post/redirect/get: reloading the answer shows it again and records no second claim.
    return redirect(f"{reverse('draw:console', args=[game.pk])}?{CLAIM_PARAM}={result.claim.pk}#claim-result")


def _award_confirmation(game: Game, kind: str) -> Confirmation:
    """What awarding prize ``kind`` now does, for its confirmation step (R6, R44, R46)."""
    preview = draw_selectors.prize_award_preview(game=game, kind=kind)
    currency = game.session.room.hall.currency
    facts = [
        ngettext(
            "%(cards)d sold card holds it now: %(holders)s.",
            "%(cards)d sold cards hold it now: %(holders)s.",
            len(preview.holders),
        )
        % {"cards": len(preview.holders), "holders": ", ".join(preview.holders)}
        if preview.holders
        else gettext("No card holds it now: it will be refused.")
    ]
    if preview.total is not None and preview.each is not None:
        facts.append(
            gettext("Its value, %(total)s, is shared in equal parts (R6): %(each)s each.")
            % {"total": money_display(preview.total, currency), "each": money_display(preview.each, currency)}
        )
    facts.append(gettext("Later claims for it are refused (R47)."))
    if preview.ends_game:
        facts.append(gettext("The bingo ends the game (R44)."))
    return Confirmation(
        title=gettext("Confirm the prize %(prize)s of game %(number)d?")
        % {"prize": preview.name, "number": game.number},
        facts=facts,
        button=gettext("Yes, award the prize"),
        back_url=reverse("draw:console", args=[game.pk]),
    )


@require_POST
@role_required(Role.CALLER)
def prize_award(request: HttpRequest, pk: int) -> HttpResponse:
    """Confirm a prize: every card holding it now shares it (R6, R46); a bingo ends the game (R44).
    A POST without the confirmation shows who would share what, and awards nothing."""
    game = _game_or_404(request, pk)
    form = AwardForm(request.POST)
    if form.is_valid() and not confirmed(request):
        return confirmation_page(request, _award_confirmation(game, form.cleaned_data["kind"]))
    prize = _console_act(
        request,
        form,
        lambda data: draw_services.prize_award(game=game, user=_user(request), kind=data["kind"]),
    )
    if prize is not None:
        messages.success(
            request,
            ngettext(
                "Prize confirmed: %(prize)s, %(cards)d card, %(each)s.",
                "Prize confirmed: %(prize)s, %(cards)d cards, %(each)s each.",
                prize.winners,
            )
            % {
                "prize": PrizeKind(prize.kind).label,
                "cards": prize.winners,
                "each": money_display(prize.amount_each, game.session.room.hall.currency),
            },
        )
        if prize.kind == PrizeKind.BINGO and (
            jackpot := prize.game.prizes.filter(kind=PrizeKind.JACKPOT).first()
        ):
            # R9: the caller announces the jackpot with the bingo.
            messages.success(
                request,
                ngettext(
                    "Jackpot won within %(balls)d balls: %(total)s, %(cards)d card, %(each)s.",
                    "Jackpot won within %(balls)d balls: %(total)s, %(cards)d cards, %(each)s each.",
                    jackpot.winners,
                )
                % {
                    "balls": game.session.jackpot_balls or 0,
                    "total": money_display(jackpot.total, game.session.room.hall.currency),
                    "cards": jackpot.winners,
                    "each": money_display(jackpot.amount_each, game.session.room.hall.currency),
                },
            )
    return _to_console(game)


# --- the hall's display ---------------------------------------------------------------------------


def _board_rows(size: int, drawn: list[int]) -> list[tuple[str, list[tuple[int, bool]]]]:
    """The display's board of every number: rows of ten, or one row per letter for 75 balls (R77)."""
    out = set(drawn)
    if size == 75:
        return [
            (letter, [(n, n in out) for n in range(i * 15 + 1, i * 15 + 16)])
            for i, letter in enumerate("BINGO")
        ]
    return [
        ("", [(n, n in out) for n in range(start, min(start + 10, size + 1))])
        for start in range(1, size + 1, 10)
    ]


@never_cache
@require_GET
def display(request: HttpRequest, token: str) -> HttpResponse:
    """A room's display (R13, R28): every ball drawn, the last one large, the count, the prizes.

    Public, like the price board, but opened by a signed token so rooms cannot be guessed.
    """
    room_id = draw_selectors.display_room_id(token)
    if room_id is None:
        raise Http404
    try:
        state = draw_selectors.display_state(room_id=room_id)
    except Room.DoesNotExist:
        raise Http404 from None
    game = state["game"]
    rows = _board_rows(game["size"], game["balls"]) if game else _board_rows(90, [])
    return render(
        request,
        "bingo/display.html",
        {"state": state, "game": game, "rows": rows, "ws_path": f"/ws/ecra/{token}/"},
    )


#: Who suspends, resumes and annuls a game of their hall (R55, R57): its callers at the console
#: and its managers on the game's page, the same as in the API (docs/api.md).
STATE_CHANGERS = (Role.CALLER, Role.MANAGER)


def _annul_confirmation(game: Game, reason: str, back_url: str) -> Confirmation:
    """What annulling ``game`` does, for its confirmation step (R55, R57, R10, R61 i))."""
    board = sales_selectors.game_board_figures(game=game)
    facts = [
        gettext("Reason recorded in the acta (R61 i)): %(reason)s") % {"reason": reason},
        ngettext(
            "Every card sold is refunded in full: %(cards)d card, %(total)s.",
            "Every card sold is refunded in full: %(cards)d cards, %(total)s.",
            board.cards_sold,
        )
        % {"cards": board.cards_sold, "total": board.total_display},
        gettext("No prize is awarded in it any more."),
    ]
    if game.jackpot_active:
        facts.append(gettext("The game's contribution to the jackpot goes back (R10)."))
    return Confirmation(
        title=gettext("Annul game %(number)d?") % {"number": game.number},
        facts=facts,
        button=gettext("Yes, annul and refund"),
        back_url=back_url,
    )


def _state_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    game = _get_or_404(selectors.game_list_for(request.user, *STATE_CHANGERS), pk)
    user = _user(request)
    # Back where the form was: the console for a caller of the hall, else the game's page.
    is_caller = selectors.game_list_for(user, Role.CALLER).filter(pk=game.pk).exists()
    back_url = (
        reverse("draw:console", args=[game.pk])
        if is_caller and request.POST.get("back") != "game"
        else reverse("games:game_detail", args=[game.pk])
    )
    back = redirect(back_url)
    try:
        if action == "resume":
            draw_services.game_resume(game=game, user=user)
            messages.success(request, gettext("The game is back: start the draw again."))
            return back
        form = ReasonForm(request.POST)
        if not form.is_valid():
            form_errors_flash(request, form)
            return back
        reason = form.cleaned_data["reason"]
        if action == "annul" and not confirmed(request):
            return confirmation_page(request, _annul_confirmation(game, reason, back_url))
        if action == "suspend":
            draw_services.game_suspend(game=game, user=user, reason=reason)
            messages.success(request, gettext("The game is suspended (R55)."))
        else:
            draw_services.game_annul(game=game, user=user, reason=reason)
            messages.success(request, gettext("The game is annulled; every card sold is refunded in full."))
    except ValidationError as exc:
        refusal_flash(request, exc)
    return back


@require_POST
@role_required(*STATE_CHANGERS)
def game_suspend(request: HttpRequest, pk: int) -> HttpResponse:
    """R55: a failure before the first ball suspends the game."""
    return _state_action(request, pk, "suspend")


@require_POST
@role_required(*STATE_CHANGERS)
def game_resume(request: HttpRequest, pk: int) -> HttpResponse:
    """R55: the failure was solved within 15 minutes."""
    return _state_action(request, pk, "resume")


@require_POST
@role_required(*STATE_CHANGERS)
def game_annul(request: HttpRequest, pk: int) -> HttpResponse:
    """R55 (15 minutes suspended) or R57 (an announcement error): annul with a full refund, once
    confirmed; a POST without the confirmation shows what the annulment does and changes nothing."""
    return _state_action(request, pk, "annul")


@require_POST
@role_required(*STATE_CHANGERS)
def game_fault(request: HttpRequest, pk: int) -> HttpResponse:
    """R98 (PT-803/33, PT-806/72): a fault of the system keeps an online game from being
    decided; a manager or caller of its hall declares it, with the reason: the game is null and
    every card refunded to the players' wallets, once. Back to the game's page."""
    game = _get_or_404(selectors.game_list_for(request.user, *STATE_CHANGERS), pk)
    back = redirect("games:game_detail", pk=game.pk)
    form = ReasonForm(request.POST)
    if not form.is_valid():
        form_errors_flash(request, form)
        return back
    try:
        was = game.state
        game = fault_services.online_game_fault(
            game=game, user=_user(request), reason=form.cleaned_data["reason"]
        )
    except ValidationError as exc:
        refusal_flash(request, exc)
        return back
    if was == GameState.ANNULLED:
        messages.info(request, gettext("The game was already null: nothing more was refunded."))
    else:
        messages.success(
            request,
            gettext(
                "System fault declared (R98): the game is null and every card was refunded to the wallets."
            ),
        )
    return back
