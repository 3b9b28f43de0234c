"""Selling cards at the cash desk (R33-R41), the desk's shift report, the price board (R29), and
paying prizes at the desk (R45, R50).

Thin adapters (STYLE rule 3): the form parses, ``sales_services.sale_make`` sells, the selectors read.
A cashier sees and sells only the games of the halls where they are a cashier; anything else is
refused with 403. The price board needs no login: it hangs on a TV in the hall.
"""

from __future__ import annotations

import contextlib
import uuid
from datetime import date, datetime, time, tzinfo
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods

from bingo.common import bounds
from bingo.common.clock import hall_zone
from bingo.common.forms import cash_field
from bingo.common.money import money_display
from bingo.common.roles import Role, role_required
from bingo.draw import services as draw_services
from bingo.drawers import selectors as drawer_selectors
from bingo.drawers.access import DESK_SESSION_KEY
from bingo.games import services
from bingo.models import Game, GameState, PrizeKind, PrizePayment, Sale
from bingo.sales import selectors as sales_selectors
from bingo.sales import services as sales_services
from bingo.sales.forms import PrizePayForm, SlipFindForm
from halls.models import CashDesk
from halls.selectors import hall_list_for, staff_member_list

#: How many of a desk's latest prize payments its screen lists.
PAYMENTS_SHOWN = 50

#: The papers a receipt and a payout slip are laid out for (``?papel=``): the desk's 80 mm
#: thermal roll, or an A4 sheet; the first is the default.
PAPERS = ("80mm", "a4")


class SaleForm(forms.Form):
    """One sale: how many cards, the cash handed over, and who buys when the hall caps it (R35).

    ``request_key`` is made when the form is drawn, so a double submit sells once.
    """

    game = forms.IntegerField(widget=forms.HiddenInput)
    cash_desk = forms.IntegerField(widget=forms.HiddenInput)
    request_key = forms.CharField(max_length=64, widget=forms.HiddenInput)
    quantity = forms.IntegerField(
        label=_("Cards"),
        min_value=1,
        max_value=bounds.SALE_MAX_CARDS,
        error_messages={
            "min_value": _("Sell at least one card."),
            "invalid": _("Enter a whole number of cards."),
        },
        widget=forms.NumberInput(attrs={"autofocus": True, "inputmode": "numeric", "min": 1}),
    )
    cash_received = cash_field(_("Cash received"), invalid=_("The cash received must be an amount of money."))
    player = forms.CharField(label=_("Player"), max_length=80, required=False)


def _hall_ids(request: HttpRequest) -> list[int]:
    cached: list[int] | None = getattr(request, "_cashier_hall_ids", None)
    if cached is None:
        cached = sales_selectors.cashier_hall_ids(request.user)
        request._cashier_hall_ids = cached  # type: ignore[attr-defined]
    return cached


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _game_for(request: HttpRequest, game_id: int | None) -> Game | None:
    """The game, if it is in one of the cashier's halls: None if there is none, 403 if foreign."""
    if game_id is None:
        return None
    game = Game.objects.select_related("session__room__hall").filter(pk=game_id).first()
    if game is None:
        raise Http404
    if game.session.room.hall_id not in _hall_ids(request):
        raise PermissionDenied
    return game


def _desk_for(request: HttpRequest, desk_id: int | None) -> CashDesk | None:
    """The cash desk, if it is in one of the cashier's halls: None if there is none, 403 if foreign."""
    if desk_id is None:
        return None
    desk = CashDesk.objects.select_related("hall").filter(pk=desk_id).first()
    if desk is None:
        raise Http404
    if desk.hall_id not in _hall_ids(request):
        raise PermissionDenied
    return desk


def _screen_url(game: Game, desk: CashDesk, receipt: str = "") -> str:
    query: dict[str, object] = {"jogo": game.pk, "caixa": desk.pk}
    if receipt:
        query["recibo"] = receipt
    return f"{reverse('sales:cashier')}?{urlencode(query)}"


