"""Double cards (R15, R45): bought once, played in two consecutive games, paid after the second."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from actas.models import ActaEntry
from bingo.draw import services as draw_services
from bingo.engine.sales import double_card_halves
from bingo.games import doubles, exports, services
from bingo.jackpot import selectors as jackpot_selectors
from bingo.models import DrawMode, Game, GameState, Prize, Refund
from cards import selectors as card_selectors
from cards.models import Series
from tests.cards.factories import series_make
from tests.draw.test_services import Draw, all_numbers, row

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


@given(st.decimals(min_value=0, max_value=10**9, places=2))
def test_the_two_halves_of_a_double_card_add_up_to_its_price(amount: Decimal) -> None:
    first, second = double_card_halves(amount)
    assert first + second == amount  # nothing lost, nothing counted twice
    assert 0 <= second - first <= Decimal("0.01")
    assert first == first.quantize(Decimal("0.01"))


def test_halves_of_an_odd_amount() -> None:
    assert double_card_halves(Decimal("25.01")) == (Decimal("12.50"), Decimal("12.51"))
    with pytest.raises(ValueError):
        double_card_halves(Decimal("-1"))


class Doubles(Draw):
    def double_series(self, order_number: int, price: str = "100.00") -> Series:
        return series_make(
            hall=self.hall, card_set=self.card_set, order_number=order_number, price=price, double=True
        )

    def first_game(self, cards: int = 10, price: str = "100.00") -> Game:
        """A game that sold ``cards`` double cards, drawing."""
        game = self.game(self.double_series(next(self._orders), price=price))
        self.sell(game, cards)
        services.game_close_sales(game=game)
        return self.start(game)

    def finish(self, game: Game, card_number: int) -> None:
        """Key in card ``card_number``'s numbers and award the line and the bingo to whoever holds them."""
        drawn = set(game.balls.values_list("number", flat=True))
        card = card_selectors.card_get(card_set=self.card_set, number=card_number)
        self.key(game, *[n for n in all_numbers(card) if n not in drawn])
        if not game.prizes.filter(kind="line").exists():
            draw_services.prize_award(game=game, user=self.caller, kind="line")
        draw_services.prize_award(game=game, user=self.caller, kind="bingo")

    def start(self, game: Game) -> Game:
        return draw_services.game_start_draw(
            game=game, user=self.caller, mode=DrawMode.PHYSICAL, ball_set=self.ball_set
        )

    def second_game(self) -> Game:
        game = services.game_create(session=self.session, variant="90")
        return services.game_play_doubles(game=game)

    def pay(self, game: Game, number: int) -> draw_services.Payout:
        series = game.on_sale.get(position=1).series
        code = card_selectors.card_check_code(series=series, number=number)
        return draw_services.prize_pay(
            series=series, card_number=number, check_code=code, cash_desk=self.desk, cashier=self.cashier
        )


@pytest.fixture
def hall(db) -> Doubles:
    return Doubles()


def test_double_cards_play_two_games_and_are_paid_after_the_second(hall: Doubles) -> None:
    first = hall.first_game(cards=10)  # 10 cards at 100: 1 000 paid, 500 per game
    assert doubles.prize_base(first) == Decimal("500.00")
    assert "also play the next game" in Game.objects.get(pk=first.pk).closing_announcement
    hall.finish(first, 5)
    bingo = Prize.objects.get(game=first, kind="bingo")
    assert bingo.total == Decimal("300")  # 60 % of half the price (R7, R15)

    # R45: not paid before the second game has ended.
    with pytest.raises(ValidationError, match="after their second game"):
        hall.pay(first, 5)

    second = hall.second_game()
    assert second.state == GameState.SALES_CLOSED
    assert second.doubles_of_id == first.pk
    carried = list(second.on_sale.values_list("series_id", "start_number", "last_number", "carried"))
    assert carried == [(hall.series_of(first).pk, 1, 10, True)]
    assert doubles.cards_in_play(second) == 10
    assert doubles.prize_base(second) == Decimal("500.00")
    assert not second.sales.exists()
    assert "Second game of the double cards sold in game 1" in second.closing_announcement
    with pytest.raises(ValidationError):  # it sells nothing
        hall.sell(second, 1)

    draw_services.game_start_draw(
        game=second, user=hall.caller, mode=DrawMode.PHYSICAL, ball_set=hall.ball_set
    )
    # The carried cards play: card 7's line is valid in the second game.
    card = hall.card(second, 7)
    hall.key(second, *row(card, 0))
    result = hall.claim(second, 7)
    assert result.valid
    draw_services.prize_award(game=second, user=hall.caller, kind="line")
    with pytest.raises(ValidationError, match="after their second game"):
        hall.pay(first, 5)  # the second game is still drawing
    hall.finish(second, 7)

    # Both games over: every prize of either game is paid, once.
    paid_5 = hall.pay(first, 5)
    assert paid_5.gross == sum(
        w.amount for p in Prize.objects.filter(game=first) for w in p.cards.filter(card_number=5)
    )
    paid_7 = hall.pay(second, 7)
    assert paid_7.gross == sum(
        w.amount
        for p in Prize.objects.filter(game__in=[first, second])
        for w in p.cards.filter(card_number=7)
    )
    with pytest.raises(ValidationError, match="already paid"):
        hall.pay(first, 5)
    services.session_close(session=hall.session, end_checks={hall.ball_set.pk: []})  # R23


