"""Online play in a real browser (Chromium + uvicorn), the issue's whole player's path: register
(adult confirmation), a cashier's deposit, the lobby, buying, the live draw with the cards marked
automatically (R96), the "one number to go" alert (R95), the line won, marking by hand (R96), the
bingo that ends the game and both prizes paid into the wallet with no action by the player (R97),
and the wallet's statement.

What is real: every page, form and link, in Portuguese, at a phone's width (360 px) during the
draw; the websocket ``ws/online/game/<id>/`` and nothing else bringing the balls (the game page is
never reloaded while they arrive); the online loop of ``bingo/autodraw`` opening the continuous
room's game (``online_reconcile``), closing its sales and starting the draw, drawing each ball with
``online_ball_draw`` (the body of the Celery task ``autodraw.draw_ball``) at the game's interval
of 1 s (R88: the service itself refuses a ball that comes early), and awarding and paying the
prize (R97); the other players' purchases (``bingo.online.services.online_buy``).

What is steered, and how:

* the Celery worker: the ball tasks the services queue (on commit, with their ``eta``) are kept by
  the test and run at their time, by ``draw_ball_task`` itself, in the server's process (in a
  thread of its event loop, as a view runs), a few at a time as the test lets them;
* the sales window: the room sells for 10 minutes; once everyone has bought, the test moves the
  game's ``sales_close_at`` to now and runs the reconciler, which closes the sales and starts the
  draw as it would when the window ends;
* the balls' numbers: the electronic draw's ``next_ball`` is replaced by one reading a list made
  from the player's first card (its numbers row by row, then everything else), so the player is
  one number from the line (R95) after four balls, wins it on the fifth and the bingo on the
  fifteenth. Everything after the choice of number (storing the ball,
  detection, award, payment, events) is the real code.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import threading
import time
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.core import mail
from django.db import connection
from django.utils import timezone

from bingo.autodraw import services as autodraw_services
from bingo.autodraw.tasks import draw_ball_task
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.models import Game, OnlineRoom, Player, PrizeWinner, Sale, WalletEntry
from bingo.online import services as online_services
from bingo.players.selectors import wallet_balance
from cards.selectors import card_get
from halls.models import StaffMembership
from tests.e2e.conftest import RunInBrowser
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000  # a loaded two-core machine runs the server, the browser and the test
PHONE = {"width": 360, "height": 740}
#: Where the phone-width screenshots go, to look at (not kept by the test).
SHOTS = Path(os.environ.get("E2E_SHOTS_DIR", "/tmp/e2e-online-shots"))


class Worker:
    """Stands in for the Celery worker: keeps the ball tasks the services queue and runs each, no
    earlier than its ``eta``, in a thread of the server's event loop, as many as ``allow`` says."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queued: list[tuple[tuple[Any, ...], datetime | None]] = []
        self.allowed = 0
        self.drawn: list[int] = []
        self.errors: list[BaseException] = []
        self.lock = threading.Condition()
        self.stopped = False
        self.thread = threading.Thread(target=self._run, name="fake-celery-worker", daemon=True)

    def take(self, args: Any, eta: datetime | None = None, **_options: Any) -> None:
        with self.lock:
            self.queued.append((tuple(args), eta))
            self.lock.notify_all()

    def in_server(self, step: Callable[[], Any]) -> Any:
        """Run ``step`` in a worker thread of the server's loop; its database connection closed
        after, as a request's is."""

        def wrapped() -> Any:
            try:
                return step()
            finally:
                connection.close()

        future = asyncio.run_coroutine_threadsafe(sync_to_async(wrapped, thread_sensitive=False)(), self.loop)
        return future.result(timeout=60)

    def allow(self, balls: int) -> None:
        with self.lock:
            self.allowed = balls
            self.lock.notify_all()

    def _run(self) -> None:
        while True:
            with self.lock:
                while not self.stopped and (not self.queued or len(self.drawn) >= self.allowed):
                    self.lock.wait(0.2)
                if self.stopped:
                    return
                (game_id, position), eta = self.queued.pop(0)
            if eta is not None:
                time.sleep(max(0.0, (eta - timezone.now()).total_seconds()))
            try:
                number = self.in_server(functools.partial(draw_ball_task, game_id, position))
            except BaseException as exc:  # reported by the test
                self.errors.append(exc)
                return
            if number is not None:
                with self.lock:
                    self.drawn.append(number)

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            self.lock.notify_all()
        self.thread.join(30)


