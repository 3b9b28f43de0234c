"""Responsible gaming (R101) in a real browser (Chromium + uvicorn), with the injected clock (the
``clock`` fixture moves ``timezone.now`` for the live server too, which runs in this process):

a player sets a weekly loss limit on «Jogo responsável», buys until it is reached, is refused on
the game page with a message saying which limit and how much is left; asks to raise it and sees
the old limit still in force with the raise pending; 24 hours later (the clock moved) sees the
raise in force and buys again; then excludes themself and is offered nothing to buy (the game
page says why, once), and after logging out and in again still is not, a purchase sent anyway
refused; finally a fault of the system (R98) declared by the
manager on the game's page refunds every card once, and the history shows the refund and why.
Everything in Portuguese, at a phone's width.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse

from bingo.engine import GameState
from bingo.models import OnlineRoom, PlayerExclusion, PlayerLimit, Sale, WalletEntry
from bingo.players.selectors import wallet_balance
from tests.autodraw.helpers import Clock
from tests.e2e.conftest import RunInBrowser
from tests.factories import DEFAULT_PASSWORD
from tests.online.helpers import OnlineSetup
from tests.protection.conftest import WEDNESDAY_NOON

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000
PHONE = {"width": 360, "height": 740}


def test_a_player_hits_a_loss_limit_raises_it_a_day_later_then_excludes_themself(
    asgi_served: tuple[str, asyncio.AbstractEventLoop],
    browser: RunInBrowser[Any],
    clock: Clock,
) -> None:
    base, _loop = asgi_served
    clock.now = WEDNESDAY_NOON  # the hall's week runs Monday 9 to Sunday 15 March
    site = OnlineSetup(name="Salão Protegido")
    OnlineRoom.objects.filter(pk=site.online.pk).update(sales_seconds=600)
    game = site.game(site.series(1, price="10.00"))  # sells at 10 CVE a card, no announced close
    player = site.player("100.00", username="maria")

    def login(page: Any) -> None:
        page.set_default_timeout(TIMEOUT_MS)
        page.set_viewport_size(PHONE)
        page.goto(f"{base}/entrar/")
        page.get_by_label("Nome de utilizador").fill("maria")
        page.get_by_label("Palavra-passe").fill(DEFAULT_PASSWORD)
        with page.expect_navigation():
            page.get_by_role("button", name="Entrar").click()

    def buy(page: Any, quantity: int) -> str:
        page.goto(f"{base}/online/jogo/{game.pk}/")
        page.get_by_label("Quantos cartões?").fill(str(quantity))
        with page.expect_navigation():
            page.get_by_role("button", name="Comprar", exact=True).click()
        return page.locator(".messages .alert").first.inner_text()

    def set_limit(page: Any, amount: str) -> str:
        page.goto(f"{base}/jogador/protecao/")
        page.get_by_label("Limite de").select_option("loss")
        page.get_by_label("Período").select_option("week")
        page.get_by_label("Montante (vazio: sem limite)").fill(amount)
        with page.expect_navigation():
            page.get_by_role("button", name="Guardar o limite").click()
        return page.locator(".messages .alert").first.inner_text()

    def week_row(page: Any) -> dict[str, str]:
        row = page.locator("#limit-loss-week")
        return {
            "in_force": row.locator("[data-in-force]").inner_text(),
            "used": row.locator("[data-used]").inner_text(),
            "left": row.locator("[data-left]").inner_text(),
            "pending": row.locator("[data-pending]").inner_text(),
        }

    # --- 1. a limit of 20 a week, two cards, then refused; a raise asked for -------------------
    def hit_the_limit(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        login(page)
        page.locator("#wallet-summary").get_by_role("link", name="Jogo responsável").click()
        page.wait_for_url(f"{base}/jogador/protecao/")
        seen["heading"] = page.locator("h1").inner_text()
        seen["width"] = page.evaluate("document.documentElement.scrollWidth")
        seen["set"] = set_limit(page, "20")
        seen["row_set"] = week_row(page)
        seen["bought"] = buy(page, 2)
        seen["refused"] = buy(page, 1)
        seen["raise"] = set_limit(page, "50")
        seen["row_raised"] = week_row(page)
        seen["refused_after_raise"] = buy(page, 1)
        return seen

    first = browser(hit_the_limit)
    assert first["heading"] == "Jogo responsável"
    assert first["width"] <= PHONE["width"]
    assert "está já em vigor" in first["set"]
    assert first["row_set"]["in_force"].strip() == "20 CVE"
    assert first["bought"] == "2 cartões comprados por 20 CVE."
    assert first["refused"] == (
        "O seu limite semanal de perdas de 20 CVE seria ultrapassado: restam 0 CVE esta semana e "
        "estes cartões custam 10 CVE (R101). Nada foi comprado."
    )
    assert "entra em vigor em 12/03/2026 12:00" in first["raise"]
    assert first["row_raised"]["in_force"].strip() == "20 CVE"  # still the old limit
    assert first["row_raised"]["used"].strip() == "20 CVE"
    assert "50 CVE" in first["row_raised"]["pending"]
    assert "12/03/2026 12:00" in first["row_raised"]["pending"]
    assert "limite semanal de perdas de 20 CVE" in first["refused_after_raise"]
    assert Sale.objects.filter(buyer=player).count() == 1
    assert wallet_balance(player=player) == Decimal("80.00")

    # --- 2. 24 hours later the raise is in force: three more cards; then self-exclusion --------
    clock.advance(timedelta(hours=24).total_seconds())

    def raised_then_exclude(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = context.new_page()
        login(page)
        page.goto(f"{base}/jogador/protecao/")
        seen["row"] = week_row(page)
        seen["bought"] = buy(page, 3)
        page.goto(f"{base}/jogador/protecao/")
        page.get_by_label("1 mês").check()
        page.get_by_label("Compreendo que não poderei comprar cartões").check()
        with page.expect_navigation():
            page.get_by_role("button", name="Excluir-me").click()
        seen["excluded"] = page.locator("#exclusion-status").inner_text()
        seen["form_gone"] = page.locator("#exclusion-form").count() == 0
        page.goto(f"{base}/online/jogo/{game.pk}/")
        seen["notice"] = page.locator("#protection-notice").inner_text()
        seen["notices"] = page.locator("#protection-notice").count()
        seen["buy_forms"] = page.locator(".online-buy").count()  # nothing to buy is offered
        seen["game_width"] = page.evaluate("document.documentElement.scrollWidth")
        with page.expect_navigation():
            page.get_by_role("button", name="Sair").click()
        return seen

    second = browser(raised_then_exclude)
    assert second["row"]["in_force"].strip() == "50 CVE"
    assert second["row"]["pending"].strip() == "—"
    assert second["bought"] == "3 cartões comprados por 30 CVE."
    assert "Excluiu-se do jogo até 12/04/2026 12:00" in second["excluded"]
    assert second["form_gone"]
    assert "Excluiu-se do jogo até 12/04/2026 12:00 (R101): não pode comprar cartões." in second["notice"]
    assert second["notices"] == 1
    assert second["buy_forms"] == 0
    assert second["game_width"] <= PHONE["width"]

    # --- 3. a new login: still excluded ---------------------------------------------------------
    def log_in_again(context: Any) -> dict[str, Any]:
        page = context.new_page()
        login(page)
        page.goto(f"{base}/online/")
        notice = page.locator("#protection-notice").inner_text()
        offered = page.get_by_role("link", name="Comprar cartões").count()
        # A purchase sent anyway (a page opened before the exclusion): the server refuses it.
        token = page.locator("[name=csrfmiddlewaretoken]").first.input_value()
        answer = page.request.post(
            f"{base}/online/jogo/{game.pk}/comprar/",
            form={"quantity": "1", "key": "after-exclusion", "csrfmiddlewaretoken": token},
        )  # followed to the game page, which shows the refusal
        html = answer.text()
        messages = html.split('<div class="messages">', 1)[1] if '<div class="messages">' in html else ""
        refused = messages.split("</div></div>", 1)[0]
        return {"lobby_notice": notice, "offered": offered, "refused": refused}

    third = browser(log_in_again)
    assert "Excluiu-se do jogo até" in third["lobby_notice"]
    assert third["offered"] == 0
    assert "Excluiu-se do jogo até" in third["refused"]
    assert sum(s.quantity for s in Sale.objects.filter(buyer=player)) == 5
    assert wallet_balance(player=player) == Decimal("50.00")
    assert PlayerLimit.objects.filter(player=player).count() == 2
    assert PlayerExclusion.objects.get(player=player).source == "self"

    # --- 4. a fault of the system (R98): the manager declares the game null, every card comes
    # back, and the excluded player still sees it in «O meu histórico» -------------------------
    def declare_the_fault(context: Any) -> dict[str, Any]:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{base}/entrar/")
        page.get_by_label("Nome de utilizador").fill(site.manager.username)
        page.get_by_label("Palavra-passe").fill(DEFAULT_PASSWORD)
        with page.expect_navigation():
            page.get_by_role("button", name="Entrar").click()
        page.goto(base + reverse("games:game_detail", args=[game.pk]))
        page.get_by_text("Uma avaria do sistema impede decidir esta jogada online").click()
        form = page.locator("[data-fault-form]")
        form.get_by_label("Motivo").fill("Servidor de extração sem resposta")
        with page.expect_navigation():
            form.get_by_role("button", name="Declarar a avaria do sistema e reembolsar").click()
        return {"message": page.locator(".messages .alert").first.inner_text()}

    fault = browser(declare_the_fault)
    assert fault["message"]
    game.refresh_from_db()
    assert game.state == GameState.ANNULLED.value
    assert "Servidor de extração sem resposta" in game.state_reason

    def history_after_the_fault(context: Any) -> dict[str, Any]:
        page = context.new_page()
        login(page)
        page.goto(f"{base}/jogador/historico/")
        row = page.locator(f"tr[data-game='{game.pk}']")
        return {
            "outcome": row.get_attribute("data-outcome"),
            "net": row.get_attribute("data-net"),
            "reason": row.locator("[data-reason]").inner_text(),
            "prizes": row.locator("td").nth(6).inner_text(),
        }

    after = browser(history_after_the_fault)
    assert "Servidor de extração sem resposta" in after["reason"]
    assert "R98" in after["reason"]
    assert "Reembolso 50 CVE" in after["prizes"]
    assert Decimal(after["net"]) == Decimal("0")
    assert wallet_balance(player=player) == Decimal("100.00")  # every card back, once
    refunds = WalletEntry.objects.filter(player=player, kind=WalletEntry.Kind.REFUND)
    # One refund per purchase (2 and 3 cards), each once: 50 CVE in all.
    assert sorted(e.amount for e in refunds) == [Decimal("20.00"), Decimal("30.00")]