def test_the_next_game_waits_for_the_first_to_end_and_sells_nothing(hall: Doubles) -> None:
    first = hall.first_game(cards=4)
    following = services.game_create(session=hall.session, variant="90")
    with pytest.raises(ValidationError, match="must end before"):
        services.game_play_doubles(game=following)
    with pytest.raises(ValidationError, match="plays them again and sells none"):
        services.game_open_sales(game=following, series=[hall.series(90)])
    assert Game.objects.get(pk=following.pk).state == GameState.PLANNED
    hall.finish(first, 1)
    services.game_play_doubles(game=following)
    # Played once: a second press is refused and changes nothing.
    with pytest.raises(ValidationError):
        services.game_play_doubles(game=following)
    assert following.on_sale.count() == 1


def test_a_session_does_not_end_while_double_cards_wait_for_their_second_game(hall: Doubles) -> None:
    first = hall.first_game(cards=3)
    hall.finish(first, 2)
    with pytest.raises(ValidationError, match="second game"):
        services.session_close(session=hall.session)
    assert doubles.awaiting_second_game(hall.session) == [first.number]
    second = hall.second_game()
    draw_services.game_start_draw(
        game=second, user=hall.caller, mode=DrawMode.PHYSICAL, ball_set=hall.ball_set
    )
    hall.finish(second, 3)
    closed = services.session_close(session=hall.session, end_checks={hall.ball_set.pk: []})  # R23
    assert closed.ended_at is not None


def test_the_second_game_has_the_first_ones_variant(hall: Doubles) -> None:
    game = hall.game(hall.double_series(60))
    with pytest.raises(ValidationError, match="90-ball"):
        services.game_create(session=hall.session, variant="75")
    services.game_close_sales(game=game)  # sold none: the next game is free again
    assert services.game_create(session=hall.session, variant="75").variant == "75"


def test_double_cards_go_on_sale_only_where_the_next_game_can_play_them(hall: Doubles) -> None:
    game = services.game_create(session=hall.session, variant="90")
    services.game_create(session=hall.session, variant="75")  # already planned, another variant
    with pytest.raises(ValidationError, match="cannot play them"):
        services.game_open_sales(game=game, series=[hall.double_series(61)])
    assert Game.objects.get(pk=game.pk).state == GameState.PLANNED


def test_both_series_on_sale_are_double_or_neither(hall: Doubles) -> None:
    game = services.game_create(session=hall.session, variant="90")
    for chosen in ([hall.double_series(62), hall.series(63)], [hall.series(64), hall.double_series(65)]):
        with pytest.raises(ValidationError, match="double cards, or neither"):
            services.game_open_sales(game=game, series=chosen)
    assert Game.objects.get(pk=game.pk).state == GameState.PLANNED


def test_annulling_the_first_game_refunds_the_double_cards_in_full(hall: Doubles) -> None:
    first = hall.first_game(cards=4, price="25.01")
    hall.key(first, 7)  # R57: a number announced wrongly, so a ball is out
    draw_services.game_annul(game=first, user=hall.caller, reason="wrong ball announced")  # R57
    assert [r.amount for r in Refund.objects.filter(game=first)] == [Decimal("100.04")]
    # They never play again: the next game sells as usual, and the session may end.
    following = services.game_create(session=hall.session, variant="90")
    assert doubles.doubles_before(following) is None
    services.game_open_sales(game=following, series=[hall.series(70)])


def test_annulling_the_second_game_refunds_its_half(hall: Doubles) -> None:
    first = hall.first_game(cards=3, price="25.01")  # one sale of 75.03: 37.51 + 37.52
    hall.finish(first, 1)
    second = hall.second_game()
    assert doubles.prize_base(first) == Decimal("37.51")
    assert doubles.prize_base(second) == Decimal("37.52")
    second = hall.start(second)
    hall.key(second, 7)  # R57: a number announced wrongly, so a ball is out
    draw_services.game_annul(game=second, user=hall.caller, reason="wrong ball announced")
    assert [r.amount for r in Refund.objects.filter(game=second)] == [Decimal("37.52")]
    # The second game is over (annulled): the first game's prizes are paid (R45).
    assert hall.pay(first, 1).gross > 0