@require_http_methods(["GET", "POST"])
@role_required(Role.CASHIER)
def cashier(request: HttpRequest) -> HttpResponse:
    """The cashier's screen: choose a selling game and a desk, sell, see the receipt and totals."""
    if request.method == "POST":
        game = _game_for(request, _int(request.POST.get("game")))
        desk = _desk_for(request, _int(request.POST.get("cash_desk")))
        if game is None or desk is None:
            raise Http404
        form = SaleForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                sales_services.sale_make(
                    game=game,
                    quantity=data["quantity"],
                    cash_desk=desk,
                    cashier=request.user,  # type: ignore[arg-type]
                    cash_received=data["cash_received"],
                    request_key=data["request_key"],
                    player=data["player"],
                )
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                request.session[DESK_SESSION_KEY] = desk.pk
                return redirect(_screen_url(game, desk, data["request_key"]))
        return _render_screen(request, game, desk, form, status=400)

    games = list(sales_selectors.cashier_games(request.user))
    desks = list(sales_selectors.cashier_desks(request.user))
    game = _game_for(request, _int(request.GET.get("jogo")))
    if game is None and len(games) == 1:
        game = games[0]
    desk_id = _int(request.GET.get("caixa")) or _int(request.session.get(DESK_SESSION_KEY))
    desk = next((d for d in desks if d.pk == desk_id), None) if desk_id else None
    if desk_id and desk is None and request.GET.get("caixa"):
        _desk_for(request, desk_id)  # 404 or 403, as it deserves
    if game is not None and (desk is None or desk.hall_id != game.session.room.hall_id):
        in_hall = [d for d in desks if d.hall_id == game.session.room.hall_id]
        desk = in_hall[0] if len(in_hall) == 1 else None
    if game is None or desk is None:
        return render(
            request,
            "bingo/cashier_choose.html",
            {"nav": "sell", "games": games, "desks": desks, "game": game, "desk": desk},
        )
    if desk.pk != request.session.get(DESK_SESSION_KEY):
        request.session[DESK_SESSION_KEY] = desk.pk
    form = SaleForm(initial={"game": game.pk, "cash_desk": desk.pk, "request_key": uuid.uuid4().hex})
    return _render_screen(request, game, desk, form, games=games)


def _render_screen(
    request: HttpRequest,
    game: Game,
    desk: CashDesk,
    form: SaleForm,
    *,
    games: list[Game] | None = None,
    status: int = 200,
) -> HttpResponse:
    receipt_key = request.GET.get("recibo", "") if request.method == "GET" else ""
    receipt = (
        sales_selectors.sale_receipt(request_key=receipt_key[:64], cashier_id=int(request.user.pk or 0))
        if receipt_key
        else []
    )
    receipt = [sale for sale in receipt if sale.game_id == game.pk]
    board = sales_selectors.game_board(game_id=game.pk)
    hall = game.session.room.hall
    totals = sales_selectors.desk_game_totals(game_id=game.pk, cash_desk_id=desk.pk)
    paid = sum((s.amount for s in receipt), Decimal("0"))

    context: dict[str, Any] = {
        "nav": "sell",
        "game": game,
        "hall": hall,
        "desk": desk,
        "form": form,
        "board": board,
        "selling": game.state == Game.State.SELLING,
        "totals": totals,
        "currency": hall.currency,
        "totals_amount": totals.amount,
        "receipt": receipt,
        "receipt_key": receipt[0].request_key if receipt else "",
        "receipt_amount": paid,
        "receipt_received": receipt[0].cash_received if receipt else None,
        "receipt_change": receipt[0].cash_received - paid if receipt else None,
        "asks_player": bool(hall.card_limit_per_player),
        "other_games": [g for g in (games or []) if g.pk != game.pk],
    }
    return render(request, "bingo/cashier.html", context, status=status)


