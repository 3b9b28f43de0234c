"""The self-service account (issue 25 point 3) in a real browser (Chromium + uvicorn, in this
process: the mails land in ``django.core.mail.outbox`` and the ``clock`` fixture moves
``timezone.now`` for the server too), in Portuguese at a phone's width:

* the password reset from the login page's link, through the mail's link, to a login with the
  new password (the old one refused);
* a new player verifies the e-mail from the mail's link, having asked for it again on their page;
* «fazer uma pausa»: the player takes a break of 24 hours, the game page refuses to sell, and a
  day later it sells again;
* the hall's mandatory break after a session's time limit refuses the login, saying until when,
  then lets the player in.
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from bingo.common.roles import Role
from bingo.models import Game, OnlineRoom, Player, PlayerExclusion, PlaySession, Sale
from halls.models import Hall
from tests.autodraw.helpers import Clock
from tests.e2e.conftest import RunInBrowser
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.online.helpers import OnlineSetup
from tests.protection.conftest import WEDNESDAY_NOON

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000
PHONE = {"width": 360, "height": 740}
NEW_PASSWORD = "girassol-azul-do-mindelo-77"


def _path(message: mail.EmailMessage, prefix: str) -> str:
    found = re.search(rf"https?://[^/\s]+({re.escape(prefix)}[^\s]+/)", message.body)
    assert found is not None, message.body
    return found.group(1)


def _page(context: Any) -> Any:
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.set_viewport_size(PHONE)
    return page


def _log_in(page: Any, base: str, username: str, password: str = DEFAULT_PASSWORD) -> None:
    page.goto(f"{base}/entrar/")
    page.get_by_label("Nome de utilizador").fill(username)
    page.get_by_label("Palavra-passe").fill(password)
    with page.expect_navigation():
        page.get_by_role("button", name="Entrar").click()


def test_a_player_resets_the_password_from_the_mail_and_logs_in_with_the_new_one(
    asgi_served: tuple[str, asyncio.AbstractEventLoop], browser: RunInBrowser[Any]
) -> None:
    base, _loop = asgi_served
    UserFactory(username="rosa", email="rosa@example.cv", roles=[Role.PLAYER])

    def ask(context: Any) -> dict[str, Any]:
        page = _page(context)
        page.goto(f"{base}/entrar/")
        with page.expect_navigation():
            page.get_by_role("link", name="Esqueceu-se da palavra-passe?").click()
        page.get_by_label("E-mail").fill("rosa@example.cv")
        with page.expect_navigation():
            page.get_by_role("button", name="Enviar-me a ligação").click()
        return {"url": page.url, "text": page.locator("#reset-sent").inner_text()}

    asked = browser(ask)
    assert asked["url"] == f"{base}/entrar/recuperar/enviado/"
    assert "Se alguma conta tiver este endereço de e-mail" in asked["text"]
    assert len(mail.outbox) == 1
    link = _path(mail.outbox[0], "/entrar/recuperar/")

    def reset_and_log_in(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = _page(context)
        page.goto(base + link)
        page.get_by_label("Nova palavra-passe", exact=True).fill(NEW_PASSWORD)
        page.get_by_label("Confirmação da nova palavra-passe").fill(NEW_PASSWORD)
        with page.expect_navigation():
            page.get_by_role("button", name="Guardar a nova palavra-passe").click()
        seen["done"] = page.locator("#reset-complete").inner_text()
        seen["width"] = page.evaluate("document.documentElement.scrollWidth")
        _log_in(page, base, "rosa", DEFAULT_PASSWORD)  # the old password no longer opens it
        seen["old_refused"] = page.locator(".alert-error").first.inner_text()
        _log_in(page, base, "rosa", NEW_PASSWORD)
        seen["landed"] = page.url
        return seen

    seen = browser(reset_and_log_in)
    assert "A sua nova palavra-passe foi guardada" in seen["done"]
    assert seen["width"] <= PHONE["width"]
    assert "O nome de utilizador ou a palavra-passe" in seen["old_refused"]
    assert seen["landed"] == f"{base}/jogador/"


def test_a_new_player_verifies_the_e_mail_from_the_link_sent_again(
    asgi_served: tuple[str, asyncio.AbstractEventLoop], browser: RunInBrowser[Any]
) -> None:
    base, _loop = asgi_served
    site = OnlineSetup(name="Salão Verificado")
    player = site.player("0", username="joana")
    Player.objects.filter(pk=player.pk).update(email_verified_at=None)
    type(player.user).objects.filter(pk=player.pk).update(email="joana@example.cv")

    def ask_again(context: Any) -> dict[str, Any]:
        page = _page(context)
        _log_in(page, base, "joana")
        notice = page.locator("#email-unverified").inner_text()
        with page.expect_navigation():
            page.get_by_role("button", name="Enviar-me a ligação de novo").click()
        return {"notice": notice, "message": page.locator(".messages .alert").first.inner_text()}

    asked = browser(ask_again)
    assert "ainda não está verificado" in asked["notice"]
    assert asked["message"] == "Enviámos de novo a ligação para joana@example.cv."
    link = _path(mail.outbox[-1], "/jogador/email/verificar/")

    def open_the_link(context: Any) -> dict[str, Any]:
        page = _page(context)
        page.goto(base + link)  # on another device: no login needed
        verified = page.locator("#email-verification").inner_text()
        _log_in(page, base, "joana")
        return {"verified": verified, "notice_left": page.locator("#email-unverified").count()}

    opened = browser(open_the_link)
    assert "joana@example.cv está verificado" in opened["verified"]
    assert opened["notice_left"] == 0
    assert Player.objects.get(pk=player.pk).email_verified_at is not None


def test_a_player_takes_a_break_of_24_hours_and_buys_again_once_it_ends(
    asgi_served: tuple[str, asyncio.AbstractEventLoop], browser: RunInBrowser[Any], clock: Clock
) -> None:
    base, _loop = asgi_served
    clock.now = WEDNESDAY_NOON
    site = OnlineSetup(name="Salão da Pausa")
    OnlineRoom.objects.filter(pk=site.online.pk).update(sales_seconds=3600)
    game = site.game(site.series(1, price="10.00"))
    player = site.player("100.00", username="maria")

    def buy(page: Any) -> str:
        page.goto(f"{base}/online/jogo/{game.pk}/")
        page.get_by_label("Quantos cartões?").fill("1")
        with page.expect_navigation():
            page.get_by_role("button", name="Comprar", exact=True).click()
        return page.locator(".messages .alert").first.inner_text()

    def take_the_break(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        page = _page(context)
        _log_in(page, base, "maria")
        page.goto(f"{base}/jogador/protecao/")
        page.get_by_label("24 horas").check()
        page.get_by_label(
            "Compreendo que não posso comprar cartões nem depositar até a pausa terminar"
        ).check()
        with page.expect_navigation():
            page.get_by_role("button", name="Começar a pausa").click()
        seen["message"] = page.locator(".messages .alert").first.inner_text()
        seen["status"] = page.locator("#exclusion-status").inner_text()
        seen["width"] = page.evaluate("document.documentElement.scrollWidth")
        # During the break the game page offers nothing to buy (issue 25 point 2), and a purchase
        # sent anyway (a page opened before the break) is refused by the server.
        page.goto(f"{base}/online/jogo/{game.pk}/")
        seen["buy_forms"] = page.locator(".online-buy").count()
        token = page.locator("[name=csrfmiddlewaretoken]").first.input_value()
        answer = page.request.post(
            f"{base}/online/jogo/{game.pk}/comprar/",
            form={"quantity": "1", "key": "during-the-break", "csrfmiddlewaretoken": token},
        )
        seen["refused"] = answer.text()
        return seen

    first = browser(take_the_break)
    assert first["message"] == "A sua pausa começou: pode voltar a jogar a partir de 12/03/2026 12:00 (R101)."
    assert "Numa pausa" in first["status"]
    assert "Está numa pausa do jogo até 12/03/2026 12:00" in first["status"]
    assert first["width"] <= PHONE["width"]
    assert first["buy_forms"] == 0
    assert (
        "Está numa pausa do jogo até 12/03/2026 12:00 (R101): não pode comprar cartões." in first["refused"]
    )
    assert PlayerExclusion.objects.get(player=player).kind == "pause"
    assert not Sale.objects.filter(buyer=player).exists()

    clock.advance(timedelta(hours=24).total_seconds())  # the break ends by itself
    # The game still sells a day later (its window is not what this test is about).
    Game.objects.filter(pk=game.pk).update(sales_close_at=timezone.now() + timedelta(hours=1))

    def buy_again(context: Any) -> dict[str, Any]:
        page = _page(context)
        _log_in(page, base, "maria")
        bought = buy(page)
        page.goto(f"{base}/jogador/protecao/")
        return {"bought": bought, "pause_form": page.locator("#pause-form").count()}

    second = browser(buy_again)
    assert second["bought"] == "1 cartão comprado por 10 CVE."
    assert second["pause_form"] == 1
    assert Sale.objects.filter(buyer=player).count() == 1


def test_the_login_waits_for_the_hall_s_break_after_a_session_s_time_limit(
    asgi_served: tuple[str, asyncio.AbstractEventLoop], browser: RunInBrowser[Any], clock: Clock
) -> None:
    base, _loop = asgi_served
    clock.now = WEDNESDAY_NOON
    site = OnlineSetup(name="Salão do Limite")
    Hall.objects.filter(pk=site.hall.pk).update(play_cooloff_minutes=45)
    player = site.player("100.00", username="rui")
    PlaySession.objects.create(
        player=player, started_at=clock.now - timedelta(hours=1), last_seen_at=clock.now,
        ended_at=clock.now, end_reason=PlaySession.EndReason.TIME_LIMIT,
    )  # fmt: skip

    def try_to_log_in(context: Any) -> dict[str, Any]:
        page = _page(context)
        _log_in(page, base, "rui")
        return {"url": page.url, "alert": page.locator(".alert-error").first.inner_text()}

    refused = browser(try_to_log_in)
    assert refused["url"] == f"{base}/entrar/"
    assert "a sala impõe uma pausa de 45 minutos depois dele (R101)" in refused["alert"]
    assert "às 11/03/2026 12:45" in refused["alert"]

    clock.advance(45 * 60)

    let_in = browser(lambda context: (_log_in(p := _page(context), base, "rui"), p.url)[1])
    assert let_in == f"{base}/jogador/"
