"""The manager's cards page (R51-R52): what becomes of the cards of the hall's games.

* The games that ended and whose used cards are not yet recorded destroyed (R51), each with
  the form «Registar a destruição dos cartões» naming the cards kept as evidence, if any.
* The games whose winning cards are kept (R52): until when, on the hall's clock; which are due
  now; which a pending complaint holds, and which complaint; and the button that records the
  due ones at once (the same service the daily task runs).

Thin adapters (STYLE rule 3). Managers of the hall only: another role gets 403, another hall's
page 404, as everywhere (halls/selectors.py).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from actas import selectors, services
from actas.cards.forms import CardsDestroyedForm
from bingo.common.forms import refusal_flash
from bingo.common.roles import Role, role_required
from bingo.games import selectors as game_selectors
from halls.models import Hall
from halls.selectors import hall_list_for


def _hall_or_404(request: HttpRequest, hall_id: int) -> Hall:
    try:
        return hall_list_for(request.user, Role.MANAGER).get(pk=hall_id)
    except Hall.DoesNotExist:
        raise Http404 from None


def _page(
    request: HttpRequest, hall: Hall, failed: tuple[int, CardsDestroyedForm] | None = None
) -> HttpResponse:
    ended = selectors.cards_destruction_unrecorded(hall_ids=[hall.pk])
    kept = selectors.winning_cards_kept_list(now=timezone.now(), hall_ids=[hall.pk])
    return render(
        request,
        "actas/cards/hall.html",
        {
            "nav": "halls",
            "hall": hall,
            "ended": [
                (game, failed[1] if failed and failed[0] == game.pk else CardsDestroyedForm())
                for game in ended
            ],
            "kept": kept,
            "due": [k for k in kept if k.due and k.held_by is None],
        },
    )


@require_GET
@role_required(Role.MANAGER)
def cards_home(request: HttpRequest) -> HttpResponse:
    """The halls the manager manages, or straight to the one."""
    halls = list(hall_list_for(request.user, Role.MANAGER).order_by("name"))
    if len(halls) == 1:
        return redirect("acta_cards:hall", hall_id=halls[0].pk)
    return render(request, "actas/cards/home.html", {"nav": "halls", "halls": halls})


@require_GET
@role_required(Role.MANAGER)
def cards_page(request: HttpRequest, hall_id: int) -> HttpResponse:
    """A hall's cards: destruction to record after each game (R51), winning cards kept (R52)."""
    return _page(request, _hall_or_404(request, hall_id))


@require_POST
@role_required(Role.MANAGER)
def winning_cards_destroy(request: HttpRequest, hall_id: int) -> HttpResponse:
    """R52: record now the hall's winning cards whose 8 days are over (those no complaint holds)."""
    hall = _hall_or_404(request, hall_id)
    user: User = request.user  # type: ignore[assignment]  # role_required: logged in
    try:
        run = services.winning_cards_destroy_due(user=user, hall_ids=[hall.pk])
    except ValidationError as exc:
        refusal_flash(request, exc)
    else:
        count = len(run.recorded)
        messages.success(
            request,
            ngettext(
                "Winning cards of %(count)d game recorded destroyed.",
                "Winning cards of %(count)d games recorded destroyed.",
                count,
            )
            % {"count": count}
            if count
            else _("No winning cards were due."),
        )
        for kept in run.held:
            assert kept.held_by is not None  # held: by this complaint
            messages.error(
                request,
                _("Game %(n)d: its winning cards stay kept, complaint %(complaint)d is pending (R52).")
                % {"n": kept.game.number, "complaint": kept.held_by.position},
            )
    return redirect("acta_cards:hall", hall_id=hall.pk)


@require_POST
@role_required(Role.MANAGER)
def game_cards_destroy(request: HttpRequest, game_id: int) -> HttpResponse:
    """R51: record a game's cards destroyed, but for its winning cards and the evidence named."""
    try:
        game = game_selectors.game_list_for(request.user, Role.MANAGER).get(pk=game_id)
    except ObjectDoesNotExist:
        raise Http404 from None
    hall = _hall_or_404(request, game.session.room.hall_id)
    form = CardsDestroyedForm(request.POST)
    if form.is_valid():
        user: User = request.user  # type: ignore[assignment]
        try:
            services.game_cards_destroy_record(
                game=game, user=user, evidence=form.cleaned_data["provas"], reason=form.cleaned_data["motivo"]
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(
                request,
                _("The destruction of the cards of game %(n)d is recorded in the acta.") % {"n": game.number},
            )
            return redirect("acta_cards:hall", hall_id=hall.pk)
    return _page(request, hall, failed=(game.pk, form))
