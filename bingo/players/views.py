"""The player's pages (registration, dashboard, «A minha carteira») and the desk's «Carteiras dos
jogadores» (deposits and withdrawals against the identity document checked)."""

from __future__ import annotations

import csv
import math
from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bingo.common.clock import hall_zone
from bingo.common.forms import add_service_errors, refusal_flash
from bingo.common.money import money_display
from bingo.common.roles import Role, role_required
from bingo.common.throttling import SlidingWindowThrottle
from bingo.common.views import DashboardView
from bingo.complaints import selectors as complaint_selectors
from bingo.drawers.access import desk_remembered_id
from bingo.models import Player, WalletEntry
from bingo.online import selectors as online_selectors
from bingo.players import selectors, services
from bingo.players.access import player_from_request, player_required
from bingo.players.api import RegistrationThrottle
from bingo.players.forms import HistoryFilterForm, PlayerSearchForm, RegistrationForm, WalletMovementForm
from bingo.players.pdf import history_labels, history_pdf_bytes
from bingo.protection import selectors as protection_selectors

#: Movements per page of the player's statement.
STATEMENT_PAGE = 25
#: Movements the desk sees of a player.
DESK_LAST = 20


# --- registration ---------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def register(request: HttpRequest) -> HttpResponse:
    """Anyone not logged in may register as a player; tries and registrations are limited per
    address together with the API's (RegistrationThrottle), and the form needs the CSRF token."""
    if request.user.is_authenticated:
        messages.info(request, _("You are logged in already: log out to register another player."))
        return redirect("home")
    halls_exist = selectors.player_register_hall_list().exists()
    if request.method == "POST" and halls_exist:
        throttle = RegistrationThrottle()
        if not throttle.allow(request):
            form = RegistrationForm(request.POST)
            response = render(
                request, "players/register.html", {"form": form, "throttled": True, "open": True}, status=429
            )
            response["Retry-After"] = str(math.ceil(throttle.wait() or 1))
            return response
        form = RegistrationForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                player = services.player_register(
                    username=data["username"],
                    email=data["email"],
                    first_name=data["first_name"],
                    last_name=data["last_name"],
                    password=data["password1"],
                    birth_date=data["birth_date"],
                    adult_confirmed=data["adult_confirmed"],
                    hall=data["hall"],
                )
            except ValidationError as exc:
                add_service_errors(form, exc, aliases={"password": "password1"})
            else:
                login(request, player.user, backend="bingo.players.backends.UserBackend")
                messages.success(
                    request,
                    _(
                        "Welcome! Your player account is ready. We sent a link to %(email)s: open it "
                        "to verify your address before your first deposit."
                    )
                    % {"email": player.user.email},
                )
                return redirect(Role.PLAYER.dashboard_url_name)
        throttle.not_made()
    else:
        form = RegistrationForm()
    return render(request, "players/register.html", {"form": form, "open": halls_exist})


# --- the e-mail's verification ----------------------------------------------------------------------


class EmailVerificationSendThrottle(SlidingWindowThrottle):
    """Verification mails asked for again per address ("email_verify_send")."""

    scope = "email_verify_send"


