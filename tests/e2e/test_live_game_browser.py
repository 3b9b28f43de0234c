"""The live game as players expect it (issue 25), in a real browser at a phone's width: the sound
switch (off until the player turns it on, remembered), each new ball called aloud in Portuguese
(R77: the 75-ball letter first) through a Portuguese voice or a chime where the device has none,
the new ball animated (still where the player asks for less motion), the cards sorted best first
with «Faltam N» / «Falta 1» for the prize in play, the 75-ball card under B I N G O, and a prize
won announced apart from the one-to-go warning (R95).

What is real: the page, its scripts (static/js/online_game.js, speech.js) and styles, the
websocket bringing each ball, the caller's draw (``game_draw_ball``, balls keyed in from the
blower) and award (``prize_award``), run in the server's loop as a request would. What is stubbed:
the device's speech synthesis (headless Chromium has no voices to hear): ``speechSynthesis`` and
``SpeechSynthesisUtterance`` are replaced before the page's scripts run by a recorder with the
voices the test gives it, so the spoken call is read from the page's speech queue
(``window.bingoSpeech.spoken``) and the recorder, never from audio.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from bingo.draw import services as draw_services
from bingo.engine import Variant
from bingo.engine.calls import ball_call
from bingo.models import Game
from bingo.online import services as online_services
from cards.selectors import card_get
from tests.e2e.conftest import RunInBrowser, log_in
from tests.e2e.test_online_browser import Worker
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000
PHONE = {"width": 360, "height": 740}
#: Where the phone-width screenshots go, to look at (not kept by the test).
SHOTS = Path(os.environ.get("E2E_SHOTS_DIR", "/tmp/e2e-live-shots"))

#: The device's speech synthesis, recorded: ``window.__voices`` are the voices it has (the test
#: may change them), ``window.__utterances`` what it was asked to say, each ended at once.
SPEECH_STUB = """
window.__voices = %s;
window.__utterances = [];
window.SpeechSynthesisUtterance = function (text) { this.text = text; };
Object.defineProperty(window, "speechSynthesis", { configurable: true, value: {
  getVoices: function () { return window.__voices; },
  speak: function (u) {
    window.__utterances.push({ text: u.text, lang: u.lang, voice: u.voice ? u.voice.name : null });
    setTimeout(function () { if (u.onend) { u.onend(); } }, 5);
  },
  cancel: function () {},
  addEventListener: function () {}
}});
"""
PT_PT = '{"name": "Joana", "lang": "pt-PT"}'
PT_BR = '{"name": "Luciana", "lang": "pt-BR"}'
EN_US = '{"name": "Samantha", "lang": "en-US"}'


def _voices(*voices: str) -> str:
    return SPEECH_STUB % ("[" + ", ".join(voices) + "]")


def _to_go(grid: list[list[int | None]], drawn: set[int], prize: str) -> int:
    """Numbers a 90-ball card lacks for the line (its best row) or the bingo, counted here."""
    rows = [[n for n in row if n is not None] for row in grid]
    if prize == "line":
        return min(sum(n not in drawn for n in row) for row in rows)
    return sum(n not in drawn for row in rows for n in row)


def _counter(n: int) -> str:
    return "Prémio completo" if n == 0 else ("Falta 1" if n == 1 else f"Faltam {n}")


def _watch(page: Any, errors: list[str]) -> Any:
    page.set_default_timeout(TIMEOUT_MS)
    page.set_viewport_size(PHONE)
    page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
    return page


def _wait_count(page: Any, count: int) -> None:
    page.wait_for_function(
        "n => document.querySelector('[data-count]').textContent.trim() === n", arg=str(count)
    )


def _cards_shown(page: Any) -> list[tuple[str, str]]:
    return [
        (
            figure.locator("figcaption > span").first.inner_text(),
            figure.locator("[data-to-go-text]").inner_text(),
        )
        for figure in page.locator("figure.online-card").all()
    ]


def test_a_player_hears_each_ball_sees_it_roll_in_finds_the_best_card_first_and_the_win_apart(
    asgi_served: tuple[str, asyncio.AbstractEventLoop], browser: RunInBrowser[Any]
) -> None:
    base, loop = asgi_served
    worker = Worker(loop)
    site = OnlineSetup(name="Salão Som")
    series = site.series(1)
    game = site.game(series)
    player = site.player("100.00", username="ouvinte")
    online_services.online_buy(player=player, game=game, quantity=3, key="buy-3")
    game = site.drawing(game)
    grids = {n: card_get(card_set=site.card_set, number=n) for n in (1, 2, 3)}
    # The balls, all the third card's: its first row three balls in, four, five (the line), then
    # its second row and four of the third (one from the bingo).
    third = [[n for n in row if n is not None] for row in grids[3]]
    worker.in_server(lambda: site.key(game, *third[0][:3]))
    errors: list[str] = []

    def draw(*numbers: int) -> None:
        worker.in_server(lambda: site.key(Game.objects.get(pk=game.pk), *numbers))

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        context.add_init_script(_voices(EN_US, PT_BR, PT_PT))
        page = _watch(context.new_page(), errors)
        log_in(page, base, "ouvinte", "/jogador/")
        page.goto(f"{base}/online/jogo/{game.pk}/")
        page.wait_for_selector("[data-live].is-live")
        page.evaluate("window.__sameDocument = true")
        sound = page.locator("[data-sound]")
        seen["switch"] = (
            sound.is_visible(),
            sound.inner_text(),
            page.evaluate("localStorage.getItem('bingo-sound')"),
        )
        seen["cards_loaded"] = _cards_shown(page)
        seen["in_play"] = page.locator("[data-in-play]").inner_text()

        # Ball 4 with the sound off: shown and animated, not said; the third card is one away.
        draw(third[0][3])
        _wait_count(page, 4)
        seen["animated"] = page.evaluate(
            "() => { const b = document.querySelector('[data-last]');"
            " return [b.classList.contains('is-new'), getComputedStyle(b).animationName]; }"
        )
        page.emulate_media(reduced_motion="reduce")
        seen["reduced_motion"] = page.evaluate(
            "getComputedStyle(document.querySelector('[data-last]')).animationName"
        )
        page.emulate_media(reduced_motion="no-preference")
        seen["cards_at_4"] = _cards_shown(page)
        seen["near_at_4"] = page.locator("[data-near]").inner_text()
        seen["win_hidden_at_4"] = page.locator("[data-win]").is_hidden()
        seen["said_while_off"] = page.evaluate(
            "[window.bingoSpeech.spoken.length, window.__utterances.length]"
        )

        # The player turns the sound on: remembered; ball 5 is said in Portuguese by the pt-PT voice.
        sound.click()
        seen["switch_on"] = (sound.inner_text(), page.evaluate("localStorage.getItem('bingo-sound')"))
        draw(third[0][4])
        _wait_count(page, 5)
        page.wait_for_function("() => window.__utterances.length === 1")
        seen["spoken_5"] = page.evaluate("window.bingoSpeech.spoken.slice()")
        seen["utterances_5"] = page.evaluate("window.__utterances.slice()")
        seen["cards_at_5"] = _cards_shown(page)

        # Nine more of the card's numbers, then the caller awards the line: the win in its own
        # alert, the warning that the card is one from the bingo in its own status.
        draw(*third[1], *third[2][:4])
        _wait_count(page, 14)
        worker.in_server(
            lambda: draw_services.prize_award(
                game=Game.objects.get(pk=game.pk), user=site.caller, kind="line"
            )
        )
        page.wait_for_function("() => !document.querySelector('[data-win]').hidden")
        page.wait_for_function(
            "() => document.querySelector('[data-in-play]').textContent.indexOf('Bingo') >= 0"
        )
        seen["win"] = (
            page.locator("[data-win]").inner_text(),
            page.locator("[data-win]").get_attribute("role"),
        )
        seen["near"] = (
            page.locator("[data-near]").inner_text(),
            page.locator("[data-near]").get_attribute("role"),
        )
        seen["in_play_after"] = page.locator("[data-in-play]").inner_text()
        seen["cards_after"] = _cards_shown(page)
        page.wait_for_function("() => window.__utterances.length >= 2")
        seen["last_said"] = page.evaluate("window.__utterances[window.__utterances.length - 1].text")
        seen["width"] = page.evaluate("document.documentElement.scrollWidth")
        page.screenshot(path=str(SHOTS / "game-360-win-and-near.png"), full_page=True)
        seen["same_document"] = page.evaluate("window.__sameDocument === true")  # the balls: websocket

        # Back later: the sound is still on, with no click.
        page.reload()
        page.wait_for_selector("[data-live].is-live")
        seen["switch_reloaded"] = page.locator("[data-sound]").inner_text()
        return seen

    seen = browser(scenario)
    assert not errors, errors

    def expected(drawn: list[int], prize: str) -> list[tuple[str, str]]:
        counts = {n: _to_go(grids[n], set(drawn), prize) for n in grids}
        return [(f"A-1 n.º {n}", _counter(counts[n])) for n in sorted(grids, key=lambda n: (counts[n], n))]

    assert seen["switch"] == (True, "Ligar o som", None)  # off by default
    assert seen["in_play"] == "Em jogo: Linha"
    assert seen["cards_loaded"] == expected(third[0][:3], "line")
    assert seen["cards_loaded"][0] == ("A-1 n.º 3", "Faltam 2")
    assert seen["animated"] == [True, "online-ball-in"]
    assert seen["reduced_motion"] == "none"
    assert seen["cards_at_4"] == expected(third[0][:4], "line")
    assert seen["cards_at_4"][0] == ("A-1 n.º 3", "Falta 1")
    assert seen["near_at_4"] == "Falta um número: A-1 n.º 3 · Prémio de linha"  # R95
    assert seen["win_hidden_at_4"]
    assert seen["said_while_off"] == [0, 0]
    assert seen["switch_on"] == ("Desligar o som", "on")
    call = ball_call(Variant.B90, third[0][4])
    assert seen["spoken_5"] == [{"text": call, "lang": "pt-PT", "voice": "Joana", "via": "voice"}]
    assert seen["utterances_5"] == [{"text": call, "lang": "pt-PT", "voice": "Joana"}]
    assert seen["cards_at_5"][0] == ("A-1 n.º 3", "Prémio completo")
    assert seen["win"] == ("Ganhou: Prémio de linha", "alert")
    assert seen["near"] == ("Falta um número: A-1 n.º 3 · Prémio de bingo", "status")
    assert seen["in_play_after"] == "Em jogo: Bingo"
    drawn = [*third[0], *third[1], *third[2][:4]]
    assert seen["cards_after"] == expected(drawn, "bingo")
    assert seen["cards_after"][0] == ("A-1 n.º 3", "Falta 1")
    assert seen["last_said"] == ball_call(Variant.B90, third[2][3])
    assert seen["width"] <= PHONE["width"]
    assert seen["same_document"]
    assert seen["switch_reloaded"] == "Desligar o som"


def test_r77_the_75_ball_card_shows_b_i_n_g_o_and_its_balls_are_called_with_their_letter(
    asgi_served: tuple[str, asyncio.AbstractEventLoop], browser: RunInBrowser[Any]
) -> None:
    base, loop = asgi_served
    worker = Worker(loop)
    site = OnlineSetup(name="Salão 75", variant="75")
    game = site.game(site.series(1))
    player = site.player("100.00", username="jogadora75")
    online_services.online_buy(player=player, game=game, quantity=2, key="buy-75")
    game = site.drawing(game)
    errors: list[str] = []

    def draw(number: int) -> None:
        worker.in_server(lambda: site.key(Game.objects.get(pk=game.pk), number))

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        context.add_init_script(_voices(EN_US, PT_BR))  # no pt-PT voice: any Portuguese one
        page = _watch(context.new_page(), errors)
        log_in(page, base, "jogadora75", "/jogador/")
        page.goto(f"{base}/online/jogo/{game.pk}/")
        page.wait_for_selector("[data-live].is-live")
        seen["headings"] = [
            card.locator("thead th").all_inner_texts() for card in page.locator("figure.online-card").all()
        ]
        seen["free_centre"] = page.locator("figure.online-card").first.locator("td.is-free").count()
        page.get_by_role("button", name="Ligar o som").click()
        draw(12)
        _wait_count(page, 1)
        page.wait_for_function("() => window.__utterances.length === 1")
        seen["said_12"] = page.evaluate("window.__utterances[0]")
        page.screenshot(path=str(SHOTS / "game-360-75.png"), full_page=True)
        seen["headings_after_ball"] = (
            page.locator("figure.online-card").first.locator("thead th").all_inner_texts()
        )
        # A device with no Portuguese voice: a short chime instead.
        page.evaluate(f"window.__voices = [{EN_US}]")
        draw(61)
        _wait_count(page, 2)
        page.wait_for_function("() => window.bingoSpeech.spoken.length === 2")
        seen["spoken"] = page.evaluate("window.bingoSpeech.spoken.slice()")
        seen["utterances"] = page.evaluate("window.__utterances.length")
        return seen

    seen = browser(scenario)
    assert not errors, errors
    assert seen["headings"] == [["B", "I", "N", "G", "O"]] * 2
    assert seen["free_centre"] == 1  # R72
    assert seen["said_12"] == {"text": "B, doze", "lang": "pt-BR", "voice": "Luciana"}
    assert seen["headings_after_ball"] == ["B", "I", "N", "G", "O"]
    assert seen["spoken"][0]["text"] == "B, doze"
    assert seen["spoken"][1] == {"text": "O, sessenta e um", "lang": "pt-PT", "voice": None, "via": "chime"}
    assert seen["utterances"] == 1  # the chime said nothing through the speech synthesis
