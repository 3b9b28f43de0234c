"""A whole 90-ball game in real browser windows, as the issue's "done when" puts it: a caller runs
the game from the console with the room's display open in another window, claims are checked
and the line is shared, the cashier pays a winner against the card, and the jackpot moves as
the rules say (R6, R9-R11, R13, R28, R43-R47, R50).

Three browser contexts, so three people with their own cookies: the room's TV (no login), the
caller and the cashier. The display is never reloaded: everything it shows came over its
websocket.
"""

from __future__ import annotations

import itertools
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from bingo.common.money import money_display
from bingo.draw import selectors as draw_selectors
from bingo.jackpot import selectors as jackpot_selectors
from bingo.jackpot import services as jackpot_services
from bingo.models import Ball, Claim, Game, Prize, PrizePayment, PrizeWinner, Sale
from bingo.sales import selectors as sales_selectors
from cards import selectors as card_selectors
from halls.models import JackpotMovement
from tests.draw.test_services import all_numbers, row
from tests.draw.test_views import Console
from tests.e2e.conftest import RunInBrowser, log_in

pytestmark = pytest.mark.browser

BASE_VALUE = Decimal("5000")
TIMEOUT_MS = 30_000  # a loaded two-core machine runs the server, the browser and the test
CARD = re.compile(r"n\.º (\d+)")

Grid = list[list[int | None]]


def holds_a_line(card: Grid, drawn: set[int]) -> bool:
    return any(set(row(card, r)) <= drawn for r in range(3))


def holds_the_bingo(card: Grid, drawn: set[int]) -> bool:
    return set(all_numbers(card)) <= drawn


def sold_numbers(game: Game) -> list[int]:
    return sorted(
        n
        for first, last in Sale.objects.filter(game=game).values_list("first_number", "last_number")
        for n in range(first, last + 1)
    )


def plan_the_game(cards: dict[int, Grid], line_total: Decimal) -> dict[str, Any]:
    """Two sold cards A and B and the balls to key in: A's first row, then what B's first row
    still needs (so B completes its line after A, before anyone claims), then the rest of A.
    The holders are read from every sold card, not assumed. A pair whose line does not split
    evenly is preferred, so the rounding remainder shows."""
    plans = []
    for a, b in itertools.permutations(cards, 2):
        first_row = row(cards[a], 0)
        line_balls = first_row + [n for n in row(cards[b], 0) if n not in first_row]
        drawn = set(line_balls)
        line_holders = {n for n, card in cards.items() if holds_a_line(card, drawn)}
        no_line = sorted(set(cards) - line_holders)
        if not no_line or holds_a_line(cards[b], set(first_row)):
            continue
        rest = [n for n in all_numbers(cards[a]) if n not in drawn]
        balls = line_balls + rest
        bingo_holders = {n for n, card in cards.items() if holds_the_bingo(card, set(balls))}
        plans.append(
            {
                "a": a,
                "b": b,
                "false_claim": no_line[0],
                "line_balls": line_balls,
                "rest": rest,
                "balls": balls,
                "line_holders": line_holders,
                "bingo_holders": bingo_holders,
            }
        )
    assert plans, "no two sold cards make a shared line"
    return next((p for p in plans if line_total % len(p["line_holders"])), plans[0])


