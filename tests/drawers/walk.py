"""The issue's walk at one desk of a hall that withholds 10 % on prizes of 100 or more: a drawer
opened with a float, sales (one with change given, one spanning two series, R38), a prize paid
with tax withheld (R50, R61 g)), a wallet deposit and a withdrawal; and, not to be counted, the
same kinds of movement at another desk, without a desk, or before the drawer opened."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from bingo.draw import services as draw_services
from bingo.drawers import services as drawer_services
from bingo.games import services
from bingo.models import DrawerShift
from bingo.players import services as player_services
from cards import selectors as card_selectors
from halls.models import CashDesk
from tests.draw.test_services import Draw, _won_game
from tests.factories import DEFAULT_PASSWORD

FLOAT = Decimal("5000")


class Walk(Draw):
    """A hall whose desk ``desk`` sells, pays and moves wallets' cash; ``other_desk`` too."""

    def __init__(self, name: str = "Sala Praia") -> None:
        super().__init__(name=name, tax_rate=Decimal("10"), tax_threshold=Decimal("100"))
        self.other_desk = CashDesk.objects.create(hall=self.hall, name="Caixa 2")
        # Played before the drawer opens: its ten sales at the desk are not the drawer's.
        self.won, self.winning_card = _won_game(self)
        self.player = player_services.player_register(
            username=f"maria-{self.hall.pk}",
            email=f"maria-{self.hall.pk}@example.cv",
            first_name="Maria",
            last_name="Tavares",
            password=DEFAULT_PASSWORD,
            birth_date=date(1990, 5, 17),
            adult_confirmed=True,
            hall=self.hall,
        )
        player_services.player_email_mark_verified(player=self.player)  # the desk deposits for her

    def open(self, opening_float: Decimal = FLOAT) -> DrawerShift:
        return drawer_services.drawer_open(
            cash_desk=self.desk, cashier=self.cashier, opening_float=opening_float
        )

    def sales(self) -> None:
        """160 for 4 cards paid with 200 (change 40); 280 for 7 cards across two series paid with
        300 (change 20); and 85 cards sold at the other desk."""
        single = self.game(self.series(next(self._orders), price="40.00"))
        self.sell(single, 4, cash=Decimal("200"))
        services.game_close_sales(game=single)
        first, second = self.series(next(self._orders), "40.00"), self.series(next(self._orders), "40.00")
        warm_up = self.game(first)
        self.sell(warm_up, 85, desk=self.other_desk, cash=Decimal("3400"))
        services.game_close_sales(game=warm_up)
        rolling = self.game(first, second)
        result = self.sell(rolling, 7, cash=Decimal("300"))
        assert len(result.sales) == 2  # 86-90 of the first series, 1-2 of the second (R38)
        services.game_close_sales(game=rolling)

    def pay_prize(self) -> draw_services.Payout:
        series = self.series_of(self.won)
        return draw_services.prize_pay(
            series=series,
            card_number=self.winning_card,
            check_code=card_selectors.card_check_code(series=series, number=self.winning_card),
            cash_desk=self.desk,
            cashier=self.cashier,
        )

    def wallet(self, kind: str, amount: str, desk: CashDesk | None) -> None:
        move = player_services.wallet_deposit if kind == "deposit" else player_services.wallet_withdraw
        move(
            player=self.player,
            amount=Decimal(amount),
            staff=self.cashier,
            reference="CNI 1234567",
            key=uuid.uuid4().hex,
            cash_desk=desk,
        )

    def movements(self) -> draw_services.Payout:
        """Everything of the walk at the desk, and the movements elsewhere; the prize's payout."""
        self.sales()
        payout = self.pay_prize()
        self.wallet("deposit", "900", self.desk)
        self.wallet("withdrawal", "464", self.desk)
        self.wallet("deposit", "1000", self.other_desk)
        self.wallet("deposit", "50", None)
        return payout
