"""The demo hall in play (issue 24, bingo/demohall): a newcomer who runs `make run` finds a hall
that sells and plays at once — series of every variant in stock, a finished session with its
results, a paid prize and its acta, a game on sale, a game ready to draw, and simulated players
buying in the online room — and running the demo again leaves one demo."""

from __future__ import annotations

import random
from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from actas import selectors as acta_selectors
from bingo.autodraw.services import online_reconcile
from bingo.demohall.services import BOTS, CARDS_SOLD, OPENING_FLOAT, demo_bots_buy
from bingo.demohall.tasks import bots_buy_task
from bingo.drawers.selectors import drawer_figures
from bingo.engine.variants import Variant
from bingo.games.forms import OpenSalesForm
from bingo.games.services import game_create
from bingo.games.simulation import PRICE
from bingo.models import DrawerShift, Game, GameState, Player, PrizePayment, PrizeWinner, Sale, Session
from bingo.online.selectors.lobby import online_lobby
from bingo.players.services import wallet_post
from cards.models import Series
from halls.models import Hall

pytestmark = pytest.mark.django_db


def demo_setup(settings: Any) -> str:
    settings.DEBUG = True
    out = StringIO()
    call_command("demo_setup", stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    return {
        "halls": Hall.objects.count(),
        "sessions": Session.objects.count(),
        "games": Game.objects.count(),
        "series": Series.objects.count(),
        "sales": Sale.objects.count(),
        "payments": PrizePayment.objects.count(),
        "players": Player.objects.count(),
    }


def test_the_demo_hall_has_a_finished_session_with_paid_prizes_and_its_acta(settings: Any) -> None:
    demo_setup(settings)

    finished = Session.objects.get(ended_at__isnull=False)
    games = list(finished.games.order_by("number"))
    assert [g.state for g in games] == [GameState.FINISHED, GameState.FINISHED]
    assert {g.variant for g in games} == {"90", "75"}
    # The first game's prizes were paid at the desk (R50); the second's are the cashier's to pay.
    first, second = (PrizeWinner.objects.filter(prize__game=g) for g in games)
    assert first.exists()
    assert second.exists()
    assert PrizePayment.objects.filter(winner__in=first).count() == first.count()
    assert not PrizePayment.objects.filter(winner__in=second).exists()
    # Its acta holds both games, and its chain checks (R59-R61).
    assert acta_selectors.acta_verify(session=finished).intact
    acta = acta_selectors.acta_get(session=finished)
    assert acta is not None
    assert {entry.game_id for entry in acta.entries.all()} == {g.pk for g in games}


def test_the_demo_hall_has_a_game_ready_to_draw_and_one_on_sale(settings: Any) -> None:
    demo_setup(settings)

    ready = Game.objects.get(state=GameState.SALES_CLOSED)
    selling = Game.objects.get(state=GameState.SELLING, session__room__online__isnull=True)
    assert ready.session.room != selling.session.room  # R60: the next game waits for the last
    for game in (ready, selling):
        assert sum(Sale.objects.filter(game=game).values_list("quantity", flat=True)) == CARDS_SOLD
        assert game.session.ended_at is None


def test_the_demo_hall_has_a_hall_series_of_every_variant_in_stock(settings: Any) -> None:
    demo_setup(settings)

    in_stock = Series.objects.filter(online=False, games__isnull=True)
    assert {s.card_set.variant for s in in_stock} == {v.value for v in Variant}


def test_the_demo_cashier_sells_at_once_and_the_caller_draws_at_once(settings: Any, client: Client) -> None:
    demo_setup(settings)
    selling = Game.objects.get(state=GameState.SELLING, session__room__online__isnull=True)
    ready = Game.objects.get(state=GameState.SALES_CLOSED)
    desk = selling.session.room.hall.cash_desks.get()

    client.post("/entrar/", {"username": "caixa", "password": "caixa-demo"})
    response = client.post(
        "/caixa/venda/",
        {"game": selling.pk, "cash_desk": desk.pk, "quantity": 2, "cash_received": "200.00",
         "request_key": "demo-first-sale"},
    )  # fmt: skip
    assert response.status_code in (200, 302)
    assert Sale.objects.filter(game=selling, request_key="demo-first-sale").get().quantity == 2

    client.post("/sair/")
    client.post("/entrar/", {"username": "locutor", "password": "locutor-demo"})
    console = client.get(f"/locutor/jogo/{ready.pk}/")
    assert console.status_code == 200


def test_the_demo_cashier_pays_the_prize_due_by_the_payload_the_demo_prints(
    settings: Any, client: Client
) -> None:
    output = demo_setup(settings)
    payload = output.rsplit(": ", 1)[1].strip()
    assert payload.startswith("http")
    assert "/verificar/?serie=" in payload
    desk = Hall.objects.get().cash_desks.get()
    due = PrizeWinner.objects.filter(payment__isnull=True)
    serie, number = (int(part.split("=")[1]) for part in payload.split("?")[1].split("&")[:2])
    card_winners = due.filter(series_id=serie, card_number=number)
    assert card_winners.exists()

    client.post("/entrar/", {"username": "caixa", "password": "caixa-demo"})
    response = client.post("/caixa/premios/", {"cash_desk": desk.pk, "scan": payload})

    assert response.status_code == 302
    assert response["Location"].startswith("/caixa/taloes/")
    assert not card_winners.filter(payment__isnull=True).exists()


def test_running_the_demo_twice_leaves_one_demo(settings: Any) -> None:
    demo_setup(settings)
    first = counts()

    demo_setup(settings)

    assert counts() == first
    assert first["halls"] == 1
    assert first["sessions"] == 3


def test_the_simulated_players_buy_once_in_each_online_game_so_the_lobby_shows_prizes(settings: Any) -> None:
    demo_setup(settings)
    online_reconcile()  # the online loop opens the continuous room's first game (R90)
    game = Game.objects.get(state=GameState.SELLING, session__room__online__isnull=False)
    player = Player.objects.get(user__username="jogador")
    assert all(value.startswith("0 ") for _name, value in _lobby_prizes(player))

    bought = demo_bots_buy(rng=random.Random(1))

    sales = Sale.objects.filter(game=game)
    assert bought == sum(sales.values_list("quantity", flat=True)) > 0
    assert set(sales.values_list("buyer__user__username", flat=True)) == {u for u, _n in BOTS}
    assert not any(value.startswith("0 ") for _name, value in _lobby_prizes(player))
    assert demo_bots_buy() == 0  # once per game
    # No one logs in as a simulated player.
    assert not Player.objects.get(user__username=BOTS[0][0]).user.has_usable_password()


def test_a_simulated_player_low_on_credit_is_topped_up_before_buying(settings: Any) -> None:
    demo_setup(settings)
    online_reconcile()
    bot = Player.objects.get(user__username=BOTS[0][0])
    cashier = User.objects.get(username="caixa")
    wallet_post(
        player=bot, kind="withdrawal", amount=Decimal("450.00"), key="drain", recorded_by=cashier,
        reference="test",
    )  # fmt: skip

    assert demo_bots_buy(rng=random.Random(2)) > 0
    assert Sale.objects.filter(buyer=bot).exists()


def _lobby_prizes(player: Player) -> list[tuple[str, str]]:
    return [
        (prize.name, prize.display)
        for room in online_lobby(player=player).rooms
        for g in room.games
        for prize in g.prizes
    ]


def test_the_cashier_is_offered_only_hall_games_and_the_manager_only_hall_series(
    settings: Any, client: Client
) -> None:
    """Issue 24: the cashier's sale list offered the online room's games, and «Abrir as vendas»
    the online series J-1 and J-2, which it then refused (R85)."""
    demo_setup(settings)
    online_reconcile()  # the online room's game is now selling too
    assert Game.objects.filter(state=GameState.SELLING, session__room__online__isnull=False).exists()
    hall_selling = Game.objects.get(state=GameState.SELLING, session__room__online__isnull=True)

    client.post("/entrar/", {"username": "caixa", "password": "caixa-demo"})
    page = client.get("/caixa/venda/")
    # The one hall game on sale opens at once, with no other game to switch to.
    assert page.context["game"].pk == hall_selling.pk
    assert page.context["other_games"] == []

    session = hall_selling.session
    game = game_create(session=session, variant="90")
    form = OpenSalesForm(game=game)
    choices = list(form.fields["first"].queryset)
    assert choices
    assert not any(series.online for series in choices)
    assert all(series.card_set.variant == "90" for series in choices)


def test_the_demo_desks_drawer_is_open_and_counts_the_demos_sales_and_payouts(settings: Any) -> None:
    demo_setup(settings)
    desk = Hall.objects.get().cash_desks.get()

    drawer = DrawerShift.objects.get(cash_desk=desk, closed_at__isnull=True)
    figures = drawer_figures(
        cash_desk=desk, start=drawer.opened_at, end=timezone.now(), opening_float=drawer.opening_float
    )

    sold = sum(Sale.objects.filter(cash_desk=desk).values_list("amount", flat=True))
    paid = sum(PrizePayment.objects.filter(cash_desk=desk).values_list("net", flat=True))
    assert sold == 4 * CARDS_SOLD * PRICE
    assert figures.net_sales == sold
    assert figures.prizes_net == paid > 0
    assert figures.expected_cash == OPENING_FLOAT + sold - paid


def test_the_bots_task_does_nothing_where_demo_bots_is_off(settings: Any) -> None:
    demo_setup(settings)
    online_reconcile()
    settings.DEMO_BOTS = False

    assert bots_buy_task() == 0
    assert not Sale.objects.filter(buyer__user__username__in=[u for u, _n in BOTS]).exists()

    settings.DEMO_BOTS = True
    assert bots_buy_task() > 0


def test_a_person_who_took_a_bots_name_is_never_played_nor_credited(settings: Any) -> None:
    person = User.objects.create_user(BOTS[0][0], password="a-real-password-1")
    demo_setup(settings)
    online_reconcile()

    demo_bots_buy(rng=random.Random(3))

    assert not Player.objects.filter(user=person).exists()
    assert not Sale.objects.filter(buyer__user=person).exists()
    assert Sale.objects.filter(buyer__user__username=BOTS[1][0]).exists()
