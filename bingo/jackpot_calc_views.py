"""The jackpot calculator: how often a bingo within N balls pays the progressive jackpot (R9).

A manager picks N before announcing it at the start of the session (R9). The page shows, for N
balls and K cards in play, the exact chance for one card, an upper bound and an approximation
for K cards, and a simulation of K generated cards with its 95 % interval
(bingo/engine/jackpot_odds.py; docs/jackpot.md). A thin adapter (STYLE rule 3): the form
parses, the engine computes, the template shows. Nothing is stored.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from bingo.common.roles import Role, role_required
from bingo.engine import GenerationError, Variant, exact_odds, geometry, simulate_first_bingo
from bingo.engine.jackpot_odds import FirstBingoSimulation
from cards.models import VARIANT_CHOICES

#: Most cards the page simulates. Generating 80- and 75-ball sets, whose lines are made unique
#: (R14 adapted), takes about half a second at 6,000 cards and several seconds past 10,000.
MAX_CARDS = {Variant.B90: 100_000, Variant.B80: 6_000, Variant.B75: 6_000, Variant.B30: 100_000}
#: Most simulated games, and most (cards x games): about a second of work on one core.
MAX_DRAWS = 20_000
MAX_WORK = 200_000_000
#: Rows of the table on each side of the chosen N.
TABLE_SPAN = 5


class JackpotCalculatorForm(forms.Form):
    """What the manager asks: the variant, N, K, how many games to simulate, and a target."""

    variant = forms.TypedChoiceField(
        label=gettext_lazy("Variant"), choices=VARIANT_CHOICES, coerce=Variant, initial=Variant.B90.value
    )
    balls = forms.IntegerField(
        label=gettext_lazy("Balls drawn (N)"),
        min_value=0,
        max_value=90,
        initial=50,
        help_text=gettext_lazy("The jackpot goes to a bingo within this many balls (R9)."),
    )
    cards = forms.IntegerField(
        label=gettext_lazy("Cards in play (K)"), min_value=1, max_value=max(MAX_CARDS.values()), initial=1680
    )
    draws = forms.IntegerField(
        label=gettext_lazy("Games to simulate"), min_value=100, max_value=MAX_DRAWS, initial=10_000
    )
    target = forms.IntegerField(
        label=gettext_lazy("Target: jackpot won once in how many games"),
        min_value=1,
        max_value=1_000_000,
        initial=20,
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        variant, balls, cards, draws = (data.get(k) for k in ("variant", "balls", "cards", "draws"))
        if isinstance(variant, Variant):
            total = geometry(variant).balls
            if isinstance(balls, int) and balls > total:
                self.add_error(
                    "balls",
                    _("A %(variant)s-ball game has only %(total)s balls.")
                    % {"variant": variant, "total": total},
                )
            if isinstance(cards, int) and cards > MAX_CARDS[variant]:
                self.add_error(
                    "cards",
                    _("This page simulates at most %(max)s cards of %(variant)s balls.")
                    % {"max": number_format(MAX_CARDS[variant], force_grouping=True), "variant": variant},
                )
        if isinstance(cards, int) and isinstance(draws, int) and cards * draws > MAX_WORK:
            self.add_error(
                "draws",
                _("With %(cards)s cards, simulate at most %(draws)s games.")
                % {
                    "cards": number_format(cards, force_grouping=True),
                    "draws": number_format(MAX_WORK // cards, force_grouping=True),
                },
            )
        return data


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