@require_GET
def email_verify(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """The link of the verification mail: opened on any device, logged in or not, it verifies
    the address (no deposit before, issue 25). A link that does not work says so (400)."""
    try:
        player = services.player_email_verify(uidb64=uidb64, token=token)
    except ValidationError as exc:
        return render(request, "players/email_verified.html", {"errors": exc.messages}, status=400)
    return render(request, "players/email_verified.html", {"player": player})


@player_required
@require_POST
def email_verification_send(request: HttpRequest) -> HttpResponse:
    """«Enviar de novo»: the verification link mailed again, a few times an hour at most."""
    player = player_from_request(request)
    if not EmailVerificationSendThrottle().allow(request):
        messages.error(request, _("Too many requests from this address. Please try again later."))
    else:
        try:
            services.player_email_verification_send(player=player)
        except ValidationError as exc:
            refusal_flash(request, exc)
        else:
            messages.success(
                request, _("We sent the link again to %(email)s.") % {"email": player.user.email}
            )
    return redirect(Role.PLAYER.dashboard_url_name)


# --- the player's pages ---------------------------------------------------------------------------


class PlayerDashboardView(DashboardView):
    """The player's dashboard: their wallet's balance first, then what they do here."""

    template_name = "players/dashboard.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        try:
            player = selectors.player_get(user=self.request.user)
        except Player.DoesNotExist:
            player = None  # a user given the player role by hand, never registered
        context["player"] = player
        context["balance"] = selectors.wallet_balance(player=player) if player is not None else None
        return context


@player_required
def my_wallet(request: HttpRequest) -> HttpResponse:
    """«A minha carteira»: the balance and every movement, newest first, a page at a time."""
    player = player_from_request(request)
    page = Paginator(selectors.wallet_entry_list(player=player), STATEMENT_PAGE).get_page(
        request.GET.get("pagina")
    )
    context = {
        "player": player,
        "balance": selectors.wallet_balance(player=player),
        "page": page,
        "lines": selectors.wallet_statement(entries=list(page.object_list)),
    }
    return render(request, "players/wallet.html", context)


def _history_dates(form: HistoryFilterForm) -> dict[str, Any]:
    """The dates of a valid filter; none (every game) when the form is refused."""
    if form.is_valid():
        return {"date_from": form.cleaned_data["date_from"], "date_to": form.cleaned_data["date_to"]}
    return {}


@player_required
def my_history(request: HttpRequest) -> HttpResponse:
    """«O meu histórico» (R100, PT-806/65): every online game the player bought cards in, newest
    first, with totals, a filter by the hall's dates, and the last game's full details. Bad dates
    are shown as errors and filter nothing (400)."""
    player = player_from_request(request)
    form = HistoryFilterForm(request.GET or None)
    refused = form.is_bound and not form.is_valid()
    history = selectors.player_history(player=player, **_history_dates(form))
    # The newest listed game's full state (balls in order, cards, prizes and winners): the game
    # screen's own.
    last = (
        online_selectors.player_game_state(player=player, game=history.games[0].game)
        if history.games
        else None
    )
    # R61 j): the player's complaints about each game, with the managers' answers, on its row.
    complaints = complaint_selectors.complaint_by_game(
        player=player, game_ids=[g.game.pk for g in history.games]
    )
    labels = history_labels()
    context = {
        "player": player,
        "form": form,
        "history": history,
        "last": last,
        "rows": [
            (line, labels[line.result], labels[line.outcome], complaints.get(line.game.pk, []))
            for line in history.games
        ],
        "query": request.GET.urlencode() if not refused else "",
        # The games the player's standing orders bought into, or were refused in (buying ahead).
        "fills": online_selectors.player_order_fills(player=player),
    }
    return render(request, "players/history.html", context, status=400 if refused else 200)


#: The CSV's columns, in order (Portuguese headers: gettext; the file is read in a spreadsheet).
def _history_header() -> list[str]:
    return [
        _("Date"),
        _("Room"),
        _("Game"),
        _("Variant"),
        _("Cards"),
        _("Card numbers"),
        _("Staked"),
        _("Prizes"),
        _("Won"),
        _("Refunded"),
        _("Net"),
        _("Result"),
        _("Outcome"),
        _("Reason"),
    ]


@player_required
def my_history_csv(request: HttpRequest) -> HttpResponse:
    """The same list as «O meu histórico», filtered the same way, as CSV (`;`-separated, a header
    row, amounts as plain decimals with a point, times on the hall's clock)."""
    player = player_from_request(request)
    form = HistoryFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return HttpResponse(
            " ".join(str(e) for errors in form.errors.values() for e in errors),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    history = selectors.player_history(player=player, **_history_dates(form))
    labels = history_labels()
    zone = hall_zone(history.time_zone)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="historico.csv"'
    writer = csv.writer(response, delimiter=";")
    writer.writerow(_history_header())
    for line in history.games:
        writer.writerow(
            [
                line.at.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
                _spreadsheet_text(line.game.session.room.name),
                line.game.number,
                line.game.get_variant_display(),
                line.cards,
                line.numbers,
                f"{line.staked}",
                ", ".join(f"{p.name} {p.net}" for p in line.prizes),
                f"{line.won}",
                f"{line.refunded}",
                f"{line.net}",
                labels[line.result],
                labels[line.outcome],
                _spreadsheet_text(line.reason),
            ]
        )
    return response


def _spreadsheet_text(text: str) -> str:
    """Text typed by staff (a room's name, a fault's reason) as a CSV cell a spreadsheet shows
    as text: one starting with =, +, -, @ or a control character would be run as a formula."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@player_required
def my_history_pdf(request: HttpRequest) -> HttpResponse:
    """The same list as «O meu histórico», filtered the same way, as a PDF statement (R100):
    the totals, then every game with its cards, stake, prizes, refund, net and result."""
    player = player_from_request(request)
    form = HistoryFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return HttpResponse(
            " ".join(str(e) for errors in form.errors.values() for e in errors),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    response = HttpResponse(
        history_pdf_bytes(player=player, **_history_dates(form)), content_type="application/pdf"
    )
    response["Content-Disposition"] = 'attachment; filename="historico.pdf"'
    return response


# --- the desk's pages -----------------------------------------------------------------------------


@role_required(Role.CASHIER, Role.MANAGER)
def wallet_staff_search(request: HttpRequest) -> HttpResponse:
    """«Carteiras dos jogadores»: find a player of one's halls by username, e-mail or name."""
    form = PlayerSearchForm(request.GET)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    context = {
        "form": form,
        "query": query,
        "players": selectors.player_list_for_staff(user=request.user, query=query),
    }
    return render(request, "players/staff_search.html", context)


@role_required(Role.CASHIER, Role.MANAGER)
@require_http_methods(["GET", "POST"])
def wallet_staff_player(request: HttpRequest, player_id: int) -> HttpResponse:
    """One player's identity, balance and last movements; a deposit or withdrawal recorded
    against the identity document checked (the form's key makes a double submit count once)."""
    try:
        player = selectors.player_get_for_staff(user=request.user, player_id=player_id)
    except Player.DoesNotExist:
        raise Http404 from None
    status = 200
    if request.method == "POST":
        form = WalletMovementForm(request.POST, hall=player.hall)
        if form.is_valid():
            data = form.cleaned_data
            move = (
                services.wallet_deposit
                if data["kind"] == WalletEntry.Kind.DEPOSIT
                else services.wallet_withdraw
            )
            try:
                entry = move(
                    player=player,
                    amount=data["amount"],
                    staff=request.user,  # type: ignore[arg-type]
                    reference=data["reference"],
                    key=data["key"],
                    cash_desk=data["cash_desk"],
                )
            except ValidationError as exc:
                add_service_errors(form, exc, aliases={"key": None})  # the key is a hidden field
            else:
                currency = player.hall.currency
                messages.success(
                    request,
                    _("%(kind)s of %(amount)s recorded. Balance: %(balance)s.")
                    % {
                        "kind": entry.get_kind_display(),
                        "amount": money_display(abs(entry.amount), currency),
                        "balance": money_display(entry.balance_after, currency),
                    },
                )
                return redirect("players:staff_player", player_id=player.pk)
        status = 400
    else:
        form = WalletMovementForm(hall=player.hall, desk_id=desk_remembered_id(request))
    entries = list(selectors.wallet_entry_list(player=player)[:DESK_LAST])
    context = {
        "player": player,
        "balance": selectors.wallet_balance(player=player),
        # R101: the desk sees at once that no deposit is taken from an excluded player.
        "exclusion_notice": protection_selectors.desk_notice(player=player),
        "email_unverified": player.email_verified_at is None,
        "form": form,
        "lines": selectors.wallet_statement(entries=entries),
    }
    return render(request, "players/staff_player.html", context, status=status)