def test_the_second_game_adds_its_3_percent_to_the_jackpot(db) -> None:  # R10
    hall = Doubles(jackpot_active=True)
    first = hall.first_game(cards=10)  # 500 per game; prize money 80 % = 400; 3 % = 12
    hall.finish(first, 4)
    before = jackpot_selectors.jackpot_state(hall=hall.hall).balance
    hall.second_game()
    assert jackpot_selectors.jackpot_state(hall=hall.hall).balance - before == Decimal("12.00")


def test_the_export_tells_the_two_games_apart(hall: Doubles) -> None:
    first = hall.first_game(cards=6)
    hall.finish(first, 6)
    second = hall.second_game()
    data = exports.session_export_data(session=hall.session)
    one, two = data["games"]
    assert one["double_cards"] == {"game": "first", "other_game": second.number}
    assert two["double_cards"] == {"game": "second", "other_game": first.number}
    assert (one["cards_sold"], one["cards_in_play"], one["total_collected"]) == (6, 6, "600.00")
    assert (two["cards_sold"], two["cards_in_play"], two["total_collected"]) == (0, 6, "0.00")
    assert one["prize_base"] == two["prize_base"] == "300.00"
    assert two["series_sold"][0]["first_card_sold"] == 1
    assert two["series_sold"][0]["last_card_sold"] == 6


def test_the_manager_plays_the_double_cards_from_the_game_page(client, hall: Doubles) -> None:
    from bingo.common.roles import Role
    from halls.models import StaffMembership
    from tests.factories import UserFactory

    manager = UserFactory(username="gerente-duplos", roles=[Role.MANAGER])
    StaffMembership.objects.create(hall=hall.hall, user=manager, role=Role.MANAGER.value)
    first = hall.first_game(cards=2)
    hall.finish(first, 2)
    following = services.game_create(session=hall.session, variant="90")
    client.force_login(manager)
    page = client.get(reverse("games:game_detail", args=[following.pk]))
    assert page.status_code == 200
    assert b'id="play-doubles"' in page.content
    assert b'id="open-sales"' not in page.content  # it sells nothing
    answer = client.post(reverse("games:game_play_doubles", args=[following.pk]))
    assert answer.status_code == 302
    assert Game.objects.get(pk=following.pk).state == GameState.SALES_CLOSED
    # The caller's console says which cards play (R15).
    from bingo.common.roles import user_roles_set

    user_roles_set(user=hall.caller, roles=[Role.CALLER])
    client.force_login(hall.caller)
    console = client.get(reverse("draw:console", args=[following.pk]))
    assert "data-doubles-of>Cartões duplos da jogada 1<" in console.content.decode()  # R54
    # A caller may look at games but not change them.
    client.force_login(hall.caller)
    assert client.post(reverse("games:game_play_doubles", args=[following.pk])).status_code == 403


def test_the_api_plays_the_double_cards(client, hall: Doubles) -> None:
    from bingo.common.roles import Role
    from halls.models import StaffMembership
    from tests.factories import UserFactory

    manager = UserFactory(username="gerente-api", roles=[Role.MANAGER])
    StaffMembership.objects.create(hall=hall.hall, user=manager, role=Role.MANAGER.value)
    first = hall.first_game(cards=3)
    following = services.game_create(session=hall.session, variant="90")
    client.force_login(manager)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    path = f"/api/games/{following.pk}/play-doubles/"
    refused = client.post(path)
    assert refused.status_code == 400
    assert "must end before" in str(refused.json())
    hall.finish(first, 3)
    answer = client.post(path)
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["state"] == "sales_closed"
    assert data["doubles_of"] == first.number
    assert data["on_sale"] == [
        {
            "series": hall.series_of(first).pk,
            "label": hall.series_of(first).label,
            "position": 1,
            "start_number": 1,
            "last_number": 3,
            "cards_sold": 0,
            "amount": "0.00",
            "carried": True,
        }
    ]
    client.force_login(hall.caller)
    assert client.post(path).status_code == 403  # a caller of the hall may not


def test_the_first_games_acta_entry_names_the_second_game_before_it_exists(hall: Doubles) -> None:  # R15, R61
    """Issue 22: the first game's entry is recorded when it ends, before the second game is made;
    it names the session's next game, the one R15 plays the double cards in, as the export does
    once both are played."""
    first = hall.first_game(cards=6)
    hall.finish(first, 6)
    entry = json.loads(ActaEntry.objects.get(game=first).content)
    assert entry["export"]["double_cards"] == {"game": "first", "other_game": first.number + 1}
    second = hall.second_game()
    assert second.number == first.number + 1
    one, two = exports.session_export_data(session=hall.session)["games"]
    assert one["double_cards"] == entry["export"]["double_cards"]
    assert two["double_cards"] == {"game": "second", "other_game": first.number}
