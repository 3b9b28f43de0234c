"""The managers' jackpot screens (thin adapters, STYLE rule 3).

The hall's progressive jackpot (R9-R13): its state, its configuration (base value R11,
authorization R12), seeds and adjustments, and its ledger. Contributions (R10) and wins (R11)
come from the games, never from this screen. Only a manager of the hall (or a superuser holding
the manager role) reaches it.

The calculator: how often a bingo within N balls pays the progressive jackpot (R9). A manager
picks N before announcing it at the start of the session (R9). The page shows, for N balls and
K cards in play, the exact chance for one card, an upper bound and an approximation for K
cards, and a simulation of K generated cards with its 95 % interval
(bingo/engine/jackpot_odds.py; docs/jackpot.md). Nothing is stored.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from bingo.common.forms import form_saved
from bingo.common.roles import Role, role_required
from bingo.engine import GenerationError, Variant, exact_odds, geometry, simulate_first_bingo
from bingo.engine.jackpot_odds import FirstBingoSimulation
from bingo.jackpot import selectors
from bingo.jackpot.forms import JackpotCalculatorForm, JackpotConfigForm, JackpotMovementForm
from halls.access import hall_managed_or_404
from halls.models import Hall

#: Ledger lines per page, newest first.
MOVEMENTS_PER_PAGE = 50


def _page(
    request: HttpRequest,
    hall: Hall,
    config_form: JackpotConfigForm | None = None,
    movement_form: JackpotMovementForm | None = None,
) -> HttpResponse:
    jackpot = selectors.jackpot_get(hall=hall)
    movements = selectors.jackpot_movement_list(hall=hall)
    context = {
        "nav": "halls",
        "hall": hall,
        "jackpot": jackpot,
        "state": selectors.jackpot_state(hall=hall),
        "config_form": config_form or JackpotConfigForm(jackpot=jackpot, prefix="config"),
        "movement_form": movement_form or JackpotMovementForm(prefix="movement"),
        "movements": Paginator(movements, MOVEMENTS_PER_PAGE).get_page(request.GET.get("page")),
    }
    return render(request, "halls/jackpot_detail.html", context)


@require_GET
@role_required(Role.MANAGER)
def jackpot_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The hall's jackpot: balance, base, authorization, the forms to change them, and its ledger."""
    return _page(request, hall_managed_or_404(request, pk))


@require_POST
@role_required(Role.MANAGER)
def jackpot_configure(request: HttpRequest, pk: int) -> HttpResponse:
    """Set the base value (R11) and the authorization's terms (R12)."""
    hall = hall_managed_or_404(request, pk)
    form = JackpotConfigForm(request.POST, prefix="config")
    if form_saved(form, hall=hall) is None:
        return _page(request, hall, config_form=form)
    messages.success(request, _("Jackpot settings saved."))
    return redirect("halls:jackpot_detail", pk=hall.pk)


@require_POST
@role_required(Role.MANAGER)
def jackpot_movement_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Add a seed (R11) or an adjustment to the jackpot's ledger."""
    hall = hall_managed_or_404(request, pk)
    form = JackpotMovementForm(request.POST, prefix="movement")
    movement = form_saved(form, hall=hall, user=request.user)
    if movement is None:
        return _page(request, hall, movement_form=form)
    done = _("%(kind)s of %(amount)s %(currency)s recorded; the jackpot is now %(balance)s %(currency)s.")
    messages.success(
        request,
        done
        % {
            "kind": movement.get_kind_display(),
            "amount": movement.amount,
            "balance": movement.balance_after,
            "currency": hall.currency,
        },
    )
    return redirect("halls:jackpot_detail", pk=hall.pk)


# --- the calculator (R9) ------------------------------------------------------------------------

#: Rows of the table on each side of the chosen N.
TABLE_SPAN = 5


def _new_rng() -> np.random.Generator:
    """A generator seeded from the operating system's secure source (tests replace it)."""
    return np.random.default_rng(secrets.randbits(128))


def _percent(p: float) -> str:
    """A chance as a percentage with three significant digits; the tiniest shown as below 0.0001 %."""
    value = p * 100
    if value == 0:
        return "0 %"
    if value < 1e-4:
        return "< " + number_format(0.0001, decimal_pos=4) + " %"
    decimals = 0 if value >= 100 else max(0, 2 - math.floor(math.log10(value)))
    return number_format(round(value, decimals), decimal_pos=decimals, force_grouping=True) + " %"


def _one_in(p: Fraction | float) -> str:
    """A chance as "1 in X games" (X exact for a Fraction, rounded otherwise); a dash for never."""
    if p == 0:
        return "—"
    games = 1 / p
    if games >= 100:
        shown = number_format(round(games), force_grouping=True)
    else:
        shown = number_format(round(float(games), 1), decimal_pos=1, force_grouping=True)
    return _("1 in %(games)s") % {"games": shown}


@dataclass(frozen=True)
class Row:
    """One N of the result table, every figure already written for display."""

    balls: int
    chosen: bool
    single: str
    single_one_in: str
    union: str
    independent: str
    simulated: str
    simulated_one_in: str
    low: str
    high: str


def _row(variant: Variant, balls: int, cards: int, sim: FirstBingoSimulation, *, chosen: bool) -> Row:
    odds = exact_odds(variant, balls, cards)
    simulated = sim.probability(balls)
    low, high = sim.interval(balls)
    return Row(
        balls=balls,
        chosen=chosen,
        single=_percent(odds.single_float),
        single_one_in=_one_in(odds.single),
        union=_percent(odds.union_upper_bound_float),
        independent=_percent(odds.independence_approximation),
        simulated=_percent(simulated),
        simulated_one_in=_one_in(simulated),
        low=_percent(low),
        high=_percent(high),
    )


@require_GET
@role_required(Role.MANAGER)
def jackpot_calculator(request: HttpRequest) -> HttpResponse:
    """The calculator form and, once filled in, the chances of the jackpot within N balls."""
    form = JackpotCalculatorForm(request.GET or None)
    context: dict[str, Any] = {"nav": "jackpot", "form": form}
    if form.is_bound and form.is_valid():
        variant: Variant = form.cleaned_data["variant"]
        balls: int = form.cleaned_data["balls"]
        cards: int = form.cleaned_data["cards"]
        target_games: int = form.cleaned_data["target"]
        try:
            sim = simulate_first_bingo(variant, draws=form.cleaned_data["draws"], rng=_new_rng(), cards=cards)
        except GenerationError as error:
            form.add_error("cards", str(error))
        else:
            total = geometry(variant).balls
            suggested = sim.suggest_balls(1 / target_games)
            again = request.GET.copy()
            again["balls"] = str(suggested)
            context.update(
                variant=variant,
                balls=balls,
                cards=number_format(cards, force_grouping=True),
                draws=number_format(sim.draws, force_grouping=True),
                card_seed=sim.card_seed,
                card_algorithm=sim.card_algorithm,
                result=_row(variant, balls, cards, sim, chosen=True),
                rows=[
                    _row(variant, n, cards, sim, chosen=n == balls)
                    for n in range(max(0, balls - TABLE_SPAN), min(total, balls + TABLE_SPAN) + 1)
                ],
                median=sim.median,
                quartiles=(sim.quantile(0.25), sim.quantile(0.75)),
                mean=number_format(round(sim.mean, 1), decimal_pos=1),
                target_games=number_format(target_games, force_grouping=True),
                suggestion=_row(variant, suggested, cards, sim, chosen=suggested == balls),
                suggestion_url="?" + again.urlencode(),
            )
    return render(request, "bingo/jackpot_calculator.html", context)
