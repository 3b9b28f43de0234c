"""The lobby in a real browser (Chromium + uvicorn), issue 25 point 2, in Portuguese at a phone's
width: the countdown «As vendas fecham dentro de m:ss» and, when it reaches 0, the buy button and
the buy form gone without a reload (the server refusing a late purchase all the same, R93); a
purchase ahead in a room's next games, each game selling saying what it got and the rest ordered;
in a continuous room, a standing order placed, shown and cancelled; a strip of six bought on the
game page; and a self-excluded player's lobby and game page with the notice once and nothing to
buy (R101).

Real: every page, form, script and the server's clock; the online loop opening a session's games
(``online_room_advance``). Steered: a game's close of sales is set a few seconds ahead."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from bingo.autodraw import services as autodraw_services
from bingo.engine import ALGORITHM_STRIPS
from bingo.models import Game, OnlineOrder, OrderEnd, RoomMode, Sale
from bingo.online import services
from bingo.players.selectors import wallet_balance
from bingo.protection import services as protection_services
from tests.autodraw.helpers import committed
from tests.cards.factories import card_set_make
from tests.e2e.conftest import RunInBrowser, log_in
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000  # a loaded two-core machine runs the server, the browser and the test
PHONE = {"width": 360, "height": 740}


def _phone(context: Any, base: str, username: str) -> Any:
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.set_viewport_size(PHONE)
    log_in(page, base, username, None)
    page.wait_for_load_state()
    return page


def _schedule(site: OnlineSetup, start: datetime, games: int) -> None:
    services.online_session_schedule(
        online_room=site.online,
        starts_at=start,
        sales_close_at=start + timedelta(minutes=30),
        scheduled_end=start + timedelta(hours=1),
        games=[services.SessionGame("90", "10.00") for _ in range(games)],
        user=site.manager,
    )


def _session_selling(site: OnlineSetup, games: int, *, planned_after: int = 0) -> list[Game]:
    """A session of ``games`` games opened by the loop now (R93), and ``planned_after`` more in a
    session starting in an hour: the room's games in their order."""
    now = timezone.now()
    _schedule(site, now, games)
    committed(lambda: autodraw_services.online_room_advance(room_id=site.online.pk))
    if planned_after:
        _schedule(site, now + timedelta(hours=1), planned_after)
    return list(Game.objects.filter(session__room=site.room).order_by("session__starts_at", "number"))