def steered_order(card: list[list[int | None]]) -> list[int]:
    """The card's numbers row by row (its line at ball 5, its bingo at ball 15), then the rest."""
    head = [n for row in card for n in row if n is not None]
    return head + [n for n in range(1, 91) if n not in head]


def test_a_player_registers_is_credited_buys_watches_the_draw_live_and_wins_into_the_wallet(
    asgi_served: tuple[str, asyncio.AbstractEventLoop],
    browser: RunInBrowser[Any],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    base, loop = asgi_served
    site = OnlineSetup(name="Salão Online")
    OnlineRoom.objects.filter(pk=site.online.pk).update(ball_interval=Decimal("1"), sales_seconds=600)
    site.series(1, price="10.00")
    cashier = UserFactory(username="caixa-ana", roles=[Role.CASHIER])
    StaffMembership.objects.create(hall=site.hall, user=cashier, role=Role.CASHIER.value)

    worker = Worker(loop)
    monkeypatch.setattr(draw_ball_task, "apply_async", worker.take)
    monkeypatch.setattr(draw_ball_task, "delay", lambda *args: worker.take(args))

    # The room's loop opens its game (continuous mode, R90); two other players buy (R36).
    worker.in_server(autodraw_services.online_reconcile)
    game = Game.objects.get(session__room=site.room, state=Game.State.SELLING)
    for name, quantity in (("rita", 3), ("joao", 4)):
        other = site.player("100.00", username=name)
        worker.in_server(
            lambda other=other, quantity=quantity: online_services.online_buy(
                player=other, game=game, quantity=quantity, key=f"buy-{other.pk}"
            )
        )

    errors: list[str] = []

    def watch(page: Any) -> Any:
        page.set_default_timeout(TIMEOUT_MS)
        page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
        return page

    def login(page: Any, username: str) -> None:
        page.goto(f"{base}/entrar/")
        page.get_by_label("Nome de utilizador").fill(username)
        page.get_by_label("Palavra-passe").fill(DEFAULT_PASSWORD)
        page.get_by_role("button", name="Entrar").click()

    def logout(page: Any) -> None:
        with page.expect_navigation():
            page.get_by_role("button", name="Sair").click()

    # --- 1. registration, 2. the cashier's deposit ------------------------------------------------
    def register_and_deposit(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = watch(context.new_page())
        page.goto(f"{base}/jogador/registo/")
        seen["register_heading"] = page.locator("h1").inner_text()
        page.get_by_label("Nome de utilizador").fill("maria")
        page.get_by_label("E-mail").fill("maria@example.cv")
        page.get_by_label("Nome", exact=True).fill("Maria")
        page.get_by_label("Apelido").fill("Lopes")
        page.get_by_label("Data de nascimento").fill("1990-05-17")
        page.get_by_label("Palavra-passe", exact=True).fill(DEFAULT_PASSWORD)
        page.get_by_label("Repita a palavra-passe").fill(DEFAULT_PASSWORD)
        page.locator("input[name=adult_confirmed]").check()
        with page.expect_navigation():
            page.get_by_role("button", name="Registar").click()
        seen["after_register"] = page.url
        # The e-mail is verified from the mail's link before the desk takes a deposit.
        sent = next(m for m in mail.outbox if "maria@example.cv" in m.to)
        link = re.search(r"https?://[^/\s]+(/jogador/email/verificar/\S+/)", sent.body)
        assert link is not None, sent.body
        page.goto(f"{base}{link.group(1)}")
        logout(page)

        login(page, "caixa-ana")
        page.wait_for_url(f"{base}/caixa/")
        page.get_by_role("link", name="Carteiras dos jogadores").first.click()
        page.wait_for_url(f"{base}/carteiras/**")
        page.get_by_label("Nome de utilizador, e-mail ou nome").fill("maria")
        page.get_by_role("button", name="Procurar").click()
        page.locator("#players").get_by_role("link", name="maria").click()
        page.get_by_label("Depósito").check()
        page.get_by_label("Montante").fill("50")
        page.get_by_label("Documento de identificação verificado").fill("CNI 1234567")
        with page.expect_navigation():
            page.get_by_role("button", name="Registar").click()
        seen["desk_balance"] = page.locator("#balance").inner_text()
        logout(page)
        return seen

    first = browser(register_and_deposit)
    assert first["after_register"] == f"{base}/jogador/"
    player = Player.objects.get(user__username="maria")
    assert player.adult_confirmed_at is not None
    assert wallet_balance(player=player) == Decimal("50.00")
    assert "50" in first["desk_balance"]

    # The balls, steered from the player's cards (see the docstring): the player will hold the
    # next cards of the series, after the 7 sold.
    mine = card_get(card_set=site.card_set, number=8)
    order = steered_order(mine)
    monkeypatch.setattr(draw_services, "next_ball", lambda variant, drawn, rng: order[len(list(drawn))])
    first_row = [n for n in mine[0] if n is not None]
    second_row = [n for n in mine[1] if n is not None]
    manual_ball = next(n for n in second_row if n not in first_row)

    def close_sales() -> None:
        Game.objects.filter(pk=game.pk).update(sales_close_at=timezone.now())
        autodraw_services.online_reconcile()

    # --- 3. the player: dashboard → lobby → game → buy → the draw ------------------------------
    def play(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = watch(context.new_page())
        page.set_viewport_size(PHONE)
        login(page, "maria")
        page.wait_for_url(f"{base}/jogador/")
        page.screenshot(path=str(SHOTS / "dashboard-360.png"), full_page=True)
        seen["widths"] = {"dashboard": page.evaluate("document.documentElement.scrollWidth")}
        page.locator("#wallet-summary").get_by_role("link", name="Jogar online").click()
        page.wait_for_url(f"{base}/online/")
        seen["lobby_heading"] = page.locator("h1").inner_text()
        seen["lobby_wallet"] = page.locator("[data-balance]").inner_text()
        page.screenshot(path=str(SHOTS / "lobby-360.png"), full_page=True)
        seen["widths"]["lobby"] = page.evaluate("document.documentElement.scrollWidth")
        page.get_by_role("link", name="Comprar cartões").first.click()
        page.wait_for_url(f"{base}/online/jogo/{game.pk}/")
        page.wait_for_selector("[data-live].is-live")
        page.get_by_label("Quantos cartões?").fill("2")
        seen["cost"] = page.locator("[data-cost]").inner_text()
        page.screenshot(path=str(SHOTS / "game-360-selling.png"), full_page=True)
        with page.expect_navigation():
            page.get_by_role("button", name="Comprar", exact=True).click()
        seen["bought"] = page.locator(".alert").first.inner_text()
        seen["balance_after_buy"] = page.locator("[data-balance]").inner_text()
        seen["cards"] = page.locator(".online-card").count()
        page.wait_for_selector("[data-live].is-live")
        page.evaluate("window.__sameDocument = true")

        seen["stage_selling"] = page.locator("[data-stage]").inner_text().strip()
        worker.in_server(close_sales)
        page.wait_for_function(
            "s => document.querySelector('[data-stage]').textContent.trim() !== s", arg=seen["stage_selling"]
        )
        seen["stage_drawing"] = page.locator("[data-stage]").inner_text().strip()
        worker.allow(4)
        page.wait_for_function("() => document.querySelector('[data-count]').textContent.trim() === '4'")
        # R96: the four balls are marked on the card with no click.
        page.wait_for_function(
            "n => document.querySelectorAll('.online-card:first-child td.is-marked').length >= n", arg=4
        )
        seen["marked_after_4"] = sorted(
            int(t) for t in page.locator(".online-card").first.locator("td.is-marked").all_inner_texts()
        )
        near = page.locator("[data-near]")
        near.wait_for(state="visible")
        seen["near_alert"] = near.inner_text()
        seen["last_ball"] = page.locator("[data-last]").inner_text().strip()
        page.screenshot(path=str(SHOTS / "game-360-near.png"), full_page=True)

        worker.allow(5)
        page.wait_for_function("() => document.querySelector('[data-count]').textContent.trim() === '5'")
        page.wait_for_function(
            "() => document.querySelector('[data-win]').textContent.indexOf('Ganhou') >= 0"
        )
        seen["won_alert"] = page.locator("[data-win]").inner_text()
        seen["prizes"] = page.locator("[data-prizes]").inner_text()
        seen["balance_after_line"] = page.locator("[data-balance]").inner_text()  # paid at the end
        seen["same_document"] = page.evaluate("window.__sameDocument === true")
        page.screenshot(path=str(SHOTS / "game-360-won.png"), full_page=True)
        seen["widths"]["game"] = page.evaluate("document.documentElement.scrollWidth")

        # --- 4. marking by hand (R96): the next ball arrives unmarked; a tap marks it ---------
        page.get_by_label("Marcação").select_option("manual")
        with page.expect_navigation():
            page.get_by_role("button", name="Mudar a marcação").click()
        page.wait_for_selector("[data-live].is-live")
        page.evaluate("window.__sameDocument = true")  # the marking's form reloaded the page
        worker.allow(6)
        page.wait_for_function("() => document.querySelector('[data-count]').textContent.trim() === '6'")
        cell = page.locator(".online-card").first.locator("td", has_text=str(manual_ball)).first
        seen["manual_before"] = cell.get_attribute("class")
        cell.click()
        seen["manual_after"] = cell.get_attribute("class")
        page.screenshot(path=str(SHOTS / "game-360-manual.png"), full_page=True)

        # --- 5. the bingo ends the game: both prizes paid into the wallet (R97) ----------------
        worker.allow(15)
        page.wait_for_function("() => document.querySelector('[data-count]').textContent.trim() === '15'")
        page.wait_for_function(
            "b => document.querySelector('[data-balance]').textContent.trim() !== b",
            arg=seen["balance_after_buy"].strip(),
        )
        seen["balance_after_prize"] = page.locator("[data-balance]").inner_text()
        seen["same_document_at_end"] = page.evaluate("window.__sameDocument === true")

        # --- 6. the wallet, by links -----------------------------------------------------------
        page.get_by_role("link", name="A minha carteira").first.click()
        page.wait_for_url(f"{base}/jogador/carteira/")
        seen["statement"] = page.locator("main").inner_text()
        page.screenshot(path=str(SHOTS / "wallet-360.png"), full_page=True)
        seen["widths"]["wallet"] = page.evaluate("document.documentElement.scrollWidth")
        return seen

    worker.thread.start()
    try:
        seen = browser(play)
    finally:
        worker.stop()
    assert not worker.errors, worker.errors
    assert not errors, "the browser's console:\n" + "\n".join(errors)

    sale = Sale.objects.get(game=game, buyer=player)
    assert (sale.first_number, sale.last_number) == (8, 9)
    assert seen["lobby_heading"] == "Bingo online"
    assert "50" in seen["lobby_wallet"]
    assert seen["cost"] == "20 CVE"
    assert seen["bought"] == "2 cartões comprados por 20 CVE."
    assert "30" in seen["balance_after_buy"]
    assert seen["cards"] == 2
    assert seen["marked_after_4"] == sorted(first_row[:4])  # R96: marked with no click
    assert seen["near_alert"].startswith("Falta um número")  # R95
    assert "A-1 n.º 8" in seen["near_alert"]
    assert seen["stage_drawing"] != seen["stage_selling"]
    assert seen["last_ball"] == str(first_row[3])
    assert seen["won_alert"] == "Ganhou: Prémio de linha"  # apart from the one-to-go warning
    game.refresh_from_db()
    assert game.state == Game.State.FINISHED
    won = set(PrizeWinner.objects.filter(prize__game=game, series=sale.series, card_number=8))
    assert {w.prize.kind for w in won} >= {"line", "bingo"}
    prize_entries = list(WalletEntry.objects.filter(player=player, kind="prize"))
    assert {e.prize_payment.winner for e in prize_entries} == won  # R97: paid with no action by the player
    assert wallet_balance(player=player) == Decimal("30.00") + sum(e.amount for e in prize_entries)
    # The line's prize is paid when the game ends, not at its ball (R44, R50): the page said so.
    assert seen["balance_after_line"].strip() == seen["balance_after_buy"].strip()
    assert seen["balance_after_prize"].strip() != seen["balance_after_buy"].strip()
    assert seen["same_document_at_end"]
    assert seen["same_document"]  # the balls and the prize came over the websocket
    # No page scrolls sideways on the phone.
    assert all(width <= PHONE["width"] for width in seen["widths"].values()), seen["widths"]
    assert "is-marked" not in (seen["manual_before"] or "")  # R96 by hand: not marked by itself
    assert "is-drawn" in (seen["manual_before"] or "")
    assert "is-marked" in (seen["manual_after"] or "")
    assert "Prémio" in seen["statement"]
    assert "Depósito" in seen["statement"]
    assert worker.drawn == order[:15]
