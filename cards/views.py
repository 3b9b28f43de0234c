"""Card-stock screens: card sets, series, and the public card check. The series page holds the
print form; printing is cards/printing/views.py.

Thin adapters (STYLE rule 3): parse with a form, call one service or selector, render or
redirect (POST-redirect-GET). Managers run everything here; the inspector may read card sets
and run the regeneration check (R14); the card check at /verificar/ needs no login. Card sets
belong to no hall; series do, and a manager sees only those of the halls they manage
(halls/selectors.py): another hall's answers 404.
"""

from __future__ import annotations

import math
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bingo.common.forms import form_saved, refusal_flash
from bingo.common.roles import Role, role_required, user_roles
from bingo.engine import SERIES_SIZES
from cards import selectors, services
from cards.api import CardCheckThrottle
from cards.forms import CardSetForm, SeriesForm, next_order_numbers
from cards.models import CardSet, Series
from cards.payload import CardCheckForm
from cards.printing import services as print_services
from cards.printing.forms import PrintForm
from halls.selectors import hall_list_for

#: How many differing card numbers the comparison result lists (the count is always shown).
DIFFERING_SHOWN = 200

_COMPARE_SESSION_KEY = "cards:compare:{pk}"


def _card_set_or_404(pk: int) -> CardSet:
    try:
        return selectors.card_set_get(card_set_id=pk)
    except CardSet.DoesNotExist:
        raise Http404 from None


def _managed_series(request: HttpRequest) -> QuerySet[Series]:
    """The series of the halls the user manages, hall and card set joined."""
    return selectors.series_list().filter(hall__in=hall_list_for(request.user, Role.MANAGER))


def _readable_series(request: HttpRequest) -> QuerySet[Series]:
    """The series the user may read: an inspector reads the whole card stock, series of every
    hall included (as in the API); a manager, the series of the halls they manage."""
    if Role.INSPECTOR in user_roles(request.user):
        return selectors.series_list()
    return _managed_series(request)


def series_or_404(request: HttpRequest, pk: int) -> Series:
    """A series of a hall the user manages, else 404 (the printing screens use it too)."""
    try:
        return _managed_series(request).get(pk=pk)
    except Series.DoesNotExist:
        raise Http404 from None


# --- card sets ----------------------------------------------------------------------------------


@require_GET
@role_required(Role.MANAGER, Role.INSPECTOR)
def card_set_list(request: HttpRequest) -> HttpResponse:
    """Every card set with its status, fingerprint and who asked for it."""
    return render(
        request,
        "cards/card_set_list.html",
        {
            "nav": "card_sets",
            "card_sets": selectors.card_set_list(),
            "can_create": Role.MANAGER in user_roles(request.user),
        },
    )


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def card_set_create(request: HttpRequest) -> HttpResponse:
    """Request a card set (R14): generated at once when small, in the background when large."""
    form = CardSetForm(request.POST or None)
    card_set = form_saved(form, user=request.user)
    if card_set is None:
        return render(request, "cards/card_set_form.html", {"nav": "card_sets", "form": form})
    messages.success(request, _("Card set #%(id)s requested.") % {"id": card_set.pk})
    return redirect("cards:card_set_detail", pk=card_set.pk)


@require_GET
@role_required(Role.MANAGER, Role.INSPECTOR)
def card_set_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A card set's inputs, fingerprint, status, its series and the regeneration check."""
    card_set = _card_set_or_404(pk)
    comparison = request.session.pop(_COMPARE_SESSION_KEY.format(pk=pk), None)
    return render(
        request,
        "cards/card_set_detail.html",
        {
            "nav": "card_sets",
            "card_set": card_set,
            "series_list": _readable_series(request).filter(card_set=card_set),
            "comparison": comparison,
            "is_manager": Role.MANAGER in user_roles(request.user),
            "size_letter": next((k for k, v in SERIES_SIZES.items() if v == card_set.size), ""),
        },
    )


@require_GET
@role_required(Role.MANAGER, Role.INSPECTOR)
def card_set_status(request: HttpRequest, pk: int) -> JsonResponse:
    """The generation status of a card set, for the detail page's progress poller."""
    card_set = _card_set_or_404(pk)
    return JsonResponse(
        {
            "status": card_set.status,
            "status_display": card_set.get_status_display(),
            "progress": card_set.progress,
            "finished": card_set.status in (CardSet.Status.READY, CardSet.Status.FAILED),
        }
    )


@require_POST
@role_required(Role.MANAGER, Role.INSPECTOR)
def card_set_compare(request: HttpRequest, pk: int) -> HttpResponse:
    """R14: regenerate the set from its seed and compare it with the stored cards and fingerprint."""
    card_set = _card_set_or_404(pk)
    try:
        comparison = services.card_set_regenerate_compare(card_set=card_set)
    except ValidationError as exc:
        refusal_flash(request, exc)
    else:
        request.session[_COMPARE_SESSION_KEY.format(pk=pk)] = {
            "matches": comparison.matches,
            "recorded": comparison.recorded_fingerprint,
            "stored": comparison.stored_fingerprint,
            "regenerated": comparison.regenerated_fingerprint,
            "differing_count": len(comparison.differing_cards),
            "differing": list(comparison.differing_cards[:DIFFERING_SHOWN]),
        }
    return redirect(reverse("cards:card_set_detail", kwargs={"pk": pk}) + "#compare")