def test_the_countdown_reads_m_ss_and_at_zero_the_buy_button_and_form_go(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:
    site = OnlineSetup(name="Salão do Relógio")
    game = site.game(site.series(1, price="10.00"))
    player = site.player("100.00", username="clara")
    closes = timezone.now() + timedelta(seconds=12)
    Game.objects.filter(pk=game.pk).update(sales_close_at=closes)

    def scenario(context: Any) -> dict[str, Any]:
        lobby = _phone(context, asgi_server, "clara")
        lobby.goto(f"{asgi_server}/online/")
        lobby.evaluate("window.__sameDocument = true")
        countdown = lobby.locator(f'[data-game="{game.pk}"] [data-countdown]')
        before = countdown.inner_text()
        button_before = lobby.get_by_role("link", name="Comprar cartões").is_visible()
        page = context.new_page()
        page.set_viewport_size(PHONE)
        page.goto(f"{asgi_server}/online/jogo/{game.pk}/")
        page.evaluate("window.__sameDocument = true")
        form_before = page.get_by_role("button", name="Comprar", exact=True).is_visible()
        lobby.wait_for_function(
            "el => el.textContent === 'As vendas estão fechadas.'",
            arg=countdown.element_handle(),
            timeout=TIMEOUT_MS,
        )
        page.locator(".online-buy").wait_for(state="hidden")
        same_game_page = page.evaluate("window.__sameDocument === true")
        gone = {
            "button_after": lobby.locator(f'[data-game="{game.pk}"] [data-buy]').is_visible(),
            "form_after": page.locator(".online-buy").is_visible(),
            "submit_disabled": page.locator(".online-buy button[type=submit]").is_disabled(),
        }
        # A purchase sent anyway (a tab whose script was stopped): the form put back and sent.
        page.evaluate(
            "() => { const f = document.querySelector('.online-buy'); f.hidden = false;"
            " f.querySelectorAll('button, input').forEach(e => { e.disabled = false; }); }"
        )
        with page.expect_navigation():
            page.locator(".online-buy button[type=submit]").click()
        late = page.locator(".messages .alert").first.inner_text()
        return {
            "before": before,
            "button_before": button_before,
            "form_before": form_before,
            **gone,
            "same_lobby": lobby.evaluate("window.__sameDocument === true"),
            "same_game_page": same_game_page,
            "late": late,
        }

    seen = browser(scenario)

    assert re.fullmatch(r"As vendas fecham dentro de 0:(0\d|1[0-2])", seen["before"]), seen["before"]
    assert seen["button_before"]
    assert seen["form_before"]
    assert not seen["button_after"]
    assert not seen["form_after"]
    assert seen["submit_disabled"]
    assert seen["same_lobby"]
    assert seen["same_game_page"]
    assert seen["late"] == f"A jogada {game.number} não está a vender cartões."  # R93
    assert not Sale.objects.filter(game=game).exists()
    assert wallet_balance(player=player) == Decimal("100.00")


def test_a_player_buys_ahead_in_the_room_s_next_games_from_the_lobby(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:
    site = OnlineSetup(name="Salão Antecipado", mode=RoomMode.SESSION)
    for order in (1, 2, 3):
        site.series(order, price="10.00")
    games = _session_selling(site, 2, planned_after=1)
    player = site.player("100.00", username="duarte")

    def scenario(context: Any) -> list[str]:
        page = _phone(context, asgi_server, "duarte")
        page.goto(f"{asgi_server}/online/")
        form = page.locator("[data-ahead]")
        form.get_by_label("Jogadas").fill("3")
        form.get_by_label("Cartões por jogada").fill("2")
        with page.expect_navigation():
            form.get_by_role("button", name="Comprar antecipadamente").click()
        return page.locator(".messages .alert").all_inner_texts()

    said = browser(scenario)

    assert f"Comprado: 2 cartões na jogada {games[0].number} por 20 CVE." in said
    assert f"Comprado: 2 cartões na jogada {games[1].number} por 20 CVE." in said
    # The planned game (R93: its sales open for everyone at once) is ordered, not bought.
    assert "Encomendado: 2 cartões na próxima jogada, comprados quando abrirem as vendas." in said
    assert [(s.game_id, s.quantity) for s in Sale.objects.filter(buyer=player).order_by("game_id")] == [
        (games[0].pk, 2),
        (games[1].pk, 2),
    ]
    assert wallet_balance(player=player) == Decimal("60.00")
    assert OnlineOrder.objects.get(player=player).games_wanted == 1


def test_a_player_orders_ahead_in_a_continuous_room_sees_the_order_and_cancels_it(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:
    """A continuous room sells one game at a time (R90): buying ahead for 3 games buys in the one
    selling and orders the 2 not created yet; the lobby lists the order with its games left and
    cancels it, nothing having been taken for it."""
    site = OnlineSetup(name="Salão Contínuo")
    site.series(1, price="10.00")
    committed(lambda: autodraw_services.online_room_advance(room_id=site.online.pk))
    game = Game.objects.get(session__room=site.room, state=Game.State.SELLING)
    player = site.player("100.00", username="gil")

    def scenario(context: Any) -> dict[str, Any]:
        page = _phone(context, asgi_server, "gil")
        page.goto(f"{asgi_server}/online/")
        form = page.locator("[data-ahead]")
        form.get_by_label("Jogadas").fill("3")
        form.get_by_label("Cartões por jogada").fill("2")
        with page.expect_navigation():
            form.get_by_role("button", name="Comprar antecipadamente").click()
        said = page.locator(".messages .alert").all_inner_texts()
        order = page.locator('[data-order][data-order-state="open"]')
        shown = {"count": order.count(), "text": order.first.inner_text()}
        with page.expect_navigation():
            order.first.get_by_role("button", name="Cancelar a encomenda").click()
        return {
            "said": said,
            "shown": shown,
            "cancelled": page.locator(".messages .alert").all_inner_texts(),
            "left": page.locator('[data-order][data-order-state="open"]').count(),
        }

    seen = browser(scenario)

    assert f"Comprado: 2 cartões na jogada {game.number} por 20 CVE." in seen["said"]
    assert (
        "Encomendado: 2 cartões em cada uma das próximas 2 jogadas, comprados quando abrirem as vendas."
        in seen["said"]
    )
    assert seen["shown"]["count"] == 1
    assert "2 cartões por jogada · faltam 2 jogadas de 2" in seen["shown"]["text"]
    assert seen["cancelled"] == [
        "Encomenda cancelada: não compra mais nada. Nada ficou retido, por isso nada há a devolver."
    ]
    assert seen["left"] == 0
    order = OnlineOrder.objects.get(player=player)
    assert (order.end_reason, order.games_filled) == (OrderEnd.CANCELLED, 0)
    assert wallet_balance(player=player) == Decimal("80.00")  # the game selling, nothing for the order


def test_a_player_buys_a_strip_of_six_on_the_game_page(asgi_server: str, browser: RunInBrowser[Any]) -> None:
    site = OnlineSetup(name="Salão das Tiras")
    site.card_set = card_set_make(variant="90", size=90, algorithm=ALGORITHM_STRIPS)
    series = site.series(1, price="10.00")
    services.online_room_update(online_room=site.online, strips=True)
    game = site.game(series)
    player = site.player("100.00", username="eva")

    def scenario(context: Any) -> dict[str, Any]:
        page = _phone(context, asgi_server, "eva")
        page.goto(f"{asgi_server}/online/")
        strips_said = page.get_by_text("tiras de seis (cada número de 1 a 90 uma só vez)").is_visible()
        page.goto(f"{asgi_server}/online/jogo/{game.pk}/")
        page.get_by_label("Quantas tiras de seis?").fill("1")
        cost = page.locator("[data-cost]").inner_text()
        with page.expect_navigation():
            page.get_by_role("button", name="Comprar", exact=True).click()
        return {
            "strips_said": strips_said,
            "cost": cost,
            "message": page.locator(".messages .alert").first.inner_text(),
            "cards": page.get_by_text(re.compile(r"^A-1 n\.º [1-6]$")).count(),
        }

    seen = browser(scenario)

    assert seen["strips_said"]
    assert seen["cost"] == "60 CVE"
    assert seen["message"] == "6 cartões comprados por 60 CVE."
    sale = Sale.objects.get(game=game, buyer=player)
    assert (sale.first_number, sale.last_number) == (1, 6)
    assert wallet_balance(player=player) == Decimal("40.00")


def test_a_self_excluded_player_sees_the_notice_once_and_nothing_to_buy(
    asgi_server: str, browser: RunInBrowser[Any]
) -> None:
    site = OnlineSetup(name="Salão Protegido", mode=RoomMode.SESSION)
    site.series(1, price="10.00")
    (game,) = _session_selling(site, 1)
    player = site.player("100.00", username="filipa")
    protection_services.player_self_exclude(player=player, length="3m", confirmed=True)

    def scenario(context: Any) -> dict[str, Any]:
        page = _phone(context, asgi_server, "filipa")
        page.goto(f"{asgi_server}/online/")
        lobby = {
            "notices": page.locator("#protection-notice").count(),
            "notice": page.locator("#protection-notice").first.inner_text(),
            "alerts": page.locator(".alert-error").count(),
            "buy_links": page.get_by_role("link", name="Comprar cartões").count(),
            "ahead": page.locator("[data-ahead]").count(),
            "follow": page.get_by_role("link", name="Acompanhar o jogo").count(),
        }
        page.goto(f"{asgi_server}/online/jogo/{game.pk}/")
        game_page = {
            "notices": page.locator("#protection-notice").count(),
            "alerts": page.locator(".alert-error").count(),
            "forms": page.locator(".online-buy").count(),
            "buttons": page.get_by_role("button", name="Comprar", exact=True).count(),
        }
        return {"lobby": lobby, "game": game_page}

    seen = browser(scenario)

    assert seen["lobby"]["notices"] == 1
    assert seen["lobby"]["alerts"] == 1
    assert "R101" in seen["lobby"]["notice"]
    assert seen["lobby"]["buy_links"] == 0
    assert seen["lobby"]["ahead"] == 0
    assert seen["lobby"]["follow"] == 1
    assert seen["game"] == {"notices": 1, "alerts": 1, "forms": 0, "buttons": 0}
    assert not Sale.objects.filter(buyer=player).exists()