@require_GET
@role_required(Role.CASHIER)
def receipt(request: HttpRequest, request_key: str) -> HttpResponse:
    """The receipt of one sale request, laid out for the hall's 80 mm printer.

    Any cashier of the sale's hall may show and reprint it; a retried request (same key) sold
    nothing more, so it shows the same receipt.
    """
    sales = list(
        Sale.objects.filter(request_key=request_key)
        .select_related("series", "game__session__room__hall", "cash_desk", "cashier")
        .order_by("part")
    )
    if not sales:
        raise Http404
    first = sales[0]
    if first.cash_desk is None or first.cashier is None:
        raise Http404  # an online purchase: the player's wallet statement shows it, not a desk
    game = first.game
    hall = game.session.room.hall
    if hall.pk not in _hall_ids(request):
        raise PermissionDenied
    amount = sum((s.amount for s in sales), Decimal("0"))

    context: dict[str, Any] = {
        **_paper_context(request, first.cash_desk),
        "hall": hall,
        "game": game,
        "session": game.session,
        "desk": first.cash_desk,
        "sale": first,
        "zone": _zone(hall.time_zone),
        "currency": hall.currency,
        "parts": sales,
        "quantity": sum(s.quantity for s in sales),
        # R38 a): a second series has the first one's price, so one unit price holds for all.
        "unit_price": first.unit_price,
        "amount": amount,
        "received": first.cash_received,
        "change": first.cash_received - amount,
        "cashier": first.cashier.get_full_name() or first.cashier.get_username(),
        "back_url": _screen_url(game, first.cash_desk),
    }
    return render(request, "bingo/receipt.html", context)


def _paper_context(request: HttpRequest, desk: CashDesk) -> dict[str, Any]:
    """The paper a receipt or slip is laid out for: ``?papel=80mm`` or ``?papel=a4`` chooses it
    and the session remembers it per desk (the desk's printer does not change between prints);
    otherwise the desk's last choice, else the 80 mm roll."""
    key = f"sales:paper:{desk.pk}"
    asked = request.GET.get("papel")
    if asked in PAPERS:
        request.session[key] = asked
        paper = asked
    else:
        remembered = request.session.get(key)
        paper = remembered if remembered in PAPERS else PAPERS[0]
    return {"paper": paper, "paper_css": f"css/paper-{paper}.css", "papers": PAPERS}


def _zone(name: str) -> tzinfo:
    """The hall's time zone; the current one if the hall's name for it is not one."""
    try:
        return hall_zone(name)
    except (KeyError, ValueError):
        return timezone.get_current_timezone()


def _midnight(day: date, tz_name: str) -> datetime:
    """The start of ``day`` in the hall's time zone: a shift report counts from there."""
    return datetime.combine(day, time.min, tzinfo=_zone(tz_name))


@require_GET
@role_required(Role.CASHIER)
def shift_report(request: HttpRequest) -> HttpResponse:
    """The shift report of a cashier's desk, for everyone or one cashier: cards by series and
    range, and the cash expected."""
    desks = list(sales_selectors.cashier_desks(request.user))
    desk_id = _int(request.GET.get("caixa")) or _int(request.session.get(DESK_SESSION_KEY))
    desk = next((d for d in desks if d.pk == desk_id), None)
    if desk is None and request.GET.get("caixa"):
        _desk_for(request, desk_id)  # 404 or 403
    if desk is None and len(desks) == 1:
        desk = desks[0]
    report = None
    day = timezone.localdate()
    cashiers: list[User] = []
    chosen = None
    if desk is not None:
        day = timezone.now().astimezone(_zone(desk.hall.time_zone)).date()  # today in the hall
        with contextlib.suppress(ValueError):
            day = date.fromisoformat(request.GET.get("desde", "")) if request.GET.get("desde") else day
        since = _midnight(day, desk.hall.time_zone)
        cashiers = list(staff_member_list(hall_id=desk.hall_id, role=Role.CASHIER))
        # Only the desk's hall's cashiers: anyone else (another hall's, a stale choice) means all.
        cashier_id = _int(request.GET.get("operador"))
        chosen = next((person for person in cashiers if person.pk == cashier_id), None)
        report = sales_selectors.shift_report(
            cash_desk=desk, since=since, now=timezone.now(), cashier_id=None if chosen is None else chosen.pk
        )
    return render(
        request,
        "bingo/cashier_shift.html",
        {
            "nav": "shift",
            "desks": desks,
            "desk": desk,
            "report": report,
            "day": day,
            "cashiers": cashiers,
            "cashier": chosen,
            "lines": drawer_selectors.figure_lines(report.figures, with_float=False) if report else [],
        },
    )