# --- series ---------------------------------------------------------------------------------------


@require_GET
@role_required(Role.MANAGER)
def series_list(request: HttpRequest) -> HttpResponse:
    """The series of the halls the user manages, by hall and order number, with colours, price
    and sales cursor."""
    return render(
        request, "cards/series_list.html", {"nav": "series", "series_list": _managed_series(request)}
    )


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def series_create(request: HttpRequest) -> HttpResponse:
    """Create a series (R16-R19) in a hall the user manages, from an existing card set or a new
    one generated with it."""
    halls = hall_list_for(request.user, Role.MANAGER)
    next_numbers = next_order_numbers(halls=halls)
    initial: dict[str, Any] = {}
    if request.method == "GET":
        hall_id = request.GET.get("hall", "")
        chosen = int(hall_id) if hall_id.isdigit() and int(hall_id) in next_numbers else None
        if chosen is None and next_numbers:
            chosen = halls.order_by("name").values_list("pk", flat=True).first()
        if chosen is not None:
            initial = {"hall": chosen, "order_number": next_numbers[chosen]}
    form = SeriesForm(request.POST or None, initial=initial, halls=halls)
    series = form_saved(form, user=request.user)
    if series is None:
        return render(
            request,
            "cards/series_form.html",
            {"nav": "series", "form": form, "next_numbers": {str(k): v for k, v in next_numbers.items()}},
        )
    messages.success(request, _("Series %(label)s created.") % {"label": series.label})
    return redirect("cards:series_detail", pk=series.pk)


@require_GET
@role_required(Role.MANAGER)
def series_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A series' facts, a preview of card 1, the print form and its print jobs."""
    series = series_or_404(request, pk)
    return render(
        request, "cards/series_detail.html", series_detail_context(series, PrintForm(series=series))
    )


def series_detail_context(series: Series, print_form: PrintForm) -> dict[str, Any]:
    """The series page's context; cards/printing/views.py renders the page again with a refused
    print form."""
    return {
        "nav": "series",
        "series": series,
        "card": selectors.card_get(card_set=series.card_set, number=1),
        "card_number": 1,
        "card_code": selectors.card_check_code(series=series, number=1),
        "variant": series.card_set.variant,
        "print_form": print_form,
        "print_jobs": series.print_jobs.order_by("-created_at", "-id")[:10],
        "direct_print_limit": print_services.DIRECT_PRINT_LIMIT,
    }


@require_http_methods(["GET", "POST"])
@role_required(Role.MANAGER)
def series_retire(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask for confirmation, then take the series out of use."""
    series = series_or_404(request, pk)
    if request.method == "POST":
        try:
            services.series_retire(series=series)
        except ValidationError as exc:
            refusal_flash(request, exc)
        else:
            messages.success(request, _("Series %(label)s retired.") % {"label": series.label})
        return redirect("cards:series_detail", pk=series.pk)
    return render(request, "cards/series_retire.html", {"nav": "series", "series": series})


# --- the public card check ------------------------------------------------------------------------


@require_GET
def card_check(request: HttpRequest) -> HttpResponse:
    """Anyone may check a card: with the right code it is shown; otherwise only one error.

    The same message for an unknown series, a wrong number and a wrong code, so that the page
    tells nothing about which cards exist. Checks are limited per address together with the
    API's (CardCheckThrottle): past the limit the page says so with a 429 and checks nothing.
    """
    submitted = any(name in request.GET for name in ("serie", "cartao", "codigo"))
    form = CardCheckForm(request.GET if submitted else None)
    context: dict[str, Any] = {"nav": "check", "form": form, "invalid": False}
    throttle = CardCheckThrottle()
    if submitted and not throttle.allow(request):
        context.update(throttled=True, form=CardCheckForm(initial=request.GET.dict()))
        response = render(request, "cards/card_check.html", context, status=429)
        response["Retry-After"] = str(math.ceil(throttle.wait() or 1))
        return response
    if submitted:
        found = None
        if form.is_valid():
            try:
                series: Series | None = selectors.series_get(series_id=form.cleaned_data["serie"])
            except Series.DoesNotExist:
                series = None
            if series is not None:
                grid = selectors.card_check(
                    series=series, number=form.cleaned_data["cartao"], code=form.cleaned_data["codigo"]
                )
                if grid is not None:
                    found = (series, grid)
        if found is None:
            # Shown unbound, with what was typed: no field is marked, so nothing tells a
            # malformed input from a wrong number or code.
            context.update(invalid=True, form=CardCheckForm(initial=request.GET.dict()))
        else:
            context.update(
                series=found[0],
                card=found[1],
                card_number=form.cleaned_data["cartao"],
                variant=found[0].card_set.variant,
            )
    return render(request, "cards/card_check.html", context)