def test_a_caller_runs_a_whole_game_claims_are_checked_and_the_cashier_pays_the_winner(
    asgi_server: str, browser: RunInBrowser[Any], tmp_path: Path
) -> None:
    hall = Console(
        name="Salão da Praia", jackpot_active=True, tax_rate=Decimal("10"), tax_threshold=Decimal("100")
    )
    jackpot_services.jackpot_configure(hall=hall.hall, base_value=BASE_VALUE)
    jackpot_services.jackpot_seed(hall=hall.hall, amount=BASE_VALUE)
    # 11 cards, 1 100 CVE of sales: the line (213 CVE with the jackpot's share out) does not
    # split evenly between two cards, so the rounding remainder shows.
    game = hall.closed(cards=11)  # closing the sales gives the jackpot its 3 % (R10)
    series = hall.series_of(game)
    board = sales_selectors.game_board(game_id=game.pk)
    assert board is not None
    amounts = {str(getattr(p.kind, "value", p.kind)): p.amount for p in board.prizes}
    sold = sold_numbers(game)
    assert len(sold) == 11
    plan = plan_the_game({n: hall.card(game, n) for n in sold}, amounts["line"])
    a, b, balls = plan["a"], plan["b"], plan["balls"]
    # R9: the bingo wins the jackpot within this many balls; A completes it on the last one.
    hall.session.jackpot_balls = len(balls)
    hall.session.save(update_fields=["jackpot_balls"])
    jackpot_before = jackpot_selectors.jackpot_state(hall=hall.hall).balance
    assert jackpot_before == BASE_VALUE + board.jackpot_contribution
    code = card_selectors.card_check_code(series=series, number=a)
    token = draw_selectors.display_token(room=hall.room)
    with translation.override("pt"):  # what the screens say: the site speaks Portuguese first
        no_prize_to_pay = translation.gettext(
            "This card's prizes were already paid, on %(date)s at %(time)s at %(desk)s (R50)."
        ).split("%(date)s")[0]
    base = asgi_server

    def scenario(context: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {"display_counts": [], "console_counts": []}
        # Window 1: the room's TV.
        display = context.new_page()
        display.set_default_timeout(TIMEOUT_MS)
        display.set_viewport_size({"width": 1280, "height": 800})
        display.goto(f"{base}/ecra/{token}/")
        display.wait_for_selector("[data-live].is-live")
        display.evaluate("window.__sameDocument = true")
        seen["display_jackpot_before"] = display.locator("[data-jackpot-value]").inner_text().strip()
        seen["display_jackpot_balls"] = display.locator("[data-jackpot-balls]").inner_text().strip()

        # Window 2: the caller, in a browser context of their own.
        caller_context = context.browser.new_context(locale="en-GB")
        cashier_context = context.browser.new_context(locale="en-GB")
        try:
            page = caller_context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            log_in(page, base, hall.caller.username, "/locutor/")
            page.goto(f"{base}/locutor/jogos/")
            page.locator(f'a[href="/locutor/jogo/{game.pk}/"]').click()
            page.wait_for_url(f"{base}/locutor/jogo/{game.pk}/")

            # A physical draw with the blower's balls, checked at the session's start (R23).
            page.locator("input[name=mode][value=physical]").check()
            page.locator("select[name=ball_set]").select_option(str(hall.ball_set.pk))
            with page.expect_navigation():
                page.locator("button[data-start]").click()
            page.wait_for_selector("input#ball-number")

            def key(number: int) -> None:
                expected = len(seen["console_counts"]) + 1
                page.locator("input#ball-number").fill(str(number))
                with page.expect_navigation():
                    page.locator("button[data-key-ball]").click()
                page.wait_for_selector(f".console-live[data-ball-count='{expected}']")
                seen["console_counts"].append(page.locator("[data-count]").inner_text().strip())
                display.wait_for_function(
                    "n => document.querySelector('[data-count]').textContent.trim() === String(n)",
                    arg=expected,
                )
                seen["display_counts"].append(
                    (
                        display.locator("[data-count]").inner_text().strip(),
                        display.locator("[data-last]").inner_text().strip(),
                    )
                )

            def check_claim(card_number: int, kind: str) -> str:
                form = page.locator("[data-claim-form]")
                form.locator("select[name=series]").select_option(str(series.pk))
                form.locator("input[name=card_number]").fill(str(card_number))
                form.locator("select[name=kind]").select_option(kind)
                with page.expect_navigation():
                    form.locator("button[data-check-claim]").click()
                return page.locator("[data-claim-outcome]").get_attribute("data-claim-outcome") or ""

            def award(kind: str) -> None:
                with page.expect_navigation():
                    page.locator(f"#claim-result button[data-award={kind}]").click()
                # The confirmation step names who shares the prize; confirming awards it.
                with page.expect_navigation():
                    page.locator("[data-confirm-form] button[data-confirm]").click()
                page.wait_for_url(f"{base}/locutor/jogo/{game.pk}/")

            for number in plan["line_balls"]:
                key(number)

            # A false claim: the game goes on (R43).
            seen["false_outcome"] = check_claim(plan["false_claim"], "line")
            seen["false_holders"] = page.locator("[data-claim-holders]").count()

            # Card A's line: every card holding it now is listed («Mais alguma linha?», R46).
            seen["line_outcome"] = check_claim(a, "line")
            seen["line_marked"] = page.locator("[data-claim-card] [data-marked]").count()
            seen["line_holders"] = page.locator("[data-claim-holders] li").all_inner_texts()
            page.screenshot(path=str(tmp_path / "console-line-claim.png"), full_page=True)
            award("line")
            page.wait_for_selector(".console-prize.is-awarded[data-prize=line]")
            seen["console_line_winners"] = page.locator(
                "[data-prize=line] [data-winners] li"
            ).all_inner_texts()
            display.wait_for_selector("[data-prize=line].is-won")
            seen["display_line_winners"] = display.locator(
                "[data-prize=line] [data-prize-winners]"
            ).inner_text()

            for number in plan["rest"]:
                key(number)

            # The bingo: the line is awarded already, so the claim goes straight to it (R44).
            seen["bingo_kind_offered"] = page.locator("[data-claim-form] select[name=kind]").input_value()
            seen["bingo_outcome"] = check_claim(a, "bingo")
            seen["bingo_holders"] = page.locator("[data-claim-holders] li").all_inner_texts()
            award("bingo")
            page.wait_for_selector(".console-live[data-console-state=finished]")
            seen["claim_form_after_end"] = page.locator("[data-claim-form]").count()
            seen["console_jackpot_winners"] = page.locator(
                "[data-prize=jackpot] [data-winners] li"
            ).all_inner_texts()
            page.screenshot(path=str(tmp_path / "console.png"), full_page=True)

            # The display, never reloaded, shows the winners and the jackpot won.
            display.wait_for_selector("[data-prize=bingo].is-won")
            display.wait_for_function(
                "() => document.querySelector('[data-jackpot-won]').textContent.trim() !== ''"
            )
            seen["display_count"] = display.locator("[data-count]").inner_text().strip()
            seen["display_lit"] = sorted(
                int(n) for n in display.locator(".display-cell.is-drawn").all_inner_texts()
            )
            seen["display_line_winners_end"] = display.locator(
                "[data-prize=line] [data-prize-winners]"
            ).inner_text()
            seen["display_bingo_winners"] = display.locator(
                "[data-prize=bingo] [data-prize-winners]"
            ).inner_text()
            seen["display_jackpot_won"] = display.locator("[data-jackpot-won]").inner_text().strip()
            display.wait_for_function(
                "v => document.querySelector('[data-jackpot-value]').textContent.trim() === v",
                arg=money_display(BASE_VALUE, hall.hall.currency),
            )
            seen["display_jackpot_after"] = display.locator("[data-jackpot-value]").inner_text().strip()
            seen["display_state"] = display.locator("[data-game-state]").inner_text().strip()
            seen["same_document"] = display.evaluate("window.__sameDocument === true")
            display.screenshot(path=str(tmp_path / "display.png"), full_page=True)

            # Window 3: the cashier pays card A against its check code (R50).
            till = cashier_context.new_page()
            till.set_default_timeout(TIMEOUT_MS)
            log_in(till, base, hall.cashier.username, "/caixa/")
            till.goto(f"{base}/caixa/premios/")

            def pay() -> Any:
                form = till.locator("[data-pay-form]")
                form.locator("select[name=series]").select_option(str(series.pk))
                form.locator("input[name=card_number]").fill(str(a))
                form.locator("input[name=check_code]").fill(code)
                with till.expect_navigation() as navigation:
                    form.locator("button[data-pay]").click()
                return navigation.value

            pay()
            till.wait_for_selector("#slip")  # the payout lands on its slip (R50)
            seen["payout_rows"] = [
                int(p)
                for p in till.locator("#slip [data-slip-payment]").evaluate_all(
                    "rows => rows.map(r => r.getAttribute('data-slip-payment'))"
                )
            ]
            for part in ("gross", "tax", "net"):
                seen[f"payout_{part}"] = till.locator(f"[data-slip-{part}]").inner_text().strip()
            till.screenshot(path=str(tmp_path / "cashier.png"), full_page=True)
            till.goto(f"{base}/caixa/premios/")

            again = pay()
            seen["again_status"] = again.status if again else None
            seen["again_error"] = till.locator("#pay-errors").inner_text().strip()
            seen["again_payout"] = till.locator("#slip").count()
            till.screenshot(path=str(tmp_path / "cashier-again.png"), full_page=True)
        finally:
            caller_context.close()
            cashier_context.close()
        return seen

    seen = browser(scenario)

    def money(amount: Decimal) -> str:
        return money_display(amount, hall.hall.currency)

    def cards_in(text: str) -> set[int]:
        return {int(n) for n in CARD.findall(text)}

    # Every ball keyed in reached the console and the display, one by one (R13).
    assert list(Ball.objects.filter(game=game).order_by("position").values_list("number", flat=True)) == balls
    assert seen["console_counts"] == [str(i) for i in range(1, len(balls) + 1)]
    assert seen["display_counts"] == [(str(i), str(n)) for i, n in enumerate(balls, start=1)]
    assert seen["display_jackpot_before"] == money(jackpot_before)
    assert str(len(balls)) in seen["display_jackpot_balls"]

    # The claims: a false one, then A's line shared with B and every other holder (R43, R46).
    assert seen["false_outcome"] == Claim.Outcome.FALSE
    assert seen["false_holders"] == 0
    assert seen["line_outcome"] == Claim.Outcome.VALID
    assert seen["line_marked"] >= 5
    assert {a, b} <= plan["line_holders"]
    assert cards_in(" ".join(seen["line_holders"])) == plan["line_holders"]
    assert cards_in(" ".join(seen["console_line_winners"])) == plan["line_holders"]
    assert cards_in(seen["display_line_winners"]) == plan["line_holders"]
    assert seen["bingo_kind_offered"] == "bingo"
    assert seen["bingo_outcome"] == Claim.Outcome.VALID
    assert a in plan["bingo_holders"]
    assert cards_in(" ".join(seen["bingo_holders"])) == plan["bingo_holders"]
    assert seen["claim_form_after_end"] == 0
    outcomes = list(
        Claim.objects.filter(game=game).order_by("pk").values_list("card_number", "kind", "outcome")
    )
    assert outcomes == [
        (plan["false_claim"], "line", Claim.Outcome.FALSE),
        (a, "line", Claim.Outcome.VALID),
        (a, "bingo", Claim.Outcome.VALID),
    ]

    # The prizes: shared in equal parts, rounded down to the escudo, remainder kept (R6).
    game.refresh_from_db()
    assert game.state == "finished"
    prizes = {p.kind: p for p in Prize.objects.filter(game=game)}
    assert set(prizes) == {"line", "bingo", "jackpot"}
    line, bingo, jackpot = prizes["line"], prizes["bingo"], prizes["jackpot"]
    assert line.total == amounts["line"]
    assert line.winners == len(plan["line_holders"])
    assert line.amount_each == (line.total / line.winners).quantize(Decimal(1), rounding="ROUND_FLOOR")
    assert line.amount_each * line.winners + line.remainder == line.total
    assert line.remainder == line.total % line.winners
    assert set(line.cards.values_list("card_number", flat=True)) == plan["line_holders"]
    assert line.balls_drawn == len(plan["line_balls"])
    assert bingo.total == amounts["bingo"]
    assert set(bingo.cards.values_list("card_number", flat=True)) == plan["bingo_holders"]
    assert bingo.amount_each * bingo.winners + bingo.remainder == bingo.total
    assert bingo.balls_drawn == len(balls)
    assert money(line.amount_each) in seen["display_line_winners_end"]
    assert cards_in(seen["display_bingo_winners"]) == plan["bingo_holders"]
    assert money(bingo.amount_each) in seen["display_bingo_winners"]

    # The jackpot (R9-R11): the whole balance went to the bingo, within the announced balls,
    # and the jackpot went back to its base value.
    assert jackpot.total == jackpot_before
    assert set(jackpot.cards.values_list("card_number", flat=True)) == plan["bingo_holders"]
    assert all(w.completed_at_ball <= len(balls) for w in jackpot.cards.all())
    state = jackpot_selectors.jackpot_state(hall=hall.hall)
    assert state.balance == BASE_VALUE == state.base_value
    ledger = list(
        JackpotMovement.objects.filter(jackpot__hall=hall.hall)
        .order_by("pk")
        .values_list("kind", "amount", "balance_after", "game_id")
    )
    assert ledger == [
        (JackpotMovement.Kind.SEED, BASE_VALUE, BASE_VALUE, None),
        (JackpotMovement.Kind.CONTRIBUTION, board.jackpot_contribution, jackpot_before, game.pk),
        (JackpotMovement.Kind.WIN, -jackpot_before, Decimal("0"), game.pk),
        (JackpotMovement.Kind.RESET, BASE_VALUE, BASE_VALUE, game.pk),
    ]
    assert money(jackpot.total) in seen["display_jackpot_won"]
    assert cards_in(seen["display_jackpot_won"]) == set(jackpot.cards.values_list("card_number", flat=True))
    assert seen["display_jackpot_after"] == money(BASE_VALUE)
    assert cards_in(" ".join(seen["console_jackpot_winners"])) == plan["bingo_holders"]
    assert seen["display_count"] == str(len(balls))
    assert seen["display_lit"] == sorted(balls)
    with translation.override("pt"):
        assert seen["display_state"] == str(game.get_state_display())
    assert seen["same_document"] is True  # all of it over the websocket, never reloaded

    # The cashier paid every prize card A won, once, with the hall's tax withheld (R8, R50).
    owed = PrizeWinner.objects.filter(prize__game=game, series=series, card_number=a)
    assert {w.prize.kind for w in owed} == {"line", "bingo", "jackpot"}
    payments = list(PrizePayment.objects.filter(winner__in=owed).order_by("pk"))
    assert len(payments) == owed.count() == PrizePayment.objects.count()
    assert sorted(seen["payout_rows"]) == [p.pk for p in payments]
    assert all(p.cashier == hall.cashier and p.cash_desk == hall.desk for p in payments)
    assert all(p.gross == p.winner.amount and p.net == p.gross - p.tax_withheld for p in payments)
    gross = sum((p.gross for p in payments), Decimal(0))
    tax = sum((p.tax_withheld for p in payments), Decimal(0))
    assert tax > 0
    assert seen["payout_gross"] == money(gross)
    assert seen["payout_tax"] == money(tax)
    assert seen["payout_net"] == money(gross - tax)
    # Paying the same card again is refused, and nothing more is paid.
    assert seen["again_status"] == 400
    assert no_prize_to_pay in seen["again_error"]
    assert seen["again_payout"] == 0

    for shot in ("display", "console", "console-line-claim", "cashier", "cashier-again"):
        assert (tmp_path / f"{shot}.png").stat().st_size > 0