@require_GET
def price_board(request: HttpRequest, game_id: int) -> HttpResponse:
    """A game's price board (R29), for the hall's TV: public, updated live over a websocket."""
    board = sales_selectors.game_board(game_id=game_id)
    if board is None:
        raise Http404
    prizes = [(p.kind.value, services.PRIZE_NAMES[p.kind], p.display) for p in board.prizes]
    # Every state's name, for the live updates to show the game's real state (static/js/board.js).
    states = GameState.choices
    return render(request, "bingo/board.html", {"board": board, "prizes": prizes, "states": states})


# --- prize payment at the cash desk -----------------------------------------------------------------


def _paying_desk(desks: list[CashDesk], desk_id: int | None) -> CashDesk | None:
    """The desk, if it is one of the cashier's: None if none asked, 404/403 for another."""
    if desk_id is None:
        return None
    desk = next((d for d in desks if d.pk == desk_id), None)
    if desk is None:
        if CashDesk.objects.filter(pk=desk_id).exists():
            raise PermissionDenied
        raise Http404
    return desk


def _pay_url(desk: CashDesk) -> str:
    return f"{reverse('sales:prize_pay')}?{urlencode({'caixa': desk.pk})}"


@require_http_methods(["GET", "POST"])
@role_required(Role.CASHIER)
def prize_pay(request: HttpRequest) -> HttpResponse:
    """Pay a winning card in cash (R8, R50): its QR code as the scanner types it, or its series,
    number and check code; double cards after their second game (R45); the hall's tax withheld.
    A payment lands on its slip; the page lists the desk's payments."""
    desks = list(sales_selectors.cashier_desks(request.user))
    if request.method == "POST":
        desk = _paying_desk(desks, _int(request.POST.get("cash_desk")))
        if desk is None:
            raise Http404
        form = PrizePayForm(request.POST, hall_id=desk.hall_id)
        if form.is_valid():
            data = form.cleaned_data
            try:
                payout = draw_services.prize_pay(
                    series=data["series"],
                    card_number=data["card_number"],
                    check_code=data["check_code"],
                    cash_desk=desk,
                    cashier=request.user,  # type: ignore[arg-type]  # role_required: logged in
                )
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                request.session[DESK_SESSION_KEY] = desk.pk
                code = sales_selectors.payout_slip_code(payout.payments[0])
                return redirect("sales:payout_slip", code=code)
        return _pay_page(request, desks, desk, form, status=400)

    desk = _paying_desk(desks, _int(request.GET.get("caixa")))
    if desk is None:  # the desk the cashier last worked at, as the sales screen remembers it
        remembered = _int(request.session.get(DESK_SESSION_KEY))
        desk = next((d for d in desks if d.pk == remembered), None)
    if desk is None and len(desks) == 1:
        desk = desks[0]
    if desk is None:
        context = {
            "nav": "prizes",
            "desks": desks,
            "title": _("Pay prizes"),
            "action": reverse("sales:prize_pay"),
        }
        return render(request, "bingo/desk_choose.html", context)
    form = PrizePayForm(initial={"cash_desk": desk.pk}, hall_id=desk.hall_id)
    return _pay_page(request, desks, desk, form)


def _pay_page(
    request: HttpRequest, desks: list[CashDesk], desk: CashDesk, form: PrizePayForm, *, status: int = 200
) -> HttpResponse:
    currency = desk.hall.currency
    payments = list(sales_selectors.desk_payment_list(cash_desk=desk)[:PAYMENTS_SHOWN])

    def row(p: PrizePayment) -> dict[str, Any]:
        prize = p.winner.prize
        return {
            "payment": p,
            "card": f"{p.winner.series.label} n.º {p.winner.card_number}",
            "game": prize.game,
            "prize": PrizeKind(prize.kind).label,
            "net": money_display(p.net, currency),
            "slip": sales_selectors.payout_slip_code(p),
        }

    context = {
        "nav": "prizes",
        "desk": desk,
        "desks": desks,
        "form": form,
        "payments": [row(p) for p in payments],
    }
    return render(request, "bingo/prize_pay.html", context, status=status)


# --- payout slips -----------------------------------------------------------------------------------


def _slip_hall_ids(request: HttpRequest) -> list[int]:
    """The halls whose slips the person may see: where they are a cashier or a manager."""
    return list(hall_list_for(request.user, Role.CASHIER, Role.MANAGER).values_list("pk", flat=True))


@require_GET
@role_required(Role.CASHIER, Role.MANAGER)
def payout_slip(request: HttpRequest, code: str) -> HttpResponse:
    """The slip of a prize payout (R50), to print on the desk's 80 mm roll or on A4, for the
    cashiers and managers of the desk's hall; anyone else, and a wrong code, get 404."""
    slip = sales_selectors.payout_slip_get(code=code, hall_ids=_slip_hall_ids(request))
    if slip is None:
        raise Http404
    if code != slip.code:  # typed another way, or another payment of the payout: its one address
        query = f"?{urlencode({'papel': request.GET['papel']})}" if "papel" in request.GET else ""
        return redirect(reverse("sales:payout_slip", args=[slip.code]) + query)
    first = slip.first
    desk, cashier = first.cash_desk, first.cashier
    if desk is None or cashier is None:  # payout_slip_get finds desk payments only
        raise Http404
    hall = first.winner.prize.game.session.room.hall
    at_desk = hall.pk in _hall_ids(request)
    currency = hall.currency
    context: dict[str, Any] = {
        **_paper_context(request, desk),
        "slip": slip,
        "hall": hall,
        "desk": desk,
        "zone": _zone(hall.time_zone),
        "card": first.winner.series,
        "card_number": first.winner.card_number,
        "rows": [
            {
                "payment": p,
                "game": p.winner.prize.game,
                "prize": PrizeKind(p.winner.prize.kind).label,
                "gross": money_display(p.gross, currency),
                "tax": money_display(p.tax_withheld, currency),
                "net": money_display(p.net, currency),
            }
            for p in slip.payments
        ],
        "gross": money_display(slip.gross, currency),
        "tax": money_display(slip.tax_withheld, currency),
        "net": money_display(slip.net, currency),
        "cashier": cashier.get_full_name() or cashier.get_username(),
        "back_url": _pay_url(desk) if at_desk else reverse("sales:payout_slip_find"),
    }
    return render(request, "bingo/payout_slip.html", context)


@require_GET
@role_required(Role.CASHIER, Role.MANAGER)
def payout_slip_find(request: HttpRequest) -> HttpResponse:
    """Type a slip's code to reach the slip again (a reprint, a question at the desk): the
    cashiers and managers of its hall find it; any other code finds nothing."""
    form = SlipFindForm(request.GET if "codigo" in request.GET else None)
    status = 200
    if form.is_valid():
        slip = sales_selectors.payout_slip_get(
            code=form.cleaned_data["codigo"], hall_ids=_slip_hall_ids(request)
        )
        if slip is not None:
            return redirect("sales:payout_slip", code=slip.code)
        form.add_error("codigo", _("No payout slip of your halls has this code."))
        status = 404
    elif form.is_bound:
        status = 400
    context = {"nav": "slips", "form": form, "is_cashier": bool(_hall_ids(request))}
    return render(request, "bingo/payout_slip_find.html", context, status=status)
